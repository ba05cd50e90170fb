// HIP-over-CUDA self-test: the kernel images (selftest/kernels.cu built by nvcc at build
// time and embedded by embed.cmake). Empty (data NULL, size 0) when nvcc was not found:
// the cases that launch kernels then skip.
#pragma once

#include <cstddef>

namespace hipshim_test {

struct Image {
    const unsigned char* data;
    size_t size;
};

extern const Image kFatbin;     // sm of OPKIT_HIPSHIM_CUDA_ARCHS + PTX: loads on any GPU
extern const Image kCubinSm80;  // one generation each: loading the other generation's
extern const Image kCubinSm90;  // cubin must fail with hipErrorNoBinaryForGpu

}  // namespace hipshim_test
