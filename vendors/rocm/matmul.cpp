// matmul's BLAS call on AMD (Runtime::blas_matmul). vendors/gpu/host/ops_matmul.cpp has
// already declined what no BLAS takes, run K = 0 itself and mapped opkit's row-major
// tensors to column-major operands (BLAS's "A" is opkit's b). All dtypes compute in fp32.
//
// hipBLASLt first: it is what ROCm's own frameworks use on CDNA2/3. It has no
// minimum-alignment preferences (cuBLASLt's MIN_ALIGNMENT_*), so operands not aligned to
// 16 bytes go to rocBLAS, which takes any element-aligned pointer; so does every call for
// which hipBLASLt's heuristic finds no algorithm (it covers fewer architectures: gfx908
// and RDNA2 often get none). The decision is cached per shape with the plan.
#include "blas.h"
#include "hip_api.h"
#include "gpu/host/device.h"

#include <array>
#include <map>
#include <mutex>

namespace opkit_rocm {
namespace {

using opkit_gpu::BlasMatmul;
using opkit_gpu::BlasOperand;
using opkit_gpu::Device;
using opkit_gpu::fail;

constexpr size_t kMaxWorkspace = size_t(32) << 20;
constexpr int kLtMinAlign = 16;

// Everything a plan depends on; alignment only as "hipBLASLt may take it" (>= 16 B).
using Key = std::array<int64_t, 15>;

struct Plan {
    bool use_rocblas = false;
    lt::MatmulDesc desc = nullptr;
    lt::MatrixLayout la = nullptr, lb = nullptr, lc = nullptr;
    lt::Algo algo{};
    size_t workspace = 0;
};

// Device::blas of a device that ran a matmul.
struct MatmulState {
    std::mutex mu;
    lt::Handle lt_handle = nullptr;
    rb::Handle rb_handle = nullptr;
    std::map<Key, Plan> plans;
};

void destroy_plan(const HipBlasLt& lt, Plan& p) {
    if (p.la) lt.hipblasLtMatrixLayoutDestroy(p.la);
    if (p.lb) lt.hipblasLtMatrixLayoutDestroy(p.lb);
    if (p.lc) lt.hipblasLtMatrixLayoutDestroy(p.lc);
    if (p.desc) lt.hipblasLtMatmulDescDestroy(p.desc);
    p = Plan{};
}

// Device::blas_release: called at shutdown with the device current.
void release(Device& d) {
    auto* st = static_cast<MatmulState*>(d.blas);
    if (!st) return;
    if (const HipBlasLt* lt = hipblaslt()) {
        for (auto& kv : st->plans) destroy_plan(*lt, kv.second);
        if (st->lt_handle) lt->hipblasLtDestroy(st->lt_handle);
    }
    if (const RocBlas* rb = rocblas())
        if (st->rb_handle) rb->rocblas_destroy_handle(st->rb_handle);
    delete st;
    d.blas = nullptr;
}

// hipBLASLt has no status-to-string function: the names of hipblas-common's values.
const char* lt_status_name(lt::Status s) {
    static const char* const names[] = {
        "HIPBLAS_STATUS_SUCCESS",        "HIPBLAS_STATUS_NOT_INITIALIZED", "HIPBLAS_STATUS_ALLOC_FAILED",
        "HIPBLAS_STATUS_INVALID_VALUE",  "HIPBLAS_STATUS_MAPPING_ERROR",   "HIPBLAS_STATUS_EXECUTION_FAILED",
        "HIPBLAS_STATUS_INTERNAL_ERROR", "HIPBLAS_STATUS_NOT_SUPPORTED",   "HIPBLAS_STATUS_ARCH_MISMATCH",
        "HIPBLAS_STATUS_HANDLE_IS_NULLPTR", "HIPBLAS_STATUS_INVALID_ENUM", "HIPBLAS_STATUS_UNKNOWN"};
    return s >= 0 && s < int(sizeof names / sizeof *names) ? names[s] : "HIPBLAS_STATUS_?";
}

opkit_status lt_fail(lt::Status s, const char* what) {
    return fail(s == lt::STATUS_ALLOC_FAILED ? OPKIT_ERROR_OUT_OF_MEMORY : OPKIT_ERROR_DEVICE,
                "matmul: %s failed: %s (%d)", what, lt_status_name(s), int(s));
}

#define OPKIT_LT_TRY(call)                                             \
    do {                                                               \
        const lt::Status lt_s_ = (call);                               \
        if (lt_s_ != lt::STATUS_SUCCESS) return lt_fail(lt_s_, #call); \
    } while (0)

opkit_status make_layout(const HipBlasLt& lt, lt::MatrixLayout* out, lt::DataType type, const BlasOperand& o,
                         int32_t batch) {
    OPKIT_LT_TRY(lt.hipblasLtMatrixLayoutCreate(out, type, uint64_t(o.rows), uint64_t(o.cols), o.ld));
    if (batch > 1) {
        OPKIT_LT_TRY(lt.hipblasLtMatrixLayoutSetAttribute(*out, lt::LAYOUT_BATCH_COUNT, &batch, sizeof batch));
        const int64_t stride = o.batch_stride;
        OPKIT_LT_TRY(
            lt.hipblasLtMatrixLayoutSetAttribute(*out, lt::LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride));
    }
    return OPKIT_OK;
}

// Builds a hipBLASLt plan; *found = false (and OK) when the heuristic has no algorithm.
opkit_status build_lt_plan(const HipBlasLt& lt, lt::Handle handle, const BlasMatmul& m, Plan* plan, bool* found) {
    static const lt::DataType kTypes[3] = {lt::R_32F, lt::R_16F, lt::R_16BF};
    const lt::DataType type = kTypes[m.type];
    const int32_t batch = int32_t(m.batch);
    Plan p;
    struct Cleanup {  // frees a half-built plan on any early return
        const HipBlasLt& lt;
        Plan& p;
        bool keep = false;
        ~Cleanup() {
            if (!keep) destroy_plan(lt, p);
        }
    } cleanup{lt, p};
    OPKIT_LT_TRY(lt.hipblasLtMatmulDescCreate(&p.desc, lt::COMPUTE_32F, lt::R_32F));
    const int32_t opa = m.trans_a ? lt::OP_T : lt::OP_N, opb = m.trans_b ? lt::OP_T : lt::OP_N;
    OPKIT_LT_TRY(lt.hipblasLtMatmulDescSetAttribute(p.desc, lt::DESC_TRANSA, &opa, sizeof opa));
    OPKIT_LT_TRY(lt.hipblasLtMatmulDescSetAttribute(p.desc, lt::DESC_TRANSB, &opb, sizeof opb));
    OPKIT_GPU_TRY(make_layout(lt, &p.la, type, m.A, batch));
    OPKIT_GPU_TRY(make_layout(lt, &p.lb, type, m.B, batch));
    OPKIT_GPU_TRY(make_layout(lt, &p.lc, type, m.C, batch));
    lt::Preference pref = nullptr;
    OPKIT_LT_TRY(lt.hipblasLtMatmulPreferenceCreate(&pref));
    struct PrefCleanup {
        const HipBlasLt& lt;
        lt::Preference p;
        ~PrefCleanup() { lt.hipblasLtMatmulPreferenceDestroy(p); }
    } pref_cleanup{lt, pref};
    const uint64_t ws = kMaxWorkspace;
    OPKIT_LT_TRY(lt.hipblasLtMatmulPreferenceSetAttribute(pref, lt::PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));
    lt::HeuristicResult result{};
    int n = 0;
    const lt::Status s =
        lt.hipblasLtMatmulAlgoGetHeuristic(handle, p.desc, p.la, p.lb, p.lc, p.lc, pref, 1, &result, &n);
    // NOT_SUPPORTED or an empty answer: this architecture or shape is not hipBLASLt's.
    if (s == lt::STATUS_NOT_SUPPORTED || (s == lt::STATUS_SUCCESS && n < 1)) {
        *found = false;
        return OPKIT_OK;
    }
    if (s != lt::STATUS_SUCCESS) return lt_fail(s, "hipblasLtMatmulAlgoGetHeuristic");
    p.algo = result.algo;
    p.workspace = result.workspaceSize;
    cleanup.keep = true;
    *plan = p;
    *found = true;
    return OPKIT_OK;
}

opkit_status rocblas_gemm(const RocBlas& rb, rb::Handle h, const BlasMatmul& m) {
    for (int64_t v : {m.A.rows, m.A.cols, m.B.rows, m.B.cols, m.C.rows, m.C.cols, m.A.ld, m.B.ld, m.C.ld})
        if (v > INT32_MAX)
            return fail(OPKIT_ERROR_UNSUPPORTED, "matmul: a dimension or leading dimension of %lld exceeds rocBLAS's "
                        "int32 sizes", static_cast<long long>(v));
    static const rb::DataType kTypes[3] = {rb::R_32F, rb::R_16F, rb::R_16BF};
    const rb::DataType type = kTypes[m.type];
    const rb::Status ss = rb.rocblas_set_stream(h, static_cast<hipStream_t>(m.stream));
    if (ss != rb::STATUS_SUCCESS)
        return fail(OPKIT_ERROR_DEVICE, "matmul: rocblas_set_stream failed: %s", rb.rocblas_status_to_string(ss));
    // Column-major: C[m x n] = op(A) * op(B); m and n are C's rows and columns, k the
    // inner dimension of op(A).
    const int32_t M = int32_t(m.C.rows), N = int32_t(m.C.cols);
    const int32_t K = int32_t(m.trans_a ? m.A.rows : m.A.cols);
    // beta == 0: rocBLAS does not read C (BLAS semantics), so NaN there stays out.
    const rb::Status s = rb.rocblas_gemm_strided_batched_ex(
        h, m.trans_a ? rb::OP_T : rb::OP_N, m.trans_b ? rb::OP_T : rb::OP_N, M, N, K, &m.alpha, m.a, type,
        int32_t(m.A.ld), m.A.batch_stride, m.b, type, int32_t(m.B.ld), m.B.batch_stride, &m.beta, m.c, type,
        int32_t(m.C.ld), m.C.batch_stride, m.c, type, int32_t(m.C.ld), m.C.batch_stride, int32_t(m.batch),
        rb::R_32F, rb::ALGO_STANDARD, 0, 0);
    if (s != rb::STATUS_SUCCESS)
        return fail(OPKIT_ERROR_DEVICE, "matmul: rocblas_gemm_strided_batched_ex failed: %s (%d)",
                    rb.rocblas_status_to_string(s), int(s));
    return OPKIT_OK;
}

}  // namespace

opkit_status blas_gemm(Device& d, const BlasMatmul& m) {
    const HipBlasLt* lt = hipblaslt();
    const RocBlas* rb = rocblas();
    const bool lt_aligned = m.A.align >= kLtMinAlign && m.B.align >= kLtMinAlign && m.C.align >= kLtMinAlign;
    const Key key{m.type, m.trans_a, m.trans_b, m.A.rows, m.A.cols, m.A.ld, m.B.rows, m.B.cols,
                  m.B.ld, m.C.ld,    m.batch,   m.A.batch_stride, m.B.batch_stride, m.C.batch_stride, lt_aligned};
    {
        std::lock_guard<std::mutex> lock(d.mu);
        if (!d.blas) {
            d.blas = new MatmulState;
            d.blas_release = release;
        }
    }
    MatmulState& st = *static_cast<MatmulState*>(d.blas);
    Plan plan;
    lt::Handle lt_handle = nullptr;
    rb::Handle rb_handle = nullptr;
    {
        std::lock_guard<std::mutex> lock(st.mu);
        auto it = st.plans.find(key);
        if (it == st.plans.end()) {
            Plan p;
            p.use_rocblas = true;
            if (lt && lt_aligned) {
                if (!st.lt_handle) {
                    const lt::Status s = lt->hipblasLtCreate(&st.lt_handle);
                    if (s != lt::STATUS_SUCCESS) {
                        st.lt_handle = nullptr;
                        return lt_fail(s, "hipblasLtCreate");
                    }
                }
                bool found = false;
                OPKIT_GPU_TRY(build_lt_plan(*lt, st.lt_handle, m, &p, &found));
                p.use_rocblas = !found;
            }
            if (p.use_rocblas && !rb)
                return fail(OPKIT_ERROR_UNSUPPORTED,
                            "matmul: %s, and rocBLAS, which would take it, is not installed",
                            lt_aligned ? "hipBLASLt has no algorithm for this shape on this device"
                                       : "hipBLASLt needs 16-byte aligned operands and strides");
            it = st.plans.emplace(key, p).first;
        }
        plan = it->second;
        if (plan.use_rocblas && !st.rb_handle) {
            const rb::Status s = rb->rocblas_create_handle(&st.rb_handle);
            if (s != rb::STATUS_SUCCESS) {
                st.rb_handle = nullptr;
                return fail(OPKIT_ERROR_DEVICE, "matmul: rocblas_create_handle failed: %s",
                            rb->rocblas_status_to_string(s));
            }
        }
        rb_handle = st.rb_handle;
        lt_handle = st.lt_handle;
    }
    // One rocBLAS handle per device; its stream is set per call under the handle's own
    // use, so concurrent callers on one device serialize here.
    if (plan.use_rocblas) {
        std::lock_guard<std::mutex> lock(st.mu);
        return rocblas_gemm(*rb, rb_handle, m);
    }
    opkit_gpu::Scratch scratch(d, m.stream);
    void* workspace = nullptr;
    if (plan.workspace) OPKIT_GPU_TRY(scratch.alloc(plan.workspace, &workspace));
    // hipBLASLt does not read C when beta is 0 (BLAS semantics): NaN there stays out.
    OPKIT_LT_TRY(lt->hipblasLtMatmul(lt_handle, plan.desc, &m.alpha, m.a, plan.la, m.b, plan.lb, &m.beta, m.c,
                                     plan.lc, m.c, plan.lc, &plan.algo, workspace, plan.workspace,
                                     static_cast<hipStream_t>(m.stream)));
    return OPKIT_OK;
}

}  // namespace opkit_rocm
