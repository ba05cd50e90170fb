// rms_norm and layer_norm, forward and backward.
//
// RmsNorm/RmsNormGrad take a required gamma (audit:218-219): opkit's weight + weight_offset
// is composed with Adds into an fp32 temporary, and a missing weight is a cached vector of
// ones.
// LayerNorm's mean and rstd come out in the input's dtype (ascend.md §4), while opkit's are
// fp32: f32 calls map directly; f16/bf16 calls that want the statistics (and every f16/bf16
// backward, whose statistics are fp32) run in fp32 on temporaries cast from the inputs,
// with the results cast back once.
#include "op_call.h"
#include "ops.h"

namespace opkit_ascend {
namespace {

// RmsNorm's gamma: the weight itself, ones, or weight + offset in fp32 (an Adds step, after
// a Cast for f16/bf16 weights) into *tmp — fp32 gamma with f16/bf16 x is one of the doc's
// dtype combinations (audit:218), and w + 1 rounded to f16 would cost the backward's dx
// its precision (measured: 40x the tolerance).
opkit_status gamma_of(OpCall& call, const opkit_tensor* weight, float offset, int ft, int64_t n, void* tmp,
                      acl::aclTensor** out) {
    if (!weight) {
        void* p = nullptr;
        OPKIT_ASCEND_TRY(call.ones(ft, n, &p));
        *out = call.tensor(dense(p, float_dtype(ft), {n}));
        return OPKIT_OK;
    }
    if (offset == 0.0f) {
        *out = call.tensor(view_of(weight));
        return OPKIT_OK;
    }
    acl::aclTensor* w = call.tensor(view_of(weight));
    if (ft != 0) {
        acl::aclTensor* w32 = call.tensor(dense(static_cast<char*>(tmp) + n * 4, acl::DataType::Float, {n}));
        OPKIT_ASCEND_TRY(call.step<acl::Op::Cast>(w, acl::DataType::Float, w32));
        w = w32;
    }
    acl::aclTensor* g = call.tensor(dense(tmp, acl::DataType::Float, {n}));
    OPKIT_ASCEND_TRY(call.step<acl::Op::Adds>(w, call.scalar(offset), call.scalar(1.0f), g));
    *out = g;
    return OPKIT_OK;
}

size_t gamma_tmp_bytes(const opkit_tensor* weight, float offset, int ft, int64_t n) {
    return weight && offset != 0.0f ? size_t(n) * 4 * (ft == 0 ? 1 : 2) : 0;
}

std::vector<int64_t> shape_of(const opkit_tensor* t) { return std::vector<int64_t>(t->shape, t->shape + t->ndim); }

}  // namespace

opkit_status run(const opkit::args::rms_norm_forward& a) {
    OpCall call("rms_norm_forward", a.x->device, a.stream);
    const int ft = float_type(a.x);
    const int64_t n = inner_of(a.x), rows = rows_of(a.x);
    OPKIT_ASCEND_TRY(call.begin());
    void *gtmp = nullptr, *rtmp = nullptr;
    OPKIT_ASCEND_TRY(call.temps({{gamma_tmp_bytes(a.weight, a.weight_offset, ft, n), &gtmp},
                                 {a.rstd ? 0 : size_t(rows) * 4, &rtmp}}));
    acl::aclTensor* gamma = nullptr;
    OPKIT_ASCEND_TRY(gamma_of(call, a.weight, a.weight_offset, ft, n, gtmp, &gamma));
    // rstd: fp32, x's rank with the normalized dimension 1 (audit:218).
    View rstd;
    if (a.rstd) {
        rstd = stats_view(a.rstd, a.x, true);
    } else {
        std::vector<int64_t> dims = shape_of(a.x);
        dims.back() = 1;
        rstd = dense(rtmp, acl::DataType::Float, dims);
    }
    OPKIT_ASCEND_TRY(call.step<acl::Op::RmsNorm>(call.tensor(view_of(a.x)), gamma, double(a.eps),
                                                 call.tensor(view_of(a.y)), call.tensor(rstd)));
    return call.run();
}

opkit_status run(const opkit::args::rms_norm_backward& a) {
    OpCall call("rms_norm_backward", a.x->device, a.stream);
    const int ft = float_type(a.x);
    const int64_t n = inner_of(a.x);
    OPKIT_ASCEND_TRY(call.begin());
    // dgamma is a required fp32 output (audit:219): opkit's dweight when that is fp32,
    // else a temporary (cast into dweight afterwards, or dropped when dweight is NULL).
    const bool dgamma_direct = a.dweight && ft == 0;
    void *gtmp = nullptr, *dgtmp = nullptr;
    OPKIT_ASCEND_TRY(call.temps({{gamma_tmp_bytes(a.weight, a.weight_offset, ft, n), &gtmp},
                                 {dgamma_direct ? 0 : size_t(n) * 4, &dgtmp}}));
    acl::aclTensor* gamma = nullptr;
    OPKIT_ASCEND_TRY(gamma_of(call, a.weight, a.weight_offset, ft, n, gtmp, &gamma));
    // RmsNormGrad takes 2-8 dims and rstd shaped x_shape[0:n], without the trailing 1
    // (audit:219); a 1-D x is seen as [1, N].
    View dy = view_of(a.dy), x = view_of(a.x), dx = view_of(a.dx), rstd;
    if (a.x->ndim == 1) {
        dy = unsqueeze0(dy);
        x = unsqueeze0(x);
        dx = unsqueeze0(dx);
        rstd = stats_view(a.rstd, a.x, true);  // [1]
    } else {
        rstd = stats_view(a.rstd, a.x, false);
    }
    acl::aclTensor* dgamma =
        call.tensor(dgamma_direct ? view_of(a.dweight) : dense(dgtmp, acl::DataType::Float, {n}));
    OPKIT_ASCEND_TRY(call.step<acl::Op::RmsNormGrad>(call.tensor(dy), call.tensor(x), call.tensor(rstd), gamma,
                                                     call.tensor(dx), dgamma));
    if (a.dweight && !dgamma_direct)
        OPKIT_ASCEND_TRY(call.step<acl::Op::Cast>(dgamma, float_dtype(ft), call.tensor(view_of(a.dweight))));
    return call.run();
}

opkit_status run(const opkit::args::layer_norm_forward& a) {
    OpCall call("layer_norm_forward", a.x->device, a.stream);
    const int ft = float_type(a.x);
    const int64_t n = inner_of(a.x), count = numel(a.x);
    const std::vector<int64_t> dims = shape_of(a.x);
    OPKIT_ASCEND_TRY(call.begin());
    acl::aclIntArray* normalized = call.ints({n});
    auto stat = [&](opkit_tensor* t) { return t ? call.tensor(stats_view(t, a.x, true)) : nullptr; };
    if (ft == 0 || (!a.mean && !a.rstd)) {
        OPKIT_ASCEND_TRY(call.step<acl::Op::LayerNorm>(
            call.tensor(view_of(a.x)), normalized, a.weight ? call.tensor(view_of(a.weight)) : nullptr,
            a.bias ? call.tensor(view_of(a.bias)) : nullptr, double(a.eps), call.tensor(view_of(a.y)), stat(a.mean),
            stat(a.rstd)));
        return call.run();
    }
    // f16/bf16 with statistics: in fp32 (see the top of the file).
    void *x32 = nullptr, *y32 = nullptr, *w32 = nullptr, *b32 = nullptr;
    OPKIT_ASCEND_TRY(call.temps({{size_t(count) * 4, &x32},
                                 {size_t(count) * 4, &y32},
                                 {a.weight ? size_t(n) * 4 : 0, &w32},
                                 {a.bias ? size_t(n) * 4 : 0, &b32}}));
    acl::aclTensor* xf = call.tensor(dense(x32, acl::DataType::Float, dims));
    acl::aclTensor* yf = call.tensor(dense(y32, acl::DataType::Float, dims));
    acl::aclTensor* wf = a.weight ? call.tensor(dense(w32, acl::DataType::Float, {n})) : nullptr;
    acl::aclTensor* bf = a.bias ? call.tensor(dense(b32, acl::DataType::Float, {n})) : nullptr;
    OPKIT_ASCEND_TRY(call.step<acl::Op::Cast>(call.tensor(view_of(a.x)), acl::DataType::Float, xf));
    if (wf) OPKIT_ASCEND_TRY(call.step<acl::Op::Cast>(call.tensor(view_of(a.weight)), acl::DataType::Float, wf));
    if (bf) OPKIT_ASCEND_TRY(call.step<acl::Op::Cast>(call.tensor(view_of(a.bias)), acl::DataType::Float, bf));
    OPKIT_ASCEND_TRY(
        call.step<acl::Op::LayerNorm>(xf, normalized, wf, bf, double(a.eps), yf, stat(a.mean), stat(a.rstd)));
    OPKIT_ASCEND_TRY(call.step<acl::Op::Cast>(yf, float_dtype(ft), call.tensor(view_of(a.y))));
    return call.run();
}

opkit_status run(const opkit::args::layer_norm_backward& a) {
    OpCall call("layer_norm_backward", a.x->device, a.stream);
    const int ft = float_type(a.x);
    const int64_t n = inner_of(a.x), count = numel(a.x);
    const std::vector<int64_t> dims = shape_of(a.x);
    OPKIT_ASCEND_TRY(call.begin());
    acl::aclIntArray* normalized = call.ints({n});
    acl::aclBoolArray* mask = call.bools({true, a.dweight != nullptr, a.dbias != nullptr});
    acl::aclTensor* mean = call.tensor(stats_view(a.mean, a.x, true));
    acl::aclTensor* rstd = call.tensor(stats_view(a.rstd, a.x, true));
    // The gradient outputs are always passed, masked off when opkit wants none: whether
    // the op accepts NULL there is not documented (audit:221).
    const bool direct = ft == 0;
    void *dy32 = nullptr, *x32 = nullptr, *w32 = nullptr, *dx32 = nullptr, *dw32 = nullptr, *db32 = nullptr;
    OPKIT_ASCEND_TRY(call.temps({{direct ? 0 : size_t(count) * 4, &dy32},
                                 {direct ? 0 : size_t(count) * 4, &x32},
                                 {!direct && a.weight ? size_t(n) * 4 : 0, &w32},
                                 {direct ? 0 : size_t(count) * 4, &dx32},
                                 {direct && a.dweight ? 0 : size_t(n) * 4, &dw32},
                                 {direct && a.dbias ? 0 : size_t(n) * 4, &db32}}));
    acl::aclTensor *dy, *x, *w, *dx;
    if (direct) {
        dy = call.tensor(view_of(a.dy));
        x = call.tensor(view_of(a.x));
        w = a.weight ? call.tensor(view_of(a.weight)) : nullptr;
        dx = call.tensor(view_of(a.dx));
    } else {
        dy = call.tensor(dense(dy32, acl::DataType::Float, dims));
        x = call.tensor(dense(x32, acl::DataType::Float, dims));
        w = a.weight ? call.tensor(dense(w32, acl::DataType::Float, {n})) : nullptr;
        dx = call.tensor(dense(dx32, acl::DataType::Float, dims));
        OPKIT_ASCEND_TRY(call.step<acl::Op::Cast>(call.tensor(view_of(a.dy)), acl::DataType::Float, dy));
        OPKIT_ASCEND_TRY(call.step<acl::Op::Cast>(call.tensor(view_of(a.x)), acl::DataType::Float, x));
        if (w) OPKIT_ASCEND_TRY(call.step<acl::Op::Cast>(call.tensor(view_of(a.weight)), acl::DataType::Float, w));
    }
    acl::aclTensor* dw =
        call.tensor(direct && a.dweight ? view_of(a.dweight) : dense(dw32, acl::DataType::Float, {n}));
    acl::aclTensor* db = call.tensor(direct && a.dbias ? view_of(a.dbias) : dense(db32, acl::DataType::Float, {n}));
    OPKIT_ASCEND_TRY(
        call.step<acl::Op::LayerNormBackward>(dy, x, normalized, mean, rstd, w, nullptr, mask, dx, dw, db));
    if (!direct) {
        const acl::DataType dt = float_dtype(ft);
        OPKIT_ASCEND_TRY(call.step<acl::Op::Cast>(dx, dt, call.tensor(view_of(a.dx))));
        if (a.dweight) OPKIT_ASCEND_TRY(call.step<acl::Op::Cast>(dw, dt, call.tensor(view_of(a.dweight))));
        if (a.dbias) OPKIT_ASCEND_TRY(call.step<acl::Op::Cast>(db, dt, call.tensor(view_of(a.dbias))));
    }
    return call.run();
}

}  // namespace opkit_ascend
