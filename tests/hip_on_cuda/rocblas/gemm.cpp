// HIP-over-CUDA test runtime (librocblas.so.4): rocblas_gemm_strided_batched_ex on
// cuBLASLt.
//
// Column-major D[i] = alpha * op(A[i]) * op(B[i]) + beta * C[i] for i < batch_count,
// alpha and beta host floats (rocBLAS's default pointer mode), on the handle's stream.
// Translated: rocblas_operation 111/112 -> CUBLAS_OP_N/T, rocblas_datatype 150/151/168
// -> CUDA_R_16F/32F/16BF, compute f32 -> CUBLAS_COMPUTE_32F. Strict like the hipBLASLt
// shim: a value outside blas_api.h's subset (a cuBLAS number, conjugate transpose, an
// algo, solution index or flag other than the defaults) is rocblas_status_invalid_value;
// a combination of known types rocBLAS's ex API does not compute with f32 (A and B of
// different types, C unlike D, C neither A's type nor f32) is
// rocblas_status_not_implemented. Sizes are checked as rocBLAS does (invalid_size), and
// an empty problem (m, n or batch_count 0) returns success without touching memory.
//
// Each call builds its cuBLASLt descriptors and runs the heuristic with no workspace
// (rocBLAS manages its own device memory; the shim has none): slower than a cached plan,
// irrelevant to what the tests check.
//
// What this cannot prove: rocBLAS's results on AMD hardware (its f16/bf16 accumulation,
// Tensile's kernel choice per gfx target) or its speed.
#include "cublaslt.h"
#include "handle.h"

#include <algorithm>
#include <cstdint>
#include <new>

namespace rb = opkit_rocm::rb;
using hipshim_rb::status;

namespace {

bool to_cu(rb::Operation op, cublasOperation_t* out) noexcept {
    switch (op) {
        case rb::OP_N: *out = CUBLAS_OP_N; return true;
        case rb::OP_T: *out = CUBLAS_OP_T; return true;
        default: return false;  // includes rocblas_operation_conjugate_transpose (113)
    }
}

bool to_cu(rb::DataType t, cudaDataType_t* out) noexcept {
    switch (t) {
        case rb::R_16F: *out = CUDA_R_16F; return true;
        case rb::R_32F: *out = CUDA_R_32F; return true;
        case rb::R_16BF: *out = CUDA_R_16BF; return true;
        default: return false;
    }
}

// The cuBLASLt objects of one call, destroyed on every path.
struct Plan {
    const hipshim_blas::CublasLt& cu;
    cublasLtMatmulDesc_t desc = nullptr;
    cublasLtMatrixLayout_t layout[4] = {};  // A, B, C, D
    cublasLtMatmulPreference_t pref = nullptr;
    explicit Plan(const hipshim_blas::CublasLt& lt) : cu(lt) {}
    ~Plan() {
        if (pref) cu.cublasLtMatmulPreferenceDestroy(pref);
        for (cublasLtMatrixLayout_t l : layout)
            if (l) cu.cublasLtMatrixLayoutDestroy(l);
        if (desc) cu.cublasLtMatmulDescDestroy(desc);
    }
    Plan(const Plan&) = delete;
    Plan& operator=(const Plan&) = delete;
};

cublasStatus_t make_layout(const hipshim_blas::CublasLt& cu, cublasLtMatrixLayout_t* l, cudaDataType_t type,
                           int64_t rows, int64_t cols, int64_t ld, int32_t batch, int64_t stride) {
    if (cublasStatus_t s = cu.cublasLtMatrixLayoutCreate(l, type, uint64_t(rows), uint64_t(cols), ld)) return s;
    if (cublasStatus_t s = cu.cublasLtMatrixLayoutSetAttribute(*l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch,
                                                               sizeof batch))
        return s;
    return cu.cublasLtMatrixLayoutSetAttribute(*l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride,
                                               sizeof stride);
}

}  // namespace

extern "C" rb::Status rocblas_gemm_strided_batched_ex(
    rb::Handle handle, rb::Operation trans_a, rb::Operation trans_b, int32_t m, int32_t n, int32_t k,
    const void* alpha, const void* a, rb::DataType a_type, int32_t lda, int64_t stride_a, const void* b,
    rb::DataType b_type, int32_t ldb, int64_t stride_b, const void* beta, const void* c, rb::DataType c_type,
    int32_t ldc, int64_t stride_c, void* d, rb::DataType d_type, int32_t ldd, int64_t stride_d,
    int32_t batch_count, rb::DataType compute_type, rb::GemmAlgo algo, int32_t solution_index, uint32_t flags) {
    try {
        hipshim_rb::Handle* h = hipshim_rb::as_handle(handle);
        if (!h) return status(hipshim_rb::kInvalidHandle);

        // Values outside the declared subset.
        cublasOperation_t op_a{}, op_b{};
        cudaDataType_t ta{}, tb{}, tc{}, td{}, tcompute{};
        if (!to_cu(trans_a, &op_a) || !to_cu(trans_b, &op_b)) return status(hipshim_rb::kInvalidValue);
        if (!to_cu(a_type, &ta) || !to_cu(b_type, &tb) || !to_cu(c_type, &tc) || !to_cu(d_type, &td) ||
            !to_cu(compute_type, &tcompute))
            return status(hipshim_rb::kInvalidValue);
        if (algo != rb::ALGO_STANDARD || solution_index != 0 || flags != 0) return status(hipshim_rb::kInvalidValue);

        // Known types, unsupported combination.
        if (a_type != b_type || c_type != d_type || compute_type != rb::R_32F ||
            (c_type != a_type && c_type != rb::R_32F))
            return status(hipshim_rb::kNotImplemented);

        // Sizes, as rocBLAS checks them.
        const int64_t a_rows = op_a == CUBLAS_OP_N ? m : k, a_cols = op_a == CUBLAS_OP_N ? k : m;
        const int64_t b_rows = op_b == CUBLAS_OP_N ? k : n, b_cols = op_b == CUBLAS_OP_N ? n : k;
        if (m < 0 || n < 0 || k < 0 || batch_count < 0) return status(hipshim_rb::kInvalidSize);
        if (lda < std::max<int64_t>(1, a_rows) || ldb < std::max<int64_t>(1, b_rows) ||
            ldc < std::max<int32_t>(1, m) || ldd < std::max<int32_t>(1, m))
            return status(hipshim_rb::kInvalidSize);
        if (c == d && (ldc != ldd || stride_c != stride_d)) return status(hipshim_rb::kInvalidSize);
        if (m == 0 || n == 0 || batch_count == 0) return status(hipshim_rb::kSuccess);
        if (!alpha || !beta || !c || !d || (k > 0 && (!a || !b))) return status(hipshim_rb::kInvalidPointer);

        const hipshim_blas::CublasLt* cu = hipshim_blas::cublaslt();
        if (!cu) return status(hipshim_rb::kInternalError);
        Plan p(*cu);
        if (cublasStatus_t s = cu->cublasLtMatmulDescCreate(&p.desc, CUBLAS_COMPUTE_32F, CUDA_R_32F))
            return hipshim_rb::from_cu(s);
        if (cublasStatus_t s = cu->cublasLtMatmulDescSetAttribute(p.desc, CUBLASLT_MATMUL_DESC_TRANSA, &op_a,
                                                                  sizeof op_a))
            return hipshim_rb::from_cu(s);
        if (cublasStatus_t s = cu->cublasLtMatmulDescSetAttribute(p.desc, CUBLASLT_MATMUL_DESC_TRANSB, &op_b,
                                                                  sizeof op_b))
            return hipshim_rb::from_cu(s);
        if (cublasStatus_t s = make_layout(*cu, &p.layout[0], ta, a_rows, a_cols, lda, batch_count, stride_a))
            return hipshim_rb::from_cu(s);
        if (cublasStatus_t s = make_layout(*cu, &p.layout[1], tb, b_rows, b_cols, ldb, batch_count, stride_b))
            return hipshim_rb::from_cu(s);
        if (cublasStatus_t s = make_layout(*cu, &p.layout[2], tc, m, n, ldc, batch_count, stride_c))
            return hipshim_rb::from_cu(s);
        if (cublasStatus_t s = make_layout(*cu, &p.layout[3], td, m, n, ldd, batch_count, stride_d))
            return hipshim_rb::from_cu(s);
        if (cublasStatus_t s = cu->cublasLtMatmulPreferenceCreate(&p.pref)) return hipshim_rb::from_cu(s);
        const uint64_t no_workspace = 0;
        if (cublasStatus_t s = cu->cublasLtMatmulPreferenceSetAttribute(
                p.pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &no_workspace, sizeof no_workspace))
            return hipshim_rb::from_cu(s);
        cublasLtMatmulHeuristicResult_t best{};
        int found = 0;
        if (cublasStatus_t s = cu->cublasLtMatmulAlgoGetHeuristic(h->lt, p.desc, p.layout[0], p.layout[1],
                                                                  p.layout[2], p.layout[3], p.pref, 1, &best,
                                                                  &found))
            return hipshim_rb::from_cu(s);
        if (found < 1) return status(hipshim_rb::kNotImplemented);
        return hipshim_rb::from_cu(cu->cublasLtMatmul(h->lt, p.desc, alpha, a, p.layout[0], b, p.layout[1], beta,
                                                      c, p.layout[2], d, p.layout[3], &best.algo, nullptr, 0,
                                                      reinterpret_cast<cudaStream_t>(h->stream)));
    } catch (const std::bad_alloc&) {
        return status(hipshim_rb::kMemoryError);
    } catch (...) {
        return status(hipshim_rb::kInternalError);
    }
}
