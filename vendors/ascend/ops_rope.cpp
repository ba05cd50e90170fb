// rope forward and backward: aclnnRotaryPositionEmbedding and its grad in mode 0, the
// rotate-half (NeoX) rotation (audit:234-235).
//
// x [B,T,H,D] is BSND. cos/sin [T,D] or [B,T,D] are passed as [1,T,1,D] or [B,T,1,D], the
// broadcast shapes of the BSND layout (ggml passes 1S1D, audit:290-293). The backward is
// the grad op without x (no dcos/dsin wanted); its dcos/dsin outputs still get scratch
// tensors, since whether they may be NULL is not documented (audit:235). rope_qk_* is
// the same rotation of q and of k: one call of two steps (q and k share B, T and D, so
// the head-dimension check of q holds for k).
#include "op_call.h"
#include "ops.h"

namespace opkit_ascend {
namespace {

// D < 896 on A2/A3 (audit:234). opkit already requires D even.
constexpr int64_t kMaxHeadDim = 896;

View angles(const opkit_tensor* t) {
    View v = view_of(t);
    View out = v;
    out.ndim = 4;
    const bool batched = v.ndim == 3;
    out.dims[0] = batched ? v.dims[0] : 1;
    out.strides[0] = batched ? v.strides[0] : v.dims[0] * v.strides[0];
    out.dims[1] = v.dims[v.ndim - 2];
    out.strides[1] = v.strides[v.ndim - 2];
    out.dims[2] = 1;
    out.strides[2] = v.strides[v.ndim - 2];
    out.dims[3] = v.dims[v.ndim - 1];
    out.strides[3] = 1;
    return out;
}

opkit_status check_head_dim(OpCall& call, const opkit_tensor* x) {
    const int64_t d = inner_of(x);
    if (d >= kMaxHeadDim)
        return call.decline("head dimension D = %lld, but aclnnRotaryPositionEmbedding takes D < %lld",
                            static_cast<long long>(d), static_cast<long long>(kMaxHeadDim));
    return OPKIT_OK;
}

// Phase 1 of x's rotation into y: one step of call.
opkit_status forward_step(OpCall& call, const opkit_tensor* x, const opkit_tensor* cos, const opkit_tensor* sin,
                          const opkit_tensor* y) {
    return call.step<acl::Op::RotaryPositionEmbedding>(call.tensor(view_of(x)), call.tensor(angles(cos)),
                                                       call.tensor(angles(sin)), acl::kRopeHalf,
                                                       call.tensor(view_of(y)));
}

// The forward of each (x, y) pair as one call: a step each, phase 1 of all before any runs.
opkit_status forward(const char* op, std::initializer_list<std::pair<const opkit_tensor*, const opkit_tensor*>> xy,
                     const opkit_tensor* cos, const opkit_tensor* sin, opkit_stream stream) {
    OpCall call(op, xy.begin()->first->device, stream);
    OPKIT_ASCEND_TRY(check_head_dim(call, xy.begin()->first));
    OPKIT_ASCEND_TRY(call.begin());
    for (const auto& [x, y] : xy) OPKIT_ASCEND_TRY(forward_step(call, x, cos, sin, y));
    return call.run();
}

// The backward of each (dy, dx) pair as one call. dcos/dsin, unwanted, share one pair of
// scratch tensors: the steps run in order on the call's stream.
opkit_status backward(const char* op, std::initializer_list<std::pair<const opkit_tensor*, const opkit_tensor*>> dydx,
                      const opkit_tensor* cos_t, const opkit_tensor* sin_t, opkit_stream stream) {
    OpCall call(op, dydx.begin()->first->device, stream);
    OPKIT_ASCEND_TRY(check_head_dim(call, dydx.begin()->first));
    OPKIT_ASCEND_TRY(call.begin());
    const View cos = angles(cos_t), sin = angles(sin_t);
    const size_t bytes = size_t(cos.numel()) * size_of(cos.dtype);
    void *dcos = nullptr, *dsin = nullptr;
    OPKIT_ASCEND_TRY(call.temps({{bytes, &dcos}, {bytes, &dsin}}));
    for (const auto& [dy, dx] : dydx)
        OPKIT_ASCEND_TRY(call.step<acl::Op::RotaryPositionEmbeddingGrad>(
            call.tensor(view_of(dy)), call.tensor(cos), call.tensor(sin), nullptr, acl::kRopeHalf,
            call.tensor(view_of(dx)), call.tensor(dense(dcos, cos.dtype, dims_of(cos))),
            call.tensor(dense(dsin, sin.dtype, dims_of(sin)))));
    return call.run();
}

}  // namespace

opkit_status run(const opkit::args::rope_forward& a) {
    return forward("rope_forward", {{a.x, a.y}}, a.cos, a.sin, a.stream);
}

opkit_status run(const opkit::args::rope_backward& a) {
    return backward("rope_backward", {{a.dy, a.dx}}, a.cos, a.sin, a.stream);
}

// q and k in one call of two steps. (A call where one of them has no elements but the
// other has is declined by exports.cpp, and libopkit's composite default then runs the
// two rope calls.)
opkit_status run(const opkit::args::rope_qk_forward& a) {
    return forward("rope_qk_forward", {{a.q, a.q_out}, {a.k, a.k_out}}, a.cos, a.sin, a.stream);
}

opkit_status run(const opkit::args::rope_qk_backward& a) {
    return backward("rope_qk_backward", {{a.dq_out, a.dq}, {a.dk_out, a.dk}}, a.cos, a.sin, a.stream);
}

}  // namespace opkit_ascend
