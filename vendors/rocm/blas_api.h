// The subsets of hipBLASLt and rocBLAS that matmul uses, declared here in opkit's own
// words: neither library nor its headers are in Debian, and both are dlopen'ed, so only
// their ABI matters — function signatures, enum values and two struct layouts. Checked
// against ROCm/hipBLASLt library/include/hipblaslt.h, hipblas-common's
// hipblas-common.h and rocBLAS's rocblas-types.h / rocblas-functions.h (see
// ../shared/reference/rocm.md §6 and docs/rocm-vendor.md). Most hipBLASLt values differ
// from cuBLASLt's; none may be copied from the CUDA side.
//
// This file is also what the test hipBLASLt/rocBLAS over cuBLASLt (tests/hip_on_cuda)
// implements.
#pragma once

#include <hip/hip_runtime_api.h>  // hipStream_t

#include <cstddef>
#include <cstdint>

namespace opkit_rocm {
namespace lt {  // hipBLASLt (libhipblaslt.so.0 in ROCm 6, .so.1 in ROCm 7)

enum Status : int32_t {  // hipblasStatus_t (hipblas-common)
    STATUS_SUCCESS = 0,
    STATUS_NOT_INITIALIZED = 1,
    STATUS_ALLOC_FAILED = 2,
    STATUS_INVALID_VALUE = 3,
    STATUS_MAPPING_ERROR = 4,
    STATUS_EXECUTION_FAILED = 5,
    STATUS_INTERNAL_ERROR = 6,
    STATUS_NOT_SUPPORTED = 7,
    STATUS_ARCH_MISMATCH = 8,
    STATUS_HANDLE_IS_NULLPTR = 9,
    STATUS_INVALID_ENUM = 10,
    STATUS_UNKNOWN = 11,
};
enum DataType : int32_t { R_32F = 0, R_16F = 2, R_16BF = 14 };        // hipDataType
enum ComputeType : int32_t { COMPUTE_32F = 2 };                       // hipblasComputeType_t
enum Operation : int32_t { OP_N = 111, OP_T = 112 };                  // hipblasOperation_t
enum DescAttribute : int32_t { DESC_TRANSA = 0, DESC_TRANSB = 1 };    // hipblasLtMatmulDescAttributes_t
enum LayoutAttribute : int32_t { LAYOUT_BATCH_COUNT = 0, LAYOUT_STRIDED_BATCH_OFFSET = 1 };
// hipBLASLt has no MIN_ALIGNMENT preferences (cuBLASLt's 5..8): the caller checks alignment.
enum PreferenceAttribute : int32_t { PREF_SEARCH_MODE = 0, PREF_MAX_WORKSPACE_BYTES = 1 };

using Handle = void*;          // hipblasLtHandle_t
using MatmulDesc = void*;      // hipblasLtMatmulDesc_t (pointer to an opaque struct)
using MatrixLayout = void*;    // hipblasLtMatrixLayout_t
using Preference = void*;      // hipblasLtMatmulPreference_t

struct Algo {  // hipblasLtMatmulAlgo_t: 16 opaque bytes, then the workspace bound
    uint8_t data[16];
    size_t max_workspace_bytes;
};
struct HeuristicResult {  // hipblasLtMatmulHeuristicResult_t
    Algo algo;
    size_t workspaceSize;
    Status state;
    float wavesCount;
    int reserved[4];
};
static_assert(sizeof(Algo) == 24 && sizeof(HeuristicResult) == 56, "hipBLASLt layouts (x86-64)");

#define OPKIT_HIPBLASLT_FUNCTIONS(X)                                                                      \
    X(hipblasLtCreate, Status (*)(Handle*))                                                               \
    X(hipblasLtDestroy, Status (*)(Handle))                                                               \
    X(hipblasLtMatmulDescCreate, Status (*)(MatmulDesc*, ComputeType, DataType))                          \
    X(hipblasLtMatmulDescDestroy, Status (*)(MatmulDesc))                                                 \
    X(hipblasLtMatmulDescSetAttribute, Status (*)(MatmulDesc, DescAttribute, const void*, size_t))        \
    X(hipblasLtMatrixLayoutCreate, Status (*)(MatrixLayout*, DataType, uint64_t, uint64_t, int64_t))      \
    X(hipblasLtMatrixLayoutDestroy, Status (*)(MatrixLayout))                                             \
    X(hipblasLtMatrixLayoutSetAttribute, Status (*)(MatrixLayout, LayoutAttribute, const void*, size_t))  \
    X(hipblasLtMatmulPreferenceCreate, Status (*)(Preference*))                                           \
    X(hipblasLtMatmulPreferenceDestroy, Status (*)(Preference))                                           \
    X(hipblasLtMatmulPreferenceSetAttribute, Status (*)(Preference, PreferenceAttribute, const void*, size_t)) \
    X(hipblasLtMatmulAlgoGetHeuristic, Status (*)(Handle, MatmulDesc, MatrixLayout, MatrixLayout,         \
                                                  MatrixLayout, MatrixLayout, Preference, int,             \
                                                  HeuristicResult*, int*))                                 \
    X(hipblasLtMatmul, Status (*)(Handle, MatmulDesc, const void* alpha, const void* a, MatrixLayout,      \
                                  const void* b, MatrixLayout, const void* beta, const void* c,            \
                                  MatrixLayout, void* d, MatrixLayout, const Algo*, void* workspace,       \
                                  size_t workspace_bytes, hipStream_t))

// lt::<function>_fn: each entry point's pointer type.
#define OPKIT_HIPBLASLT_TYPEDEF(name, type) using name##_fn = type;
OPKIT_HIPBLASLT_FUNCTIONS(OPKIT_HIPBLASLT_TYPEDEF)
#undef OPKIT_HIPBLASLT_TYPEDEF

}  // namespace lt

namespace rb {  // rocBLAS (librocblas.so.4 in ROCm 6, .so.5 in ROCm 7)

enum Status : int32_t { STATUS_SUCCESS = 0 };                               // rocblas_status
enum Operation : int32_t { OP_N = 111, OP_T = 112 };                        // rocblas_operation
enum DataType : int32_t { R_16F = 150, R_32F = 151, R_16BF = 168 };         // rocblas_datatype
enum GemmAlgo : int32_t { ALGO_STANDARD = 0 };                              // rocblas_gemm_algo

using Handle = void*;  // rocblas_handle

#define OPKIT_ROCBLAS_FUNCTIONS(X)                                                                      \
    X(rocblas_create_handle, Status (*)(Handle*))                                                       \
    X(rocblas_destroy_handle, Status (*)(Handle))                                                       \
    X(rocblas_set_stream, Status (*)(Handle, hipStream_t))                                              \
    X(rocblas_status_to_string, const char* (*)(Status))                                                \
    X(rocblas_gemm_strided_batched_ex,                                                                  \
      Status (*)(Handle, Operation trans_a, Operation trans_b, int32_t m, int32_t n, int32_t k,         \
                 const void* alpha, const void* a, DataType a_type, int32_t lda, int64_t stride_a,      \
                 const void* b, DataType b_type, int32_t ldb, int64_t stride_b, const void* beta,       \
                 const void* c, DataType c_type, int32_t ldc, int64_t stride_c, void* d,                \
                 DataType d_type, int32_t ldd, int64_t stride_d, int32_t batch_count,                   \
                 DataType compute_type, GemmAlgo algo, int32_t solution_index, uint32_t flags))

// rb::<function>_fn: each entry point's pointer type.
#define OPKIT_ROCBLAS_TYPEDEF(name, type) using name##_fn = type;
OPKIT_ROCBLAS_FUNCTIONS(OPKIT_ROCBLAS_TYPEDEF)
#undef OPKIT_ROCBLAS_TYPEDEF

}  // namespace rb
}  // namespace opkit_rocm
