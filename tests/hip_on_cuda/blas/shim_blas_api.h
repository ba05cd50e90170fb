// HIP-over-CUDA test runtime (hipBLASLt and rocBLAS shims): vendors/rocm/blas_api.h,
// with hipStream_t but without hip_runtime_api.h.
//
// blas_api.h takes one type from HIP, hipStream_t, and includes hip_runtime_api.h for
// it. That header cannot share a translation unit with cublasLt.h: both define float2,
// char1, int4, ... (AMD's as HIP_vector_type aliases, CUDA's as structs). The BLAS shims
// include blas_api.h only through this header, which first defines hipStream_t exactly as AMD's header
// does (an opaque `struct ihipStream_t*`, so every function type, and the symbol the
// vendor calls, is the same) and marks hip_runtime_api.h as already included. The
// self-test, built against the real header, calls these functions through blas_api.h
// with AMD's hipStream_t.
#pragma once

#if defined(HIP_INCLUDE_HIP_HIP_RUNTIME_API_H)
#error "shim_blas_api.h must come before any HIP header"
#endif
#define HIP_INCLUDE_HIP_HIP_RUNTIME_API_H  // HIP 5.x's include guard of hip_runtime_api.h

typedef struct ihipStream_t* hipStream_t;  // as in AMD's hip_runtime_api.h

#include "blas_api.h"
