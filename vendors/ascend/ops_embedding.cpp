// embedding forward and backward: aclnnEmbedding and aclnnEmbeddingDenseBackward
// (audit:240-241). The backward accumulates into an fp32 buffer (opkit's contract), so
// f16/bf16 gradients are cast to fp32 first and the result cast back once. padding_idx -1
// (none) becomes the uint64 2^64 - 1 the grad op takes, which matches no id.
#include "op_call.h"
#include "ops.h"

namespace opkit_ascend {

opkit_status run(const opkit::args::embedding_forward& a) {
    OpCall call("embedding_forward", a.weight->device, a.stream);
    OPKIT_ASCEND_TRY(call.begin());
    OPKIT_ASCEND_TRY(call.step<acl::Op::Embedding>(call.tensor(view_of(a.weight)), call.tensor(view_of(a.ids)),
                                                   call.tensor(view_of(a.y))));
    return call.run();
}

opkit_status run(const opkit::args::embedding_backward& a) {
    OpCall call("embedding_backward", a.dweight->device, a.stream);
    const int ft = float_type(a.dweight);
    const int64_t vocab = a.dweight->shape[0], dim = a.dweight->shape[1], count = numel(a.dy);
    const bool direct = ft == 0;
    OPKIT_ASCEND_TRY(call.begin());
    void *dy32 = nullptr, *dw32 = nullptr;
    OPKIT_ASCEND_TRY(call.temps(
        {{direct ? 0 : size_t(count) * 4, &dy32}, {direct ? 0 : size_t(vocab * dim) * 4, &dw32}}));
    acl::aclTensor *dy = call.tensor(view_of(a.dy)), *dw;
    if (direct) {
        dw = call.tensor(view_of(a.dweight));
    } else {
        acl::aclTensor* dyf =
            call.tensor(dense(dy32, acl::DataType::Float, std::vector<int64_t>(a.dy->shape, a.dy->shape + a.dy->ndim)));
        OPKIT_ASCEND_TRY(call.step<acl::Op::Cast>(dy, acl::DataType::Float, dyf));
        dy = dyf;
        dw = call.tensor(dense(dw32, acl::DataType::Float, {vocab, dim}));
    }
    OPKIT_ASCEND_TRY(call.step<acl::Op::EmbeddingDenseBackward>(dy, call.tensor(view_of(a.ids)), uint64_t(vocab),
                                                                uint64_t(a.padding_idx), false, dw));
    if (!direct) OPKIT_ASCEND_TRY(call.step<acl::Op::Cast>(dw, float_dtype(ft), call.tensor(view_of(a.dweight))));
    return call.run();
}

}  // namespace opkit_ascend
