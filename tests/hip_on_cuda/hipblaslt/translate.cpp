// HIP-over-CUDA test runtime (libhipblaslt.so.0): value translation (see translate.h).
// What it cannot prove: that hipBLASLt accepts every combination cuBLASLt does (e.g.
// f16/bf16 on gfx908 or gfx1030, where it may have no kernels at all).
#include "translate.h"

#include <cstdint>
#include <cstring>

namespace hipshim_lt {
namespace {

template <class T>
lt::Status read_exact(const void* value, size_t size, T* out) noexcept {
    if (!value || size != sizeof(T)) return lt::STATUS_INVALID_VALUE;
    std::memcpy(out, value, sizeof(T));
    return lt::STATUS_SUCCESS;
}

template <class T>
void put(CuAttribute* out, int attribute, T v) noexcept {
    out->attribute = attribute;
    std::memcpy(out->value, &v, sizeof(T));
    out->size = sizeof(T);
}

lt::Status to_cu(int32_t hip_op, int32_t* out) noexcept {
    switch (hip_op) {
        case lt::OP_N: *out = CUBLAS_OP_N; return lt::STATUS_SUCCESS;
        case lt::OP_T: *out = CUBLAS_OP_T; return lt::STATUS_SUCCESS;
        default: return lt::STATUS_INVALID_ENUM;  // includes CUBLAS_OP_N (0) / CUBLAS_OP_T (1)
    }
}

}  // namespace

lt::Status to_cu(lt::DataType t, cudaDataType_t* out) noexcept {
    switch (t) {
        case lt::R_32F: *out = CUDA_R_32F; return lt::STATUS_SUCCESS;
        case lt::R_16F: *out = CUDA_R_16F; return lt::STATUS_SUCCESS;
        case lt::R_16BF: *out = CUDA_R_16BF; return lt::STATUS_SUCCESS;
        default: return lt::STATUS_INVALID_ENUM;
    }
}

lt::Status to_cu(lt::ComputeType t, cublasComputeType_t* out) noexcept {
    switch (t) {
        case lt::COMPUTE_32F: *out = CUBLAS_COMPUTE_32F; return lt::STATUS_SUCCESS;
        default: return lt::STATUS_INVALID_ENUM;  // includes CUBLAS_COMPUTE_32F (68)
    }
}

lt::Status to_cu(lt::DescAttribute a, const void* value, size_t size, CuAttribute* out) noexcept {
    int attribute = 0;
    switch (a) {
        case lt::DESC_TRANSA: attribute = CUBLASLT_MATMUL_DESC_TRANSA; break;
        case lt::DESC_TRANSB: attribute = CUBLASLT_MATMUL_DESC_TRANSB; break;
        default: return lt::STATUS_INVALID_ENUM;  // includes cuBLASLt's TRANSA (3) / TRANSB (4)
    }
    int32_t hip_op = 0;
    int32_t cu_op = 0;
    if (lt::Status s = read_exact(value, size, &hip_op)) return s;
    if (lt::Status s = to_cu(hip_op, &cu_op)) return s;
    put(out, attribute, cu_op);
    return lt::STATUS_SUCCESS;
}

lt::Status to_cu(lt::LayoutAttribute a, const void* value, size_t size, CuAttribute* out) noexcept {
    switch (a) {
        case lt::LAYOUT_BATCH_COUNT: {
            int32_t count = 0;
            if (lt::Status s = read_exact(value, size, &count)) return s;
            if (count < 1) return lt::STATUS_INVALID_VALUE;
            put(out, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, count);
            return lt::STATUS_SUCCESS;
        }
        case lt::LAYOUT_STRIDED_BATCH_OFFSET: {
            int64_t stride = 0;
            if (lt::Status s = read_exact(value, size, &stride)) return s;
            put(out, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, stride);
            return lt::STATUS_SUCCESS;
        }
        default:
            return lt::STATUS_INVALID_ENUM;  // includes cuBLASLt's BATCH_COUNT (5) / STRIDE (6)
    }
}

lt::Status to_cu(lt::PreferenceAttribute a, const void* value, size_t size, CuAttribute* out) noexcept {
    switch (a) {
        case lt::PREF_SEARCH_MODE: {
            // Only "best fit" (0, the default on both sides) is in the declared subset.
            uint32_t mode = 0;
            if (lt::Status s = read_exact(value, size, &mode)) return s;
            if (mode != 0) return lt::STATUS_INVALID_VALUE;
            put(out, CUBLASLT_MATMUL_PREF_SEARCH_MODE, uint32_t(CUBLASLT_SEARCH_BEST_FIT));
            return lt::STATUS_SUCCESS;
        }
        case lt::PREF_MAX_WORKSPACE_BYTES: {
            uint64_t bytes = 0;
            if (lt::Status s = read_exact(value, size, &bytes)) return s;
            put(out, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, bytes);
            return lt::STATUS_SUCCESS;
        }
        default:
            // hipBLASLt has no MIN_ALIGNMENT_*_BYTES (cuBLASLt's 5..8): refused.
            return lt::STATUS_INVALID_ENUM;
    }
}

lt::Status from_cu(cublasStatus_t s) noexcept {
    switch (s) {
        case CUBLAS_STATUS_SUCCESS: return lt::STATUS_SUCCESS;
        case CUBLAS_STATUS_NOT_INITIALIZED: return lt::STATUS_NOT_INITIALIZED;
        case CUBLAS_STATUS_ALLOC_FAILED: return lt::STATUS_ALLOC_FAILED;
        case CUBLAS_STATUS_INVALID_VALUE: return lt::STATUS_INVALID_VALUE;
        case CUBLAS_STATUS_ARCH_MISMATCH: return lt::STATUS_ARCH_MISMATCH;
        case CUBLAS_STATUS_MAPPING_ERROR: return lt::STATUS_MAPPING_ERROR;
        case CUBLAS_STATUS_EXECUTION_FAILED: return lt::STATUS_EXECUTION_FAILED;
        case CUBLAS_STATUS_INTERNAL_ERROR: return lt::STATUS_INTERNAL_ERROR;
        case CUBLAS_STATUS_NOT_SUPPORTED: return lt::STATUS_NOT_SUPPORTED;
        default: return lt::STATUS_UNKNOWN;  // CUBLAS_STATUS_LICENSE_ERROR and anything newer
    }
}

}  // namespace hipshim_lt
