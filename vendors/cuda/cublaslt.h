// cuBLASLt, dlopen'ed on the first matmul (it is a large library, and an optional one:
// without it matmul declines and every other op still runs). cublasLt.h supplies the
// types and prototypes at compile time only; nothing is linked.
#pragma once

#include "gpu/host/gpu_runtime.h"

#include <cublasLt.h>

#include <string>

namespace opkit_cuda {

struct CublasLt {
#define OPKIT_LT_FUNCTIONS(X)        \
    X(cublasLtCreate)                \
    X(cublasLtDestroy)               \
    X(cublasLtGetStatusName)         \
    X(cublasLtGetStatusString)       \
    X(cublasLtMatmulDescCreate)      \
    X(cublasLtMatmulDescDestroy)     \
    X(cublasLtMatmulDescSetAttribute) \
    X(cublasLtMatrixLayoutCreate)    \
    X(cublasLtMatrixLayoutDestroy)   \
    X(cublasLtMatrixLayoutSetAttribute) \
    X(cublasLtMatmulPreferenceCreate) \
    X(cublasLtMatmulPreferenceDestroy) \
    X(cublasLtMatmulPreferenceSetAttribute) \
    X(cublasLtMatmulAlgoGetHeuristic) \
    X(cublasLtMatmul)
#define OPKIT_LT_MEMBER(name) decltype(&::name) name = nullptr;
    OPKIT_LT_FUNCTIONS(OPKIT_LT_MEMBER)
#undef OPKIT_LT_MEMBER
};

// The loaded library, or NULL with *why saying what was tried. Thread-safe; loads once.
const CublasLt* cublaslt(std::string* why);

// "CUBLAS_STATUS_NOT_SUPPORTED (the functionality requested is not supported)".
std::string lt_error_text(cublasStatus_t s);

// The runtime's blas_matmul (matmul.cpp): one matmul on d (current), cuBLASLt loaded.
opkit_status lt_matmul(opkit_gpu::Device& d, const opkit_gpu::BlasMatmul& m);

}  // namespace opkit_cuda
