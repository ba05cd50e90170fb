// rope forward and backward on x [B,T,H,D] (any strides; innermost 1) with cos/sin
// [T,D] or [B,T,D], one tensor a launch (opk_rope_dense where its rows allow, else
// opk_rope) or q and k in one (opk_rope_qk_dense where both allow it, else opk_rope_qk).
// The host picks the block shape (RopeArgs::width / groups / per_block; see
// vendors/gpu/rope.cu).
#include "ops_common.h"

namespace {

using namespace opkit_gpu;

const char* const kRope[3] = OPK_DTYPE_NAMES("opk_rope");
const char* const kRopeQk[3] = OPK_DTYPE_NAMES("opk_rope_qk");
const char* const kRopeDense[3] = OPK_DTYPE_NAMES("opk_rope_dense");
const char* const kRopeQkDense[3] = OPK_DTYPE_NAMES("opk_rope_qk_dense");

// One tensor's part of a launch: its arguments, its blocks (0 when it has no elements)
// and their threads.
struct RopePart {
    opk::RopeArgs a{};
    int64_t blocks = 0;
    int64_t threads = 0;
};

opkit_status plan_rope(const char* op, bool backward, const opkit_tensor* x, const char* xname,
                       const opkit_tensor* cos, const opkit_tensor* sin, opkit_tensor* y, const char* yname,
                       const Device& d, RopePart* part) {
    OPKIT_GPU_TRY(check_element_aligned(op, xname, x));
    OPKIT_GPU_TRY(check_element_aligned(op, "cos", cos));
    OPKIT_GPU_TRY(check_element_aligned(op, "sin", sin));
    OPKIT_GPU_TRY(check_element_aligned(op, yname, y));
    if (numel(x) == 0) return OPKIT_OK;
    opk::RopeArgs& a = part->a;
    a.x = base_of(x);
    a.y = base_of(y);
    a.cos = base_of(cos);
    a.sin = base_of(sin);
    a.B = x->shape[0];
    a.T = x->shape[1];
    a.H = x->shape[2];
    a.D = x->shape[3];
    for (int i = 0; i < 3; ++i) {
        a.xs[i] = stride_of(x, i);
        a.ys[i] = stride_of(y, i);
    }
    const bool batched = cos->ndim == 3;
    a.cs[0] = batched ? stride_of(cos, 0) : 0;
    a.cs[1] = stride_of(cos, batched ? 1 : 0);
    a.ss[0] = batched ? stride_of(sin, 0) : 0;
    a.ss[1] = stride_of(sin, batched ? 1 : 0);
    // 16-byte packs need every row start and the second half's start aligned.
    const int64_t es = int64_t(element_size(x));
    bool vec = (a.D / 2 * es) % 16 == 0;
    for (const void* p : {a.x, static_cast<const void*>(a.y), a.cos, a.sin}) vec = vec && aligned16(p);
    for (int i = 0; i < 3; ++i) vec = vec && (a.xs[i] * es) % 16 == 0 && (a.ys[i] * es) % 16 == 0;
    for (int i = 0; i < 2; ++i) vec = vec && (a.cs[i] * es) % 16 == 0 && (a.ss[i] * es) % 16 == 0;
    a.vec = vec;
    a.backward = backward;
    // Block: `width` lanes over a half's packs (a power of 2, at most 64; wider halves
    // loop), ceil(H / kRopeHeads) groups over the heads (each thread takes kRopeHeads of
    // them, all their loads in flight), and enough positions to make 128 threads.
    const int64_t packs = (a.D / 2 + 16 / es - 1) / (16 / es);
    int64_t width = 1;
    while (width < packs && width < 64) width <<= 1;
    const int64_t groups = std::min<int64_t>((a.H + opk::kRopeHeads - 1) / opk::kRopeHeads, 256 / width);
    const int64_t positions = a.B * a.T;
    const int64_t per_block = std::max<int64_t>(1, std::min<int64_t>(128 / (width * groups), positions));
    a.width = int32_t(width);
    a.groups = int32_t(groups);
    a.per_block = int32_t(per_block);
    part->threads = width * groups * per_block;
    part->blocks = std::min<int64_t>((positions + per_block - 1) / per_block, int64_t(d.sm_count) * 64);
    return OPKIT_OK;
}

// Blocks of opk_rope_dense for a planned tensor of es-byte elements, or 0 where that
// kernel does not apply: x and y must be dense [B,T,H,D] on 16-byte packs, a head's packs
// a power of two from 2 to 32 (partners in one warp, rope.cu's rope_dense), and the packs
// fewer than 2^31 (32-bit indices).
int64_t dense_blocks(const opk::RopeArgs& a, int64_t es) {
    if (!a.vec) return 0;
    const int64_t hd = a.H * a.D, thd = a.T * hd;
    if (a.xs[2] != a.D || a.xs[1] != hd || a.xs[0] != thd || a.ys[2] != a.D || a.ys[1] != hd || a.ys[0] != thd)
        return 0;
    const int64_t row_packs = a.D * es / 16;
    if (a.D * es % 16 != 0 || row_packs < 2 || row_packs > 32 || (row_packs & (row_packs - 1)) != 0) return 0;
    const int64_t packs = a.B * a.T * a.H * row_packs;
    if (packs >= (int64_t(1) << 31)) return 0;
    const int64_t per_block = int64_t(opk::kRopeDenseThreads) * opk::kRopeDensePacks;
    return (packs + per_block - 1) / per_block;
}

opkit_status run_rope(const char* op, bool backward, const opkit_tensor* x, const opkit_tensor* cos,
                      const opkit_tensor* sin, opkit_tensor* y, opkit_stream stream) {
    int type;
    OPKIT_GPU_TRY(need_float(op, x, &type));
    DeviceScope scope;
    OPKIT_GPU_TRY(scope.enter(x->device.device_id));
    Device& d = scope.dev();
    RopePart p;
    OPKIT_GPU_TRY(plan_rope(op, backward, x, backward ? "dy" : "x", cos, sin, y, backward ? "dx" : "y", d, &p));
    if (p.blocks == 0) return OPKIT_OK;
    if (const int64_t blocks = dense_blocks(p.a, int64_t(element_size(x))))
        return launch_2d(d, Module::rope, kRopeDense[type], unsigned(blocks), 1, unsigned(opk::kRopeDenseThreads),
                         stream, p.a, 0, /*dependent=*/true);
    return launch_2d(d, Module::rope, kRope[type], unsigned(p.blocks), 1, unsigned(p.threads), stream, p.a, 0,
                     /*dependent=*/true);
}

// q and k in one launch: q's blocks, then k's (rope.cu) — rope_qk_dense where both are dense
// rows for the dense kernel (bf16 q+k 0.990 / 0.987 of rope_qk's time, fwd / bwd, f32 0.984 /
// 0.990; bench/results/2026-12-01-s36/r1, ab-rqk), rope_qk otherwise.
opkit_status run_rope_qk(const char* op, bool backward, const opkit_tensor* q, const opkit_tensor* k,
                         const opkit_tensor* cos, const opkit_tensor* sin, opkit_tensor* q_out, opkit_tensor* k_out,
                         opkit_stream stream) {
    int type;
    OPKIT_GPU_TRY(need_float(op, q, &type));
    DeviceScope scope;
    OPKIT_GPU_TRY(scope.enter(q->device.device_id));
    Device& d = scope.dev();
    RopePart pq, pk;
    OPKIT_GPU_TRY(plan_rope(op, backward, q, backward ? "dq_out" : "q", cos, sin, q_out, backward ? "dq" : "q_out",
                            d, &pq));
    OPKIT_GPU_TRY(plan_rope(op, backward, k, backward ? "dk_out" : "k", cos, sin, k_out, backward ? "dk" : "k_out",
                            d, &pk));
    if (pq.blocks + pk.blocks == 0) return OPKIT_OK;
    const int64_t es = int64_t(element_size(q));
    const int64_t qd = pq.blocks ? dense_blocks(pq.a, es) : 0, kd = pk.blocks ? dense_blocks(pk.a, es) : 0;
    if (qd > 0 && kd > 0) {
        const opk::RopeQkArgs a{pq.a, pk.a, qd};
        return launch_2d(d, Module::rope, kRopeQkDense[type], unsigned(qd + kd), 1, unsigned(opk::kRopeDenseThreads),
                         stream, a, 0, /*dependent=*/true);
    }
    const opk::RopeQkArgs a{pq.a, pk.a, pq.blocks};
    return launch_2d(d, Module::rope, kRopeQk[type], unsigned(pq.blocks + pk.blocks), 1,
                     unsigned(std::max(pq.threads, pk.threads)), stream, a, 0, /*dependent=*/true);
}

}  // namespace

namespace opkit_gpu {

opkit_status run(const args::rope_forward& call) {
    return run_rope("rope_forward", false, call.x, call.cos, call.sin, call.y, call.stream);
}

opkit_status run(const args::rope_backward& call) {
    return run_rope("rope_backward", true, call.dy, call.cos, call.sin, call.dx, call.stream);
}

opkit_status run(const args::rope_qk_forward& call) {
    return run_rope_qk("rope_qk_forward", false, call.q, call.k, call.cos, call.sin, call.q_out, call.k_out,
                       call.stream);
}

opkit_status run(const args::rope_qk_backward& call) {
    return run_rope_qk("rope_qk_backward", true, call.dq_out, call.dk_out, call.cos, call.sin, call.dq, call.dk,
                       call.stream);
}

}  // namespace opkit_gpu
