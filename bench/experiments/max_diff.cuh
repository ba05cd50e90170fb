// Whole-output comparison for the standalone kernel experiments in this folder (not part of
// the build; include after the kernel sources, which define to_f32): max_abs_diff<T>(a, b,
// n), the largest |a[i] - b[i]| over n device elements of T, computed on the device.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>

// Each thread's largest difference, merged as float bits: non-negative floats order as
// unsigned integers, so atomicMax on the bits is a max on the values.
template <typename T>
__global__ void max_abs_diff_kernel(const T* a, const T* b, int64_t n, unsigned* out) {
    float m = 0.0f;
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
        m = fmaxf(m, fabsf(opk::to_f32(a[i]) - opk::to_f32(b[i])));
    atomicMax(out, __float_as_uint(m));
}

template <typename T>
static double max_abs_diff(const void* a, const void* b, int64_t n) {
    static unsigned* bits_d = nullptr;
    if (!bits_d) cudaMalloc(&bits_d, sizeof(unsigned));
    cudaMemset(bits_d, 0, sizeof(unsigned));
    max_abs_diff_kernel<T><<<1024, 256>>>(static_cast<const T*>(a), static_cast<const T*>(b), n, bits_d);
    unsigned bits = 0;
    cudaMemcpy(&bits, bits_d, sizeof bits, cudaMemcpyDeviceToHost);
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}
