// HIP-over-CUDA test runtime: librocblas.so.4, the rocBLAS subset the rocm vendor calls
// (vendors/rocm/blas_api.h, namespace rb) — handles, the stream, status strings here;
// the one GEMM in gemm.cpp. Implemented on cuBLASLt (dlopen'ed, blas/cublaslt.h).
//
// Without cuBLASLt, or without a driver, rocblas_create_handle fails
// (rocblas_status_internal_error), so the vendor declines matmul cleanly.
//
// What this cannot prove: rocBLAS/Tensile's kernels for a gfx target, their numerics or
// speed, or rocBLAS's device-memory (workspace) management.
#include "cublaslt.h"
#include "handle.h"

#include <new>

namespace rb = opkit_rocm::rb;
using hipshim_rb::status;

namespace hipshim_rb {

rb::Status from_cu(cublasStatus_t s) noexcept {
    switch (s) {
        case CUBLAS_STATUS_SUCCESS: return status(kSuccess);
        case CUBLAS_STATUS_ALLOC_FAILED: return status(kMemoryError);
        case CUBLAS_STATUS_INVALID_VALUE: return status(kInvalidValue);
        case CUBLAS_STATUS_ARCH_MISMATCH: return status(kArchMismatch);
        case CUBLAS_STATUS_NOT_SUPPORTED: return status(kNotImplemented);
        default: return status(kInternalError);  // not initialized (no driver), execution, ...
    }
}

}  // namespace hipshim_rb

extern "C" {

rb::Status rocblas_create_handle(rb::Handle* handle) {
    try {
        if (!handle) return status(hipshim_rb::kInvalidHandle);
        const hipshim_blas::CublasLt* cu = hipshim_blas::cublaslt();
        if (!cu) return status(hipshim_rb::kInternalError);
        hipshim_rb::Handle* h = new hipshim_rb::Handle;
        if (cublasStatus_t s = cu->cublasLtCreate(&h->lt)) {
            delete h;
            return hipshim_rb::from_cu(s);
        }
        *handle = h;
        return status(hipshim_rb::kSuccess);
    } catch (const std::bad_alloc&) {
        return status(hipshim_rb::kMemoryError);
    } catch (...) {
        return status(hipshim_rb::kInternalError);
    }
}

rb::Status rocblas_destroy_handle(rb::Handle handle) {
    hipshim_rb::Handle* h = hipshim_rb::as_handle(handle);
    if (!h) return status(hipshim_rb::kInvalidHandle);
    const hipshim_blas::CublasLt* cu = hipshim_blas::cublaslt();  // loaded: a handle exists
    const rb::Status s = cu ? hipshim_rb::from_cu(cu->cublasLtDestroy(h->lt)) : status(hipshim_rb::kInternalError);
    h->tag = 0;
    delete h;
    return s;
}

rb::Status rocblas_set_stream(rb::Handle handle, hipStream_t stream) {
    hipshim_rb::Handle* h = hipshim_rb::as_handle(handle);
    if (!h) return status(hipshim_rb::kInvalidHandle);
    h->stream = stream;
    return status(hipshim_rb::kSuccess);
}

const char* rocblas_status_to_string(rb::Status s) {
    switch (int32_t(s)) {
        case hipshim_rb::kSuccess: return "rocblas_status_success";
        case hipshim_rb::kInvalidHandle: return "rocblas_status_invalid_handle";
        case hipshim_rb::kNotImplemented: return "rocblas_status_not_implemented";
        case hipshim_rb::kInvalidPointer: return "rocblas_status_invalid_pointer";
        case hipshim_rb::kInvalidSize: return "rocblas_status_invalid_size";
        case hipshim_rb::kMemoryError: return "rocblas_status_memory_error";
        case hipshim_rb::kInternalError: return "rocblas_status_internal_error";
        case hipshim_rb::kPerfDegraded: return "rocblas_status_perf_degraded";
        case hipshim_rb::kSizeQueryMismatch: return "rocblas_status_size_query_mismatch";
        case hipshim_rb::kSizeIncreased: return "rocblas_status_size_increased";
        case hipshim_rb::kSizeUnchanged: return "rocblas_status_size_unchanged";
        case hipshim_rb::kInvalidValue: return "rocblas_status_invalid_value";
        case hipshim_rb::kContinue: return "rocblas_status_continue";
        case hipshim_rb::kCheckNumericsFail: return "rocblas_status_check_numerics_fail";
        case hipshim_rb::kExcludedFromBuild: return "rocblas_status_excluded_from_build";
        case hipshim_rb::kArchMismatch: return "rocblas_status_arch_mismatch";
        default: return "Unrecognized status code";
    }
}

}  // extern "C"
