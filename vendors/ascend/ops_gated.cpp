// swiglu and geglu, forward and backward.
//
// aclnn's gated ops take one tensor holding both halves, [rows, 2N] (audit:225-231),
// while opkit takes the halves as two tensors. When they already are the two halves of
// one contiguous buffer (the fused gate/up projection of an MLP) the buffer is passed as
// is; otherwise the halves are copied (Cast to the same dtype) into a temporary. SwiGlu
// does not take non-contiguous tensors (audit:225), so everything the gated ops see is
// dense, and viewed 3-D [1, rows, width]: ggml's note that CANN's SwiGlu tiling wants an
// odd number of view dims with its 1-D storage (audit:300-302).
//
// SwiGlu activates the first half: x = (a | b). GeGlu activates the second (out = A *
// Gelu(B), ascend.md §4): x = (b | a), so out = b * gelu(a), and its gradient comes out as
// (db | da). approximate passes through unchanged: opkit's 0 (erf) and 1 (tanh) are the
// tiling code's values (audit:59-64).
#include "op_call.h"
#include "ops.h"

namespace opkit_ascend {
namespace {

std::vector<int64_t> shape_of(const opkit_tensor* t) { return std::vector<int64_t>(t->shape, t->shape + t->ndim); }

// first and second as the halves of one dense [rows, 2N] buffer starting at first's data,
// or false.
bool adjacent_halves(const opkit_tensor* first, const opkit_tensor* second, View* out) {
    const View f = view_of(first), s = view_of(second);
    const int64_t n = inner_of(first), es = int64_t(size_of(f.dtype));
    if (s.start != f.start + n * es) return false;
    int64_t expect = 2 * n;
    for (int d = f.ndim - 2; d >= 0; --d) {
        if (f.strides[d] != s.strides[d] && f.dims[d] != 1) return false;
        if (f.dims[d] != 1 && f.strides[d] != expect) return false;
        expect *= f.dims[d];
    }
    *out = dense(f.start, f.dtype, {1, rows_of(first), 2 * n});
    return true;
}

// The concatenation (first | second) as a [1, rows, 2N] tensor: the buffer itself when
// the halves are adjacent, else copied into `tmp` (a Cast step each).
opkit_status concatenated(OpCall& call, const opkit_tensor* first, const opkit_tensor* second, void* tmp,
                          acl::aclTensor** out) {
    View whole;
    if (adjacent_halves(first, second, &whole)) {
        *out = call.tensor(whole);
        return OPKIT_OK;
    }
    const acl::DataType dt = view_of(first).dtype;
    const int64_t n = inner_of(first), es = int64_t(size_of(dt));
    *out = call.tensor(dense(tmp, dt, {1, rows_of(first), 2 * n}));
    OPKIT_ASCEND_TRY(call.step<acl::Op::Cast>(call.tensor(view_of(first)), dt,
                                              call.tensor(in_rows(tmp, dt, shape_of(first), 2 * n))));
    return call.step<acl::Op::Cast>(call.tensor(view_of(second)), dt,
                                    call.tensor(in_rows(static_cast<char*>(tmp) + n * es, dt, shape_of(second), 2 * n)));
}

// Output halves written in place over the inputs would make the aclnn op read what it
// writes: such calls go through a temporary.
bool aliases(const opkit_tensor* out, std::initializer_list<const opkit_tensor*> ins) {
    for (const opkit_tensor* in : ins)
        if (view_of(out).start == view_of(in).start) return true;
    return false;
}

bool needs_concat_tmp(const opkit_tensor* first, const opkit_tensor* second) {
    View unused;
    return !adjacent_halves(first, second, &unused);
}

// A dense [1, rows, N] view of t, or of `tmp` when t is not dense (copied after the op).
View dense_or_tmp(const opkit_tensor* t, void* tmp) {
    const View v = view_of(t);
    return dense(v.contiguous() ? v.start : static_cast<char*>(tmp), v.dtype, {1, rows_of(t), inner_of(t)});
}

// Copies the halves of a dense [rows, 2N] result at `whole` into first and second.
opkit_status split_into(OpCall& call, void* whole, const opkit_tensor* first, const opkit_tensor* second) {
    const View f = view_of(first);
    const int64_t n = inner_of(first), es = int64_t(size_of(f.dtype));
    OPKIT_ASCEND_TRY(call.step<acl::Op::Cast>(call.tensor(in_rows(whole, f.dtype, shape_of(first), 2 * n)), f.dtype,
                                              call.tensor(f)));
    return call.step<acl::Op::Cast>(call.tensor(in_rows(static_cast<char*>(whole) + n * es, f.dtype, shape_of(second),
                                                        2 * n)),
                                    f.dtype, call.tensor(view_of(second)));
}

// Forward: y = act(a) * b with x = (first | second) through `op`'s single aclnn call.
template <class Step>
opkit_status gated_forward(OpCall& call, const opkit_tensor* first, const opkit_tensor* second, opkit_tensor* y,
                           bool gelu_scratch, Step step) {
    const int64_t half = numel(y);
    const size_t es = size_of(view_of(y).dtype);
    const bool y_dense = view_of(y).contiguous();
    void *xtmp = nullptr, *ytmp = nullptr, *gtmp = nullptr;
    OPKIT_ASCEND_TRY(call.begin());
    OPKIT_ASCEND_TRY(call.temps({{needs_concat_tmp(first, second) ? size_t(2 * half) * es : 0, &xtmp},
                                 {y_dense ? 0 : size_t(half) * es, &ytmp},
                                 {gelu_scratch ? size_t(half) * es : 0, &gtmp}}));
    acl::aclTensor* x = nullptr;
    OPKIT_ASCEND_TRY(concatenated(call, first, second, xtmp, &x));
    const View out = dense_or_tmp(y, ytmp);
    acl::aclTensor* yt = call.tensor(out);
    acl::aclTensor* g = gelu_scratch ? call.tensor(dense(gtmp, out.dtype, dims_of(out))) : nullptr;
    OPKIT_ASCEND_TRY(step(x, yt, g));
    if (!y_dense)
        OPKIT_ASCEND_TRY(call.step<acl::Op::Cast>(call.tensor(in_rows(ytmp, out.dtype, shape_of(y), inner_of(y))),
                                                  out.dtype, call.tensor(view_of(y))));
    return call.run();
}

}  // namespace

opkit_status run(const opkit::args::swiglu_forward& a) {
    OpCall call("swiglu_forward", a.a->device, a.stream);
    return gated_forward(call, a.a, a.b, a.y, false, [&](acl::aclTensor* x, acl::aclTensor* y, acl::aclTensor*) {
        return call.step<acl::Op::SwiGlu>(x, int64_t(2), y);
    });
}

opkit_status run(const opkit::args::geglu_forward& a) {
    OpCall call("geglu_forward", a.a->device, a.stream);
    // out = A * gelu(B) over (b | a): b * gelu(a).
    return gated_forward(call, a.b, a.a, a.y, true, [&](acl::aclTensor* x, acl::aclTensor* y, acl::aclTensor* g) {
        return call.step<acl::Op::GeGlu>(x, int64_t(2), int64_t(a.approximate), y, g);
    });
}

opkit_status run(const opkit::args::swiglu_backward& a) {
    OpCall call("swiglu_backward", a.a->device, a.stream);
    const int64_t half = numel(a.a);
    const acl::DataType dt = view_of(a.a).dtype;
    const size_t es = size_of(dt);
    View out_whole;
    const bool out_direct = adjacent_halves(a.da, a.db, &out_whole) && !aliases(a.da, {a.a, a.b, a.dy}) &&
                            !aliases(a.db, {a.a, a.b, a.dy});
    const bool dy_dense = view_of(a.dy).contiguous();
    void *xtmp = nullptr, *dytmp = nullptr, *dxtmp = nullptr;
    OPKIT_ASCEND_TRY(call.begin());
    OPKIT_ASCEND_TRY(call.temps({{needs_concat_tmp(a.a, a.b) ? size_t(2 * half) * es : 0, &xtmp},
                                 {dy_dense ? 0 : size_t(half) * es, &dytmp},
                                 {out_direct ? 0 : size_t(2 * half) * es, &dxtmp}}));
    // Inputs are read (copied into temporaries where needed) before any gradient is
    // written, so da/db may alias a/b.
    acl::aclTensor* x = nullptr;
    OPKIT_ASCEND_TRY(concatenated(call, a.a, a.b, xtmp, &x));
    const View dyv = dense_or_tmp(a.dy, dytmp);
    if (!dy_dense)
        OPKIT_ASCEND_TRY(call.step<acl::Op::Cast>(call.tensor(view_of(a.dy)), dt,
                                                  call.tensor(in_rows(dytmp, dt, shape_of(a.dy), inner_of(a.dy)))));
    acl::aclTensor* dx = call.tensor(out_direct ? out_whole : dense(dxtmp, dt, {1, rows_of(a.a), 2 * inner_of(a.a)}));
    OPKIT_ASCEND_TRY(call.step<acl::Op::SwiGluGrad>(call.tensor(dyv), x, int64_t(2), dx));
    if (!out_direct) OPKIT_ASCEND_TRY(split_into(call, dxtmp, a.da, a.db));
    return call.run();
}

opkit_status run(const opkit::args::geglu_backward& a) {
    OpCall call("geglu_backward", a.a->device, a.stream);
    const int64_t half = numel(a.a), rows = rows_of(a.a), n = inner_of(a.a);
    const acl::DataType dt = view_of(a.a).dtype;
    const size_t es = size_of(dt);
    View out_whole;
    const bool out_direct = adjacent_halves(a.db, a.da, &out_whole) &&  // the gradient is (db | da)
                            !aliases(a.da, {a.a, a.b, a.dy}) && !aliases(a.db, {a.a, a.b, a.dy});
    const bool dy_dense = view_of(a.dy).contiguous();
    void *xtmp = nullptr, *dytmp = nullptr, *dxtmp = nullptr, *ytmp = nullptr, *gtmp = nullptr;
    OPKIT_ASCEND_TRY(call.begin());
    OPKIT_ASCEND_TRY(call.temps({{needs_concat_tmp(a.b, a.a) ? size_t(2 * half) * es : 0, &xtmp},
                                 {dy_dense ? 0 : size_t(half) * es, &dytmp},
                                 {out_direct ? 0 : size_t(2 * half) * es, &dxtmp},
                                 {size_t(half) * es, &ytmp},
                                 {size_t(half) * es, &gtmp}}));
    acl::aclTensor* x = nullptr;
    OPKIT_ASCEND_TRY(concatenated(call, a.b, a.a, xtmp, &x));
    // GeGluBackward takes gelu(a), the forward's outGelu: recomputed by a forward step.
    acl::aclTensor* gelu = call.tensor(dense(gtmp, dt, {1, rows, n}));
    OPKIT_ASCEND_TRY(call.step<acl::Op::GeGlu>(x, int64_t(2), int64_t(a.approximate),
                                               call.tensor(dense(ytmp, dt, {1, rows, n})), gelu));
    const View dyv = dense_or_tmp(a.dy, dytmp);
    if (!dy_dense)
        OPKIT_ASCEND_TRY(call.step<acl::Op::Cast>(call.tensor(view_of(a.dy)), dt,
                                                  call.tensor(in_rows(dytmp, dt, shape_of(a.dy), n))));
    acl::aclTensor* dx = call.tensor(out_direct ? out_whole : dense(dxtmp, dt, {1, rows, 2 * n}));
    OPKIT_ASCEND_TRY(call.step<acl::Op::GeGluBackward>(call.tensor(dyv), x, gelu, int64_t(2),
                                                       int64_t(a.approximate), dx));
    if (!out_direct) OPKIT_ASCEND_TRY(split_into(call, dxtmp, a.db, a.da));
    return call.run();
}

}  // namespace opkit_ascend
