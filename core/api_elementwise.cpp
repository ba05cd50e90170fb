// Public entry points and validation of the gated activations, RoPE and axpy.
#include "op_entry.h"

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

opkit_status gated_forward(const char* op, const opkit_tensor* a, const opkit_tensor* b,
                           const opkit_tensor* y, opkit_device* dev) {
    DType dt;
    OPKIT_TRY(first_float(op, a, "a", &dt));
    OPKIT_TRY(like(op, b, "b", a, "a", dt));
    OPKIT_TRY(like(op, y, "y", a, "a", dt));
    OPKIT_TRY(v::one_device(op, {{a, "a"}, {b, "b"}, {y, "y"}}, dev));
    return v::no_overlap(op, {{y, "y"}}, {{a, "a"}, {b, "b"}});
}

opkit_status gated_backward(const char* op, const opkit_tensor* dy, const opkit_tensor* a,
                            const opkit_tensor* b, const opkit_tensor* da, const opkit_tensor* db,
                            opkit_device* dev) {
    DType dt;
    OPKIT_TRY(first_float(op, a, "a", &dt));
    OPKIT_TRY(like(op, b, "b", a, "a", dt));
    OPKIT_TRY(like(op, dy, "dy", a, "a", dt));
    OPKIT_TRY(like(op, da, "da", a, "a", dt));
    OPKIT_TRY(like(op, db, "db", a, "a", dt));
    OPKIT_TRY(v::one_device(op, {{dy, "dy"}, {a, "a"}, {b, "b"}, {da, "da"}, {db, "db"}}, dev));
    return v::no_overlap(op, {{da, "da"}, {db, "db"}}, {{dy, "dy"}, {a, "a"}, {b, "b"}},
                         {{da, a}, {da, dy}, {db, b}, {db, dy}});
}

// x [B,T,H,D] with D even; cos/sin [T,D] or [B,T,D] in x's dtype.
opkit_status rope_call(const char* op, const opkit_tensor* x, const char* xname,
                       const opkit_tensor* cos, const opkit_tensor* sin, const opkit_tensor* y,
                       const char* yname, opkit_device* dev) {
    DType dt;
    OPKIT_TRY(first_float(op, x, xname, &dt));
    OPKIT_TRY(v::ndim(op, x, xname, 4));
    const int64_t B = x->shape[0], T = x->shape[1], D = x->shape[3];
    if (D % 2 != 0)
        return fail(OPKIT_ERROR_INVALID_ARGUMENT,
                    "%s: head dimension D = %lld of %s is odd; rotate-half needs an even D", op,
                    (long long)D, xname);
    for (const auto& [t, name] : {std::pair{cos, "cos"}, std::pair{sin, "sin"}}) {
        OPKIT_TRY(v::required(op, t, name));
        OPKIT_TRY(v::same_dtype(op, t, name, dt, xname));
        if (t->ndim == 3)
            OPKIT_TRY(v::shape(op, t, name, {B, T, D}));
        else
            OPKIT_TRY(v::shape(op, t, name, {T, D}));
    }
    OPKIT_TRY(like(op, y, yname, x, xname, dt));
    OPKIT_TRY(v::one_device(op, {{x, xname}, {cos, "cos"}, {sin, "sin"}, {y, yname}}, dev));
    return v::no_overlap(op, {{y, yname}}, {{x, xname}, {cos, "cos"}, {sin, "sin"}}, {{y, x}});
}

}  // namespace

extern "C" OPKIT_API opkit_status opkit_swiglu_forward(const opkit_tensor* a, const opkit_tensor* b,
                                                       opkit_tensor* y, opkit_stream stream) {
    return run_op<OpId::swiglu_forward>(
        [&](opkit_device* dev) { return gated_forward("swiglu_forward", a, b, y, dev); }, a, b, y,
        stream);
}

extern "C" OPKIT_API opkit_status opkit_swiglu_backward(const opkit_tensor* dy, const opkit_tensor* a,
                                                        const opkit_tensor* b, opkit_tensor* da,
                                                        opkit_tensor* db, opkit_stream stream) {
    return run_op<OpId::swiglu_backward>(
        [&](opkit_device* dev) { return gated_backward("swiglu_backward", dy, a, b, da, db, dev); },
        dy, a, b, da, db, stream);
}

extern "C" OPKIT_API opkit_status opkit_geglu_forward(const opkit_tensor* a, const opkit_tensor* b,
                                                      int32_t approximate, opkit_tensor* y,
                                                      opkit_stream stream) {
    return run_op<OpId::geglu_forward>(
        [&](opkit_device* dev) -> opkit_status {
            OPKIT_TRY(check_approximate("geglu_forward", approximate));
            return gated_forward("geglu_forward", a, b, y, dev);
        },
        a, b, approximate, y, stream);
}

extern "C" OPKIT_API opkit_status opkit_geglu_backward(const opkit_tensor* dy, const opkit_tensor* a,
                                                       const opkit_tensor* b, int32_t approximate,
                                                       opkit_tensor* da, opkit_tensor* db,
                                                       opkit_stream stream) {
    return run_op<OpId::geglu_backward>(
        [&](opkit_device* dev) -> opkit_status {
            OPKIT_TRY(check_approximate("geglu_backward", approximate));
            return gated_backward("geglu_backward", dy, a, b, da, db, dev);
        },
        dy, a, b, approximate, da, db, stream);
}

extern "C" OPKIT_API opkit_status opkit_rope_forward(const opkit_tensor* x, const opkit_tensor* cos,
                                                     const opkit_tensor* sin, opkit_tensor* y,
                                                     opkit_stream stream) {
    return run_op<OpId::rope_forward>(
        [&](opkit_device* dev) { return rope_call("rope_forward", x, "x", cos, sin, y, "y", dev); },
        x, cos, sin, y, stream);
}

extern "C" OPKIT_API opkit_status opkit_rope_backward(const opkit_tensor* dy, const opkit_tensor* cos,
                                                      const opkit_tensor* sin, opkit_tensor* dx,
                                                      opkit_stream stream) {
    return run_op<OpId::rope_backward>(
        [&](opkit_device* dev) { return rope_call("rope_backward", dy, "dy", cos, sin, dx, "dx", dev); },
        dy, cos, sin, dx, stream);
}

extern "C" OPKIT_API opkit_status opkit_axpy(float alpha, const opkit_tensor* x, opkit_tensor* y,
                                             opkit_stream stream) {
    const char* op = "axpy";
    return run_op<OpId::axpy>(
        [&](opkit_device* dev) -> opkit_status {
            DType dt;
            OPKIT_TRY(first_float(op, x, "x", &dt));
            if (!std::isfinite(alpha))
                return fail(OPKIT_ERROR_INVALID_ARGUMENT, "%s: alpha is not finite", op);
            OPKIT_TRY(like(op, y, "y", x, "x", dt));
            OPKIT_TRY(v::one_device(op, {{x, "x"}, {y, "y"}}, dev));
            return v::no_overlap(op, {{y, "y"}}, {{x, "x"}});
        },
        alpha, x, y, stream);
}
