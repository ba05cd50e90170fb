// rope forward and backward on x [B,T,H,D] (any strides; innermost 1) with cos/sin
// [T,D] or [B,T,D]. The host picks the block shape (RopeArgs::width / groups; see
// vendors/gpu/rope.cu).
#include "ops_common.h"

namespace {

using namespace opkit_gpu;

const char* const kRope[3] = OPK_DTYPE_NAMES("opk_rope");

opkit_status run_rope(const char* op, bool backward, const opkit_tensor* x, const opkit_tensor* cos,
                 const opkit_tensor* sin, opkit_tensor* y, opkit_stream stream) {
    int type;
    OPKIT_GPU_TRY(need_float(op, x, &type));
    OPKIT_GPU_TRY(check_element_aligned(op, backward ? "dy" : "x", x));
    OPKIT_GPU_TRY(check_element_aligned(op, "cos", cos));
    OPKIT_GPU_TRY(check_element_aligned(op, "sin", sin));
    OPKIT_GPU_TRY(check_element_aligned(op, backward ? "dx" : "y", y));
    if (numel(x) == 0) return OPKIT_OK;
    DeviceScope scope;
    OPKIT_GPU_TRY(scope.enter(x->device.device_id));
    Device& d = scope.dev();
    opk::RopeArgs a{};
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
    const int64_t blocks = (positions + per_block - 1) / per_block;
    const size_t grid = size_t(std::min<int64_t>(blocks, int64_t(d.sm_count) * 64));
    return launch_2d(d, Module::rope, kRope[type], unsigned(grid), 1, unsigned(width * groups * per_block), stream, a,
                     0, /*dependent=*/true);
}

}  // namespace

namespace opkit_gpu {

opkit_status run(const args::rope_forward& call) {
    return run_rope("rope_forward", false, call.x, call.cos, call.sin, call.y, call.stream);
}

opkit_status run(const args::rope_backward& call) {
    return run_rope("rope_backward", true, call.dy, call.cos, call.sin, call.dx, call.stream);
}

}  // namespace opkit_gpu
