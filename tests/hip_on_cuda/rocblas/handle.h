// HIP-over-CUDA test runtime (librocblas.so.4): the handle and the status codes.
//
// vendors/rocm/blas_api.h declares only rocblas_status_success (the vendor tests for
// success and prints rocblas_status_to_string otherwise); the shim needs the others,
// declared here in its own words with rocBLAS's numbers (rocblas-types.h).
#pragma once

#include "shim_blas_api.h"
#include "declare.h"

#include <cublasLt.h>

#include <cstdint>

namespace hipshim_rb {

namespace rb = opkit_rocm::rb;

enum : int32_t {
    kSuccess = 0,
    kInvalidHandle = 1,
    kNotImplemented = 2,
    kInvalidPointer = 3,
    kInvalidSize = 4,
    kMemoryError = 5,
    kInternalError = 6,
    kPerfDegraded = 7,
    kSizeQueryMismatch = 8,
    kSizeIncreased = 9,
    kSizeUnchanged = 10,
    kInvalidValue = 11,
    kContinue = 12,
    kCheckNumericsFail = 13,
    kExcludedFromBuild = 14,
    kArchMismatch = 15,
};

inline rb::Status status(int32_t s) noexcept { return rb::Status(s); }

// A rocblas_handle: a tag (so a foreign pointer is rocblas_status_invalid_handle, not a
// crash), the cuBLASLt handle that does the work, and the stream rocblas_set_stream gave.
struct Handle {
    static constexpr uint32_t kTag = 0x52424831u;  // "RBH1"
    uint32_t tag = kTag;
    cublasLtHandle_t lt = nullptr;
    hipStream_t stream = nullptr;  // NULL = the null stream, as in rocBLAS
};

inline Handle* as_handle(rb::Handle h) noexcept {
    Handle* p = static_cast<Handle*>(h);
    return p && p->tag == Handle::kTag ? p : nullptr;
}

// cublasStatus_t -> rocblas_status.
rb::Status from_cu(cublasStatus_t s) noexcept;

}  // namespace hipshim_rb
