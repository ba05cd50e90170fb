// Validation of the gated activations, RoPE and axpy (validate_ops.h).
#include "validate_ops.h"

#include <cmath>

using namespace opkit;
namespace v = opkit::validate;

namespace {

// t is present, well formed, and has ref's shape and dtype.
opkit_status like(const char* op, const opkit_tensor* t, const char* name, const opkit_tensor* ref,
                  const char* ref_name, DType dt) {
    OPKIT_TRY(v::required(op, t, name));
    OPKIT_TRY(v::same_dtype(op, t, name, dt, ref_name));
    return v::same_shape(op, t, name, ref, ref_name);
}

opkit_status first_float(const char* op, const opkit_tensor* t, const char* name, DType* dt) {
    OPKIT_TRY(v::required(op, t, name));
    return v::float_dtype(op, t, name, dt);
}

opkit_status check_approximate(const char* op, int32_t approximate) {
    if (approximate == OPKIT_GELU_NONE || approximate == OPKIT_GELU_TANH) return OPKIT_OK;
    return fail(OPKIT_ERROR_INVALID_ARGUMENT,
                "%s: approximate is %d; expected OPKIT_GELU_NONE (0) or OPKIT_GELU_TANH (1)", op,
                int(approximate));
}

// swiglu/geglu forward: a, b and y share one float dtype and one shape.
template <class Args>
opkit_status gated_forward(const char* op, const Args& a, opkit_device* dev) {
    DType dt;
    OPKIT_TRY(first_float(op, a.a, "a", &dt));
    OPKIT_TRY(like(op, a.b, "b", a.a, "a", dt));
    OPKIT_TRY(like(op, a.y, "y", a.a, "a", dt));
    OPKIT_TRY(v::same_device(op, a, dev));
    return v::no_overlap(op, a);
}

// swiglu/geglu backward: da may replace a or dy, db may replace b or dy.
template <class Args>
opkit_status gated_backward(const char* op, const Args& a, opkit_device* dev) {
    DType dt;
    OPKIT_TRY(first_float(op, a.a, "a", &dt));
    OPKIT_TRY(like(op, a.b, "b", a.a, "a", dt));
    OPKIT_TRY(like(op, a.dy, "dy", a.a, "a", dt));
    OPKIT_TRY(like(op, a.da, "da", a.a, "a", dt));
    OPKIT_TRY(like(op, a.db, "db", a.a, "a", dt));
    OPKIT_TRY(v::same_device(op, a, dev));
    return v::no_overlap(op, a, {{a.da, a.a}, {a.da, a.dy}, {a.db, a.b}, {a.db, a.dy}});
}

// The operands of one rotation: x [B,T,H,D] with D even; cos/sin [T,D] or [B,T,D] in
// x's dtype; y like x. *dt is x's dtype. The device and aliasing rules are the caller's.
opkit_status rope_operands(const char* op, const opkit_tensor* x, const char* xname,
                           const opkit_tensor* cos, const opkit_tensor* sin, const opkit_tensor* y,
                           const char* yname, DType* dt) {
    OPKIT_TRY(first_float(op, x, xname, dt));
    OPKIT_TRY(v::ndim(op, x, xname, 4));
    const int64_t B = x->shape[0], T = x->shape[1], D = x->shape[3];
    if (D % 2 != 0)
        return fail(OPKIT_ERROR_INVALID_ARGUMENT,
                    "%s: head dimension D = %lld of %s is odd; rotate-half needs an even D", op,
                    (long long)D, xname);
    for (const auto& [t, name] : {std::pair{cos, "cos"}, std::pair{sin, "sin"}}) {
        OPKIT_TRY(v::required(op, t, name));
        OPKIT_TRY(v::same_dtype(op, t, name, *dt, xname));
        if (t->ndim == 3)
            OPKIT_TRY(v::shape(op, t, name, {B, T, D}));
        else
            OPKIT_TRY(v::shape(op, t, name, {T, D}));
    }
    return like(op, y, yname, x, xname, *dt);
}

// rope_forward/rope_backward: y may be x (in place), nothing else overlaps.
opkit_status rope_call(const char* op, const opkit_tensor* x, const char* xname,
                       const opkit_tensor* cos, const opkit_tensor* sin, const opkit_tensor* y,
                       const char* yname, opkit_device* dev) {
    DType dt;
    OPKIT_TRY(rope_operands(op, x, xname, cos, sin, y, yname, &dt));
    OPKIT_TRY(v::one_device(op, {{x, xname}, {cos, "cos"}, {sin, "sin"}, {y, yname}}, dev));
    return v::no_overlap(op, {{y, yname}}, {{x, xname}, {cos, "cos"}, {sin, "sin"}}, {{y, x}});
}

// rope_qk_forward/rope_qk_backward: the rotation of q into q_out and of k into k_out
// (rope_call's rules for each pair), k with q's dtype, B, T and D (its head count is its
// own); each output may be its own input, nothing else overlaps.
opkit_status rope_qk_call(const char* op, const opkit_tensor* q, const char* qname,
                          const opkit_tensor* k, const char* kname, const opkit_tensor* cos,
                          const opkit_tensor* sin, const opkit_tensor* q_out, const char* q_outname,
                          const opkit_tensor* k_out, const char* k_outname, opkit_device* dev) {
    DType dt;
    OPKIT_TRY(rope_operands(op, q, qname, cos, sin, q_out, q_outname, &dt));
    OPKIT_TRY(v::required(op, k, kname));
    OPKIT_TRY(v::same_dtype(op, k, kname, dt, qname));
    OPKIT_TRY(v::ndim(op, k, kname, 4));
    if (k->shape[0] != q->shape[0] || k->shape[1] != q->shape[1] || k->shape[3] != q->shape[3])
        return fail(OPKIT_ERROR_INVALID_ARGUMENT,
                    "%s: %s has shape %s but %s has shape %s; B, T and D (dimensions 0, 1 and 3) "
                    "must match",
                    op, kname, v::shape_string(k), qname, v::shape_string(q));
    OPKIT_TRY(rope_operands(op, k, kname, cos, sin, k_out, k_outname, &dt));
    OPKIT_TRY(v::one_device(op, {{q, qname}, {k, kname}, {cos, "cos"}, {sin, "sin"}, {q_out, q_outname},
                                 {k_out, k_outname}},
                            dev));
    return v::no_overlap(op, {{q_out, q_outname}, {k_out, k_outname}},
                         {{q, qname}, {k, kname}, {cos, "cos"}, {sin, "sin"}}, {{q_out, q}, {k_out, k}});
}

}  // namespace

opkit_status opkit::validate_op(const args::swiglu_forward& a, opkit_device* dev) {
    return gated_forward("swiglu_forward", a, dev);
}

opkit_status opkit::validate_op(const args::swiglu_backward& a, opkit_device* dev) {
    return gated_backward("swiglu_backward", a, dev);
}

opkit_status opkit::validate_op(const args::geglu_forward& a, opkit_device* dev) {
    OPKIT_TRY(check_approximate("geglu_forward", a.approximate));
    return gated_forward("geglu_forward", a, dev);
}

opkit_status opkit::validate_op(const args::geglu_backward& a, opkit_device* dev) {
    OPKIT_TRY(check_approximate("geglu_backward", a.approximate));
    return gated_backward("geglu_backward", a, dev);
}

opkit_status opkit::validate_op(const args::rope_forward& a, opkit_device* dev) {
    return rope_call("rope_forward", a.x, "x", a.cos, a.sin, a.y, "y", dev);
}

opkit_status opkit::validate_op(const args::rope_backward& a, opkit_device* dev) {
    return rope_call("rope_backward", a.dy, "dy", a.cos, a.sin, a.dx, "dx", dev);
}

opkit_status opkit::validate_op(const args::rope_qk_forward& a, opkit_device* dev) {
    return rope_qk_call("rope_qk_forward", a.q, "q", a.k, "k", a.cos, a.sin, a.q_out, "q_out", a.k_out,
                        "k_out", dev);
}

opkit_status opkit::validate_op(const args::rope_qk_backward& a, opkit_device* dev) {
    return rope_qk_call("rope_qk_backward", a.dq_out, "dq_out", a.dk_out, "dk_out", a.cos, a.sin, a.dq, "dq",
                        a.dk, "dk", dev);
}

opkit_status opkit::validate_op(const args::axpy& a, opkit_device* dev) {
    const char* op = "axpy";
    DType dt;
    OPKIT_TRY(first_float(op, a.x, "x", &dt));
    if (!std::isfinite(a.alpha))
        return fail(OPKIT_ERROR_INVALID_ARGUMENT, "%s: alpha is not finite", op);
    OPKIT_TRY(like(op, a.y, "y", a.x, "x", dt));
    OPKIT_TRY(v::same_device(op, a, dev));
    return v::no_overlap(op, a);
}
