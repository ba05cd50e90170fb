// rope forward and backward: aclnnRotaryPositionEmbedding and its grad in mode 0, the
// rotate-half (NeoX) rotation (audit:234-235).
//
// x [B,T,H,D] is BSND. cos/sin [T,D] or [B,T,D] are passed as [1,T,1,D] or [B,T,1,D], the
// broadcast shapes of the BSND layout (ggml passes 1S1D, audit:290-293). The backward is
// the grad op without x (no dcos/dsin wanted); its dcos/dsin outputs still get scratch
// tensors, since whether they may be NULL is not documented (audit:235).
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

}  // namespace

opkit_status run(const opkit::args::rope_forward& a) {
    OpCall call("rope_forward", a.x->device, a.stream);
    OPKIT_ASCEND_TRY(check_head_dim(call, a.x));
    OPKIT_ASCEND_TRY(call.begin());
    OPKIT_ASCEND_TRY(call.step<acl::Op::RotaryPositionEmbedding>(call.tensor(view_of(a.x)), call.tensor(angles(a.cos)),
                                                                 call.tensor(angles(a.sin)), acl::kRopeHalf,
                                                                 call.tensor(view_of(a.y))));
    return call.run();
}

opkit_status run(const opkit::args::rope_backward& a) {
    OpCall call("rope_backward", a.dy->device, a.stream);
    OPKIT_ASCEND_TRY(check_head_dim(call, a.dy));
    OPKIT_ASCEND_TRY(call.begin());
    const View cos = angles(a.cos), sin = angles(a.sin);
    const size_t bytes = size_t(cos.numel()) * size_of(cos.dtype);
    void *dcos = nullptr, *dsin = nullptr;
    OPKIT_ASCEND_TRY(call.temps({{bytes, &dcos}, {bytes, &dsin}}));
    OPKIT_ASCEND_TRY(call.step<acl::Op::RotaryPositionEmbeddingGrad>(
        call.tensor(view_of(a.dy)), call.tensor(cos), call.tensor(sin), nullptr, acl::kRopeHalf,
        call.tensor(view_of(a.dx)), call.tensor(dense(dcos, cos.dtype, dims_of(cos))),
        call.tensor(dense(dsin, sin.dtype, dims_of(sin)))));
    return call.run();
}

}  // namespace opkit_ascend
