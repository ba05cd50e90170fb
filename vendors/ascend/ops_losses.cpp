// cross_entropy forward and backward.
//
// Forward: aclnnCrossEntropyLoss (audit:236), which has PyTorch's ignore_index,
// label_smoothing and reduction, writes the loss and log-probabilities; opkit's lse is
// recovered from them as x[:,0] - logp[:,0] (a copy, then InplaceAdd with alpha -1), and dlogits (for an
// upstream gradient of 1) by aclnnCrossEntropyLossGrad (audit:237) from a vector of ones.
// Backward: aclnnLogSoftmax (audit:224), then the grad op with opkit's dloss.
// Everything runs in fp32: f16/bf16 logits are cast first, so the fp32 loss, lse and
// gradient are computed at fp32 precision and rounded once. zloss is not used, but its
// two outputs must still be passed (ascend.md §4).
#include "op_call.h"
#include "ops.h"

namespace opkit_ascend {
namespace {

char kNone[] = "none", kMean[] = "mean", kSum[] = "sum";
char* reduction_name(int32_t r) { return r == OPKIT_REDUCTION_MEAN ? kMean : r == OPKIT_REDUCTION_SUM ? kSum : kNone; }

// opkit's loss/dloss: [rows] for NONE, [] for MEAN/SUM, which aclnn shapes [1].
View loss_view(const opkit_tensor* t) {
    View v = view_of(t);
    if (v.ndim == 0) {
        v.ndim = 1;
        v.dims[0] = 1;
        v.strides[0] = 1;
    }
    return v;
}

struct Logits32 {
    acl::aclTensor* tensor = nullptr;
    View view;
};

// The logits in fp32: the tensor itself, or a cast into `tmp`.
opkit_status logits32(OpCall& call, const opkit_tensor* logits, void* tmp, Logits32* out) {
    if (float_type(logits) == 0) {
        out->view = view_of(logits);
        out->tensor = call.tensor(out->view);
        return OPKIT_OK;
    }
    out->view = dense(tmp, acl::DataType::Float, {logits->shape[0], logits->shape[1]});
    out->tensor = call.tensor(out->view);
    return call.step<acl::Op::Cast>(call.tensor(view_of(logits)), acl::DataType::Float, out->tensor);
}

// The column 0 of a [rows, V] view, as [rows].
View column0(const View& m) {
    View c = m;
    c.ndim = 1;
    c.dims[0] = m.dims[0];
    c.strides[0] = m.strides[0];
    return c;
}

}  // namespace

opkit_status run(const opkit::args::cross_entropy_forward& a) {
    OpCall call("cross_entropy_forward", a.logits->device, a.stream);
    const int ft = float_type(a.logits);
    const int64_t rows = a.logits->shape[0], v = a.logits->shape[1];
    const size_t matrix = size_t(rows * v) * 4;
    const bool cast_in = ft != 0, grad_direct = a.dlogits && ft == 0;
    const size_t loss_bytes = a.reduction == OPKIT_REDUCTION_NONE ? size_t(rows) * 4 : 4;
    OPKIT_ASCEND_TRY(call.begin());
    void *x32 = nullptr, *logp = nullptr, *loss = nullptr, *zloss = nullptr, *zlse = nullptr, *g32 = nullptr;
    OPKIT_ASCEND_TRY(call.temps({{cast_in ? matrix : 0, &x32},
                                 {matrix, &logp},
                                 {a.loss ? 0 : loss_bytes, &loss},
                                 {loss_bytes, &zloss},
                                 {size_t(rows) * 4, &zlse},
                                 {a.dlogits && !grad_direct ? matrix : 0, &g32}}));
    Logits32 x;
    OPKIT_ASCEND_TRY(logits32(call, a.logits, x32, &x));
    const std::vector<int64_t> loss_dims =
        a.reduction == OPKIT_REDUCTION_NONE ? std::vector<int64_t>{rows} : std::vector<int64_t>{1};
    acl::aclTensor* target = call.tensor(view_of(a.target));
    const View logp_view = dense(logp, acl::DataType::Float, {rows, v});
    acl::aclTensor* lp = call.tensor(logp_view);
    OPKIT_ASCEND_TRY(call.step<acl::Op::CrossEntropyLoss>(
        x.tensor, target, nullptr, reduction_name(a.reduction), a.ignore_index, double(a.label_smoothing), 0.0, false,
        call.tensor(a.loss ? loss_view(a.loss) : dense(loss, acl::DataType::Float, loss_dims)), lp,
        call.tensor(dense(zloss, acl::DataType::Float, loss_dims)),
        call.tensor(dense(zlse, acl::DataType::Float, {rows}))));
    if (a.lse) {  // lse = x - log_softmax(x), at any column: a copy of x[:,0], then -= logp[:,0]
        acl::aclTensor* lse = call.tensor(view_of(a.lse));
        OPKIT_ASCEND_TRY(call.step<acl::Op::Cast>(call.tensor(column0(x.view)), acl::DataType::Float, lse));
        OPKIT_ASCEND_TRY(call.step<acl::Op::InplaceAdd>(lse, call.tensor(column0(logp_view)), call.scalar(-1.0f)));
    }
    if (a.dlogits) {
        void* one = nullptr;
        OPKIT_ASCEND_TRY(call.ones(0, loss_dims[0], &one));
        acl::aclTensor* g =
            call.tensor(grad_direct ? view_of(a.dlogits) : dense(g32, acl::DataType::Float, {rows, v}));
        OPKIT_ASCEND_TRY(call.step<acl::Op::CrossEntropyLossGrad>(
            call.tensor(dense(one, acl::DataType::Float, loss_dims)), lp, target, nullptr, nullptr, nullptr,
            reduction_name(a.reduction), a.ignore_index, double(a.label_smoothing), 0.0, g));
        if (!grad_direct)
            OPKIT_ASCEND_TRY(call.step<acl::Op::Cast>(g, float_dtype(ft), call.tensor(view_of(a.dlogits))));
    }
    return call.run();
}

opkit_status run(const opkit::args::cross_entropy_backward& a) {
    OpCall call("cross_entropy_backward", a.logits->device, a.stream);
    const int ft = float_type(a.logits);
    const int64_t rows = a.logits->shape[0], v = a.logits->shape[1];
    const size_t matrix = size_t(rows * v) * 4;
    const bool cast_in = ft != 0, grad_direct = ft == 0;
    OPKIT_ASCEND_TRY(call.begin());
    void *x32 = nullptr, *logp = nullptr, *g32 = nullptr;
    OPKIT_ASCEND_TRY(
        call.temps({{cast_in ? matrix : 0, &x32}, {matrix, &logp}, {grad_direct ? 0 : matrix, &g32}}));
    Logits32 x;
    OPKIT_ASCEND_TRY(logits32(call, a.logits, x32, &x));
    acl::aclTensor* lp = call.tensor(dense(logp, acl::DataType::Float, {rows, v}));
    OPKIT_ASCEND_TRY(call.step<acl::Op::LogSoftmax>(x.tensor, int64_t(1), lp));
    acl::aclTensor* g = call.tensor(grad_direct ? view_of(a.dlogits) : dense(g32, acl::DataType::Float, {rows, v}));
    OPKIT_ASCEND_TRY(call.step<acl::Op::CrossEntropyLossGrad>(call.tensor(loss_view(a.dloss)), lp,
                                                              call.tensor(view_of(a.target)), nullptr, nullptr,
                                                              nullptr, reduction_name(a.reduction), a.ignore_index,
                                                              double(a.label_smoothing), 0.0, g));
    if (!grad_direct) OPKIT_ASCEND_TRY(call.step<acl::Op::Cast>(g, float_dtype(ft), call.tensor(view_of(a.dlogits))));
    return call.run();
}

}  // namespace opkit_ascend
