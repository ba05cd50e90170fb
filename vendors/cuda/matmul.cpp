// matmul's BLAS call through cuBLASLt (Runtime::blas_matmul). vendors/gpu/host/
// ops_matmul.cpp declines what cuBLASLt cannot take, runs K = 0 itself and hands over the
// column-major operands (cuBLASLt's "A" is opkit's b, its "B" is a). All dtypes compute
// in fp32 (CUBLAS_COMPUTE_32F; no TF32 for f32, so results match the CPU reference at
// fp32 precision).
//
// Per device: one cuBLASLt handle and a cache of plans (descriptors + heuristic algo)
// keyed by everything the heuristic depends on, pointer alignment included.
#include "cublaslt.h"
#include "gpu/host/device.h"

#include <array>
#include <map>
#include <mutex>

namespace opkit_cuda {
namespace {

using opkit_gpu::BlasOperand;
using opkit_gpu::Device;
using opkit_gpu::fail;

constexpr size_t kMaxWorkspace = size_t(32) << 20;

// Everything the plan depends on: dtype, transposes, shapes, strides, batch, alignment.
using Key = std::array<int64_t, 18>;

struct Plan {
    cublasLtMatmulDesc_t desc = nullptr;
    cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
    cublasLtMatmulAlgo_t algo{};
    size_t workspace = 0;
};

// Device::blas of a device that ran a matmul.
struct MatmulState {
    cublasLtHandle_t handle = nullptr;
    std::mutex mu;
    std::map<Key, Plan> plans;
};

void destroy_plan(const CublasLt& lt, Plan& p) {
    if (p.la) lt.cublasLtMatrixLayoutDestroy(p.la);
    if (p.lb) lt.cublasLtMatrixLayoutDestroy(p.lb);
    if (p.lc) lt.cublasLtMatrixLayoutDestroy(p.lc);
    if (p.desc) lt.cublasLtMatmulDescDestroy(p.desc);
    p = Plan{};
}

// Device::blas_release: called at shutdown with the device's context current.
void release(Device& d) {
    auto* st = static_cast<MatmulState*>(d.blas);
    if (!st) return;
    std::string why;
    if (const CublasLt* lt = cublaslt(&why)) {
        for (auto& kv : st->plans) destroy_plan(*lt, kv.second);
        if (st->handle) lt->cublasLtDestroy(st->handle);
    }
    delete st;
    d.blas = nullptr;
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

opkit_status make_layout(const CublasLt& lt, cublasLtMatrixLayout_t* out, cudaDataType type,
                         const BlasOperand& o, int32_t batch) {
    OPKIT_LT_TRY(lt.cublasLtMatrixLayoutCreate(out, type, uint64_t(o.rows), uint64_t(o.cols), o.ld));
    if (batch > 1) {
        OPKIT_LT_TRY(lt.cublasLtMatrixLayoutSetAttribute(*out, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch,
                                                         sizeof batch));
        const int64_t stride = o.batch_stride;
        OPKIT_LT_TRY(lt.cublasLtMatrixLayoutSetAttribute(*out, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride,
                                                         sizeof stride));
    }
    return OPKIT_OK;
}

opkit_status build_plan(const CublasLt& lt, cublasLtHandle_t handle, cudaDataType type, bool ta, bool tb,
                        const BlasOperand& A, const BlasOperand& B, const BlasOperand& C, int32_t batch,
                        Plan* plan) {
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
    OPKIT_GPU_TRY(make_layout(lt, &p.la, type, A, batch));
    OPKIT_GPU_TRY(make_layout(lt, &p.lb, type, B, batch));
    OPKIT_GPU_TRY(make_layout(lt, &p.lc, type, C, batch));

    cublasLtMatmulPreference_t pref = nullptr;
    OPKIT_LT_TRY(lt.cublasLtMatmulPreferenceCreate(&pref));
    struct PrefCleanup {
        const CublasLt& lt;
        cublasLtMatmulPreference_t p;
        ~PrefCleanup() { lt.cublasLtMatmulPreferenceDestroy(p); }
    } pref_cleanup{lt, pref};
    const uint64_t ws = kMaxWorkspace;
    OPKIT_LT_TRY(lt.cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws,
                                                         sizeof ws));
    const uint32_t al[4] = {uint32_t(A.align), uint32_t(B.align), uint32_t(C.align), uint32_t(C.align)};
    const cublasLtMatmulPreferenceAttributes_t which[4] = {
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES};
    for (int i = 0; i < 4; ++i)
        OPKIT_LT_TRY(lt.cublasLtMatmulPreferenceSetAttribute(pref, which[i], &al[i], sizeof al[i]));
    cublasLtMatmulHeuristicResult_t result{};
    int found = 0;
    OPKIT_LT_TRY(
        lt.cublasLtMatmulAlgoGetHeuristic(handle, p.desc, p.la, p.lb, p.lc, p.lc, pref, 1, &result, &found));
    if (found < 1)
        return fail(OPKIT_ERROR_UNSUPPORTED,
                    "matmul: cuBLASLt has no algorithm for this shape, layout and alignment");
    p.algo = result.algo;
    p.workspace = result.workspaceSize;
    cleanup.keep = true;
    *plan = p;
    return OPKIT_OK;
}

}  // namespace

opkit_status lt_matmul(Device& d, const opkit_gpu::BlasMatmul& m) {
    std::string why;
    const CublasLt* lt = cublaslt(&why);  // loaded: Runtime::blas_load said so
    const BlasOperand &A = m.A, &B = m.B, &C = m.C;
    static const cudaDataType kTypes[3] = {CUDA_R_32F, CUDA_R_16F, CUDA_R_16BF};
    const Key key{m.type,         m.trans_a,      m.trans_b,      A.rows,  A.cols,  A.ld,
                  B.rows,         B.cols,         B.ld,           C.ld,    m.batch, A.batch_stride,
                  B.batch_stride, C.batch_stride, A.align,        B.align, C.align, 0};
    Plan plan;
    {
        std::lock_guard<std::mutex> lock(d.mu);
        if (!d.blas) {
            d.blas = new MatmulState;
            d.blas_release = release;
        }
    }
    MatmulState& st = *static_cast<MatmulState*>(d.blas);
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
            OPKIT_GPU_TRY(build_plan(*lt, st.handle, kTypes[m.type], m.trans_a, m.trans_b, A, B, C,
                                     int32_t(m.batch), &p));
            it = st.plans.emplace(key, p).first;
        }
        plan = it->second;
    }
    opkit_gpu::Scratch scratch(d, m.stream);
    void* workspace = nullptr;
    if (plan.workspace) OPKIT_GPU_TRY(scratch.alloc(plan.workspace, &workspace));
    // cuBLASLt does not read C when beta is 0 (BLAS semantics): NaN there stays out.
    OPKIT_LT_TRY(lt->cublasLtMatmul(st.handle, plan.desc, &m.alpha, m.a, plan.la, m.b, plan.lb, &m.beta, m.c,
                                    plan.lc, m.c, plan.lc, &plan.algo, workspace, plan.workspace,
                                    static_cast<cudaStream_t>(m.stream)));
    return OPKIT_OK;
}

}  // namespace opkit_cuda
