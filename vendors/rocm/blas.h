// matmul's BLAS on AMD: hipBLASLt when it is installed and has an algorithm for the call,
// else rocBLAS (every AMD architecture, any alignment), else matmul declines naming both.
// Both libraries are dlopen'ed on the first matmul; their ABI is declared in blas_api.h.
#pragma once

#include "blas_api.h"
#include "gpu/host/gpu_runtime.h"

#include <string>

namespace opkit_rocm {

struct HipBlasLt {
#define OPKIT_ROCM_LT_MEMBER(name, type) lt::name##_fn name = nullptr;
    OPKIT_HIPBLASLT_FUNCTIONS(OPKIT_ROCM_LT_MEMBER)
#undef OPKIT_ROCM_LT_MEMBER
};

struct RocBlas {
#define OPKIT_ROCM_RB_MEMBER(name, type) rb::name##_fn name = nullptr;
    OPKIT_ROCBLAS_FUNCTIONS(OPKIT_ROCM_RB_MEMBER)
#undef OPKIT_ROCM_RB_MEMBER
};

// Loads both libraries once (thread-safe). True when at least one is usable; otherwise
// *why says what was tried for each.
bool load_blas(std::string* why);
// The loaded libraries, or NULL.
const HipBlasLt* hipblaslt();
const RocBlas* rocblas();
// "hipBLASLt", "rocBLAS", "hipBLASLt/rocBLAS" (both), for messages.
const char* loaded_blas_name();

// Runtime::blas_matmul (matmul.cpp): one matmul on d (current), a library loaded.
opkit_status blas_gemm(opkit_gpu::Device& d, const opkit_gpu::BlasMatmul& m);

}  // namespace opkit_rocm
