// matmul through cuBLASLt: c = alpha * op(a) * op(b) + beta * c, 2-D or 3-D batched
// (batch 1 broadcasts through a zero batch stride).
//
// opkit's matrices are row-major; cuBLASLt's are column-major. A row-major [r, c] matrix
// with row stride ld is the column-major [c, r] matrix with the same ld, so computing
// c^T = op(b)^T * op(a)^T column-major writes exactly row-major c: cuBLASLt's "A" is b,
// its "B" is a, and m/n swap. All dtypes compute in fp32 (CUBLAS_COMPUTE_32F; no TF32
// for f32, so results match the CPU reference at fp32 precision).
//
// Per device: one cuBLASLt handle and a cache of plans (descriptors + heuristic algo)
// keyed by everything the heuristic depends on, pointer alignment included.
#include "cublaslt.h"
#include "ops_common.h"

#include <cstring>
#include <map>
#include <array>
#include <vector>

namespace opkit_cuda {

namespace {

constexpr size_t kMaxWorkspace = size_t(32) << 20;

// Everything the plan depends on: dtype, transposes, shapes, strides, batch, alignment.
using Key = std::array<int64_t, 18>;

struct Plan {
    cublasLtMatmulDesc_t desc = nullptr;
    cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
    cublasLtMatmulAlgo_t algo{};
    size_t workspace = 0;
};

}  // namespace

struct MatmulState {
    cublasLtHandle_t handle = nullptr;
    std::mutex mu;
    std::map<Key, Plan> plans;
};

namespace {

void destroy_plan(const CublasLt& lt, Plan& p) {
    if (p.la) lt.cublasLtMatrixLayoutDestroy(p.la);
    if (p.lb) lt.cublasLtMatrixLayoutDestroy(p.lb);
    if (p.lc) lt.cublasLtMatrixLayoutDestroy(p.lc);
    if (p.desc) lt.cublasLtMatmulDescDestroy(p.desc);
    p = Plan{};
}

opkit_status lt_fail(cublasStatus_t s, const char* what) {
    const std::string t = lt_error_text(s);
    return fail(OPKIT_ERROR_DEVICE, "matmul: %s failed: %s", what, t.c_str());
}

#define OPKIT_LT_TRY(call)                                                \
    do {                                                                  \
        const cublasStatus_t lt_s_ = (call);                              \
        if (lt_s_ != CUBLAS_STATUS_SUCCESS) return lt_fail(lt_s_, #call); \
    } while (0)

// The largest power of two (up to 256) dividing the address and every byte stride.
int alignment(const void* p, std::initializer_list<int64_t> byte_strides) {
    uint64_t bits = uint64_t(reinterpret_cast<uintptr_t>(p)) | 256u;
    for (int64_t s : byte_strides) bits |= uint64_t(s) | 256u;
    return int(bits & (~bits + 1));
}

// One matrix of the call: its layout in cuBLASLt's column-major terms.
struct Operand {
    int64_t rows, cols, ld, batch_stride;  // column-major rows/cols of the stored matrix
    int align;
};

// a 2-D or 3-D row-major tensor stored [.., r, c]: column-major [c, r], ld = row stride.
Operand operand(const opkit_tensor* t, int64_t batch, size_t es) {
    const int nd = t->ndim;
    const int64_t r = t->shape[nd - 2], c = t->shape[nd - 1];
    Operand o;
    o.rows = c;
    o.cols = r;
    o.ld = std::max<int64_t>(r > 1 ? stride_of(t, nd - 2) : c, std::max<int64_t>(c, 1));
    const bool batched = nd == 3 && t->shape[0] > 1 && batch > 1;
    o.batch_stride = batched ? stride_of(t, 0) : 0;
    o.align = alignment(base_of(t), {o.ld * int64_t(es), o.batch_stride * int64_t(es)});
    return o;
}

opkit_status make_layout(const CublasLt& lt, cublasLtMatrixLayout_t* out, cudaDataType type, const Operand& o,
                         int32_t batch) {
    OPKIT_LT_TRY(lt.cublasLtMatrixLayoutCreate(out, type, uint64_t(o.rows), uint64_t(o.cols), o.ld));
    if (batch > 1) {
        OPKIT_LT_TRY(lt.cublasLtMatrixLayoutSetAttribute(*out, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof batch));
        const int64_t stride = o.batch_stride;
        OPKIT_LT_TRY(lt.cublasLtMatrixLayoutSetAttribute(*out, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride,
                                                         sizeof stride));
    }
    return OPKIT_OK;
}

opkit_status build_plan(const CublasLt& lt, cublasLtHandle_t handle, cudaDataType type, bool ta, bool tb,
                        const Operand& A, const Operand& B, const Operand& C, int32_t batch, Plan* plan) {
    Plan p;
    struct Cleanup {  // frees a half-built plan on any early return
        const CublasLt& lt;
        Plan& p;
        bool keep = false;
        ~Cleanup() {
            if (!keep) destroy_plan(lt, p);
        }
    } cleanup{lt, p};
    OPKIT_LT_TRY(lt.cublasLtMatmulDescCreate(&p.desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    const cublasOperation_t opa = ta ? CUBLAS_OP_T : CUBLAS_OP_N, opb = tb ? CUBLAS_OP_T : CUBLAS_OP_N;
    OPKIT_LT_TRY(lt.cublasLtMatmulDescSetAttribute(p.desc, CUBLASLT_MATMUL_DESC_TRANSA, &opa, sizeof opa));
    OPKIT_LT_TRY(lt.cublasLtMatmulDescSetAttribute(p.desc, CUBLASLT_MATMUL_DESC_TRANSB, &opb, sizeof opb));
    OPKIT_CUDA_TRY(make_layout(lt, &p.la, type, A, batch));
    OPKIT_CUDA_TRY(make_layout(lt, &p.lb, type, B, batch));
    OPKIT_CUDA_TRY(make_layout(lt, &p.lc, type, C, batch));

    cublasLtMatmulPreference_t pref = nullptr;
    OPKIT_LT_TRY(lt.cublasLtMatmulPreferenceCreate(&pref));
    struct PrefCleanup {
        const CublasLt& lt;
        cublasLtMatmulPreference_t p;
        ~PrefCleanup() { lt.cublasLtMatmulPreferenceDestroy(p); }
    } pref_cleanup{lt, pref};
    const uint64_t ws = kMaxWorkspace;
    OPKIT_LT_TRY(lt.cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));
    const uint32_t al[4] = {uint32_t(A.align), uint32_t(B.align), uint32_t(C.align), uint32_t(C.align)};
    const cublasLtMatmulPreferenceAttributes_t which[4] = {
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES};
    for (int i = 0; i < 4; ++i)
        OPKIT_LT_TRY(lt.cublasLtMatmulPreferenceSetAttribute(pref, which[i], &al[i], sizeof al[i]));
    cublasLtMatmulHeuristicResult_t result{};
    int found = 0;
    OPKIT_LT_TRY(lt.cublasLtMatmulAlgoGetHeuristic(handle, p.desc, p.la, p.lb, p.lc, p.lc, pref, 1, &result, &found));
    if (found < 1)
        return fail(OPKIT_ERROR_UNSUPPORTED, "matmul: cuBLASLt has no algorithm for this shape, layout and alignment");
    p.algo = result.algo;
    p.workspace = result.workspaceSize;
    cleanup.keep = true;
    *plan = p;
    return OPKIT_OK;
}

const char* const kScale[2][3] = OPK_EW_NAMES("opk_scale");
const char* const kZero[2][3] = OPK_EW_NAMES("opk_zero");

opkit_status matmul(const opkit_tensor* a, const opkit_tensor* b, opkit_tensor* c, float alpha, float beta,
                    int32_t trans_a, int32_t trans_b, opkit_stream stream) {
    const char* op = "matmul";
    int type;
    OPKIT_CUDA_TRY(need_float(op, c, &type));
    OPKIT_CUDA_TRY(check_element_aligned(op, "a", a));
    OPKIT_CUDA_TRY(check_element_aligned(op, "b", b));
    OPKIT_CUDA_TRY(check_element_aligned(op, "c", c));
    const int nd = c->ndim;
    const int64_t M = c->shape[nd - 2], N = c->shape[nd - 1];
    const int64_t K = trans_a ? a->shape[a->ndim - 2] : a->shape[a->ndim - 1];
    const int64_t batch = nd == 3 ? c->shape[0] : 1;
    if (M == 0 || N == 0 || batch == 0) return OPKIT_OK;
    if (K == 0)  // no products: c = beta * c (and beta == 0 never reads c)
        return run_elementwise(op, beta == 0.0f ? kZero : kScale, {c, c}, beta, stream);
    for (const opkit_tensor* t : {a, b, static_cast<const opkit_tensor*>(c)})
        if (t->shape[t->ndim - 2] > 1 && stride_of(t, t->ndim - 2) < t->shape[t->ndim - 1])
            return fail(OPKIT_ERROR_UNSUPPORTED,
                        "matmul: a matrix whose rows overlap (row stride %lld < %lld columns) cannot be passed "
                        "to cuBLASLt",
                        static_cast<long long>(stride_of(t, t->ndim - 2)),
                        static_cast<long long>(t->shape[t->ndim - 1]));
    if (batch > INT32_MAX)
        return fail(OPKIT_ERROR_UNSUPPORTED, "matmul: a batch of %lld exceeds cuBLASLt's int32 batch count",
                    static_cast<long long>(batch));
    std::string why;
    const CublasLt* lt = cublaslt(&why);
    if (!lt) return fail(OPKIT_ERROR_UNSUPPORTED, "matmul: %s; the cuda vendor declines matmul", why.c_str());

    DeviceScope scope;
    OPKIT_CUDA_TRY(scope.enter(c->device.device_id));
    Device& d = scope.dev();
    const size_t es = element_size(c);
    const Operand A = operand(b, batch, es), B = operand(a, batch, es), C = operand(c, batch, es);
    static const cudaDataType kTypes[3] = {CUDA_R_32F, CUDA_R_16F, CUDA_R_16BF};
    const Key key{type,         trans_b,        trans_a,        A.rows,  A.cols,  A.ld,
                  B.rows,       B.cols,         B.ld,           C.ld,    batch,   A.batch_stride,
                  B.batch_stride, C.batch_stride, A.align,      B.align, C.align, 0};
    Plan plan;
    {
        std::lock_guard<std::mutex> lock(d.mu);
        if (!d.matmul) d.matmul = new MatmulState;
    }
    MatmulState& st = *d.matmul;
    {
        std::lock_guard<std::mutex> lock(st.mu);
        if (!st.handle) {
            const cublasStatus_t s = lt->cublasLtCreate(&st.handle);
            if (s != CUBLAS_STATUS_SUCCESS) {
                st.handle = nullptr;
                return lt_fail(s, "cublasLtCreate");
            }
        }
        auto it = st.plans.find(key);
        if (it == st.plans.end()) {
            Plan p;
            OPKIT_CUDA_TRY(build_plan(*lt, st.handle, kTypes[type], trans_b != 0, trans_a != 0, A, B, C,
                                      int32_t(batch), &p));
            it = st.plans.emplace(key, p).first;
        }
        plan = it->second;
    }
    const CUstream s = as_stream(stream);
    Scratch scratch(d, s);
    void* workspace = nullptr;
    if (plan.workspace) OPKIT_CUDA_TRY(scratch.alloc(plan.workspace, &workspace));
    // cuBLASLt does not read C when beta is 0 (BLAS semantics): NaN there stays out.
    OPKIT_LT_TRY(lt->cublasLtMatmul(st.handle, plan.desc, &alpha, base_of(b), plan.la, base_of(a), plan.lb, &beta,
                                    base_of(c), plan.lc, base_of(c), plan.lc, &plan.algo, workspace, plan.workspace,
                                    reinterpret_cast<cudaStream_t>(s)));
    return OPKIT_OK;
}

}  // namespace

// Called at shutdown with the device's context current.
void matmul_release(Device& d) {
    if (!d.matmul) return;
    std::string why;
    if (const CublasLt* lt = cublaslt(&why)) {
        for (auto& kv : d.matmul->plans) destroy_plan(*lt, kv.second);
        if (d.matmul->handle) lt->cublasLtDestroy(d.matmul->handle);
    }
    delete d.matmul;
    d.matmul = nullptr;
}

}  // namespace opkit_cuda

extern "C" OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_matmul(const opkit_tensor* a, const opkit_tensor* b,
                                                                opkit_tensor* c, float alpha, float beta,
                                                                int32_t trans_a, int32_t trans_b, opkit_stream stream) {
    return opkit_cuda::guarded("matmul", [&] {
        return opkit_cuda::matmul(a, b, c, alpha, beta, trans_a, trans_b, stream);
    });
}
