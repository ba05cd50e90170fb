// HIP-over-CUDA test runtime (hipBLASLt and rocBLAS shims): cuBLASLt, dlopen'ed lazily.
//
// Neither shim links cuBLASLt, so both load (and fail cleanly) where it is missing.
// cublasLt.h supplies types and prototypes only. The library is tried by soname
// (libcublasLt.so.13, .so.12: LD_LIBRARY_PATH and the ldconfig cache) and then in the
// toolkit's default directory, which is often not registered.
//
// Test hook: OPKIT_HIPSHIM_CUBLASLT=<path> opens that file instead (a missing path
// exercises the "no cuBLASLt" answers on any machine).
//
// cuBLASLt runs on the calling thread's current CUDA context. The HIP shim leaves the
// primary context of the thread's HIP device current after every hip* call, so a handle
// created or a matmul issued after hipSetDevice lands on that device, as with ROCm.
#pragma once

#include <cublasLt.h>

namespace hipshim_blas {

#define HIPSHIM_CUBLASLT_FUNCTIONS(X)      \
    X(cublasLtCreate)                      \
    X(cublasLtDestroy)                     \
    X(cublasLtMatmulDescCreate)            \
    X(cublasLtMatmulDescDestroy)           \
    X(cublasLtMatmulDescSetAttribute)      \
    X(cublasLtMatrixLayoutCreate)          \
    X(cublasLtMatrixLayoutDestroy)         \
    X(cublasLtMatrixLayoutSetAttribute)    \
    X(cublasLtMatmulPreferenceCreate)      \
    X(cublasLtMatmulPreferenceDestroy)     \
    X(cublasLtMatmulPreferenceSetAttribute) \
    X(cublasLtMatmulAlgoGetHeuristic)      \
    X(cublasLtMatmul)

struct CublasLt {
#define HIPSHIM_LT_MEMBER(name) decltype(&::name) name = nullptr;
    HIPSHIM_CUBLASLT_FUNCTIONS(HIPSHIM_LT_MEMBER)
#undef HIPSHIM_LT_MEMBER
};

// The loaded table, or NULL (library missing or incomplete). Loads once, thread-safe.
const CublasLt* cublaslt() noexcept;

}  // namespace hipshim_blas
