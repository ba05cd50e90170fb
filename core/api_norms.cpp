// Public entry points and validation of the normalization and softmax ops.
#include "op_entry.h"

#include <cmath>

using namespace opkit;
namespace v = opkit::validate;

namespace {

opkit_status check_eps(const char* op, float eps) {
    if (!(eps >= 0.0f) || !std::isfinite(eps))
        return fail(OPKIT_ERROR_INVALID_ARGUMENT, "%s: eps is %g; it must be finite and >= 0", op,
                    double(eps));
    return OPKIT_OK;
}

// x [..., N] plus an optional [N] parameter and optional fp32 [rows] statistics.
opkit_status check_row_op(const char* op, const opkit_tensor* x, const char* xname, DType* dt) {
    OPKIT_TRY(v::required(op, x, xname));
    OPKIT_TRY(v::min_ndim(op, x, xname, 1));
    return v::float_dtype(op, x, xname, dt);
}

opkit_status check_like(const char* op, const opkit_tensor* t, const char* name,
                        const opkit_tensor* ref, const char* ref_name, DType dt, bool required) {
    if (!t) return required ? fail(OPKIT_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", op, name) : OPKIT_OK;
    OPKIT_TRY(v::well_formed(op, t, name));
    OPKIT_TRY(v::same_dtype(op, t, name, dt, ref_name));
    return v::same_shape(op, t, name, ref, ref_name);
}

opkit_status check_param(const char* op, const opkit_tensor* t, const char* name, int64_t n,
                         DType dt, const char* ref_name) {
    if (!t) return OPKIT_OK;
    OPKIT_TRY(v::well_formed(op, t, name));
    OPKIT_TRY(v::same_dtype(op, t, name, dt, ref_name));
    return v::vector_of(op, t, name, n);
}

opkit_status check_stat(const char* op, const opkit_tensor* t, const char* name, int64_t rows,
                        bool required) {
    if (!t) return required ? fail(OPKIT_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", op, name) : OPKIT_OK;
    OPKIT_TRY(v::well_formed(op, t, name));
    OPKIT_TRY(v::fp32(op, t, name));
    return v::vector_of(op, t, name, rows);
}

}  // namespace

extern "C" OPKIT_API opkit_status opkit_rms_norm_forward(const opkit_tensor* x,
                                                         const opkit_tensor* weight, float eps,
                                                         float weight_offset, opkit_tensor* y,
                                                         opkit_tensor* rstd, opkit_stream stream) {
    const char* op = "rms_norm_forward";
    return run_op<OpId::rms_norm_forward>(
        [&](opkit_device* dev) -> opkit_status {
            DType dt;
            OPKIT_TRY(check_row_op(op, x, "x", &dt));
            OPKIT_TRY(check_eps(op, eps));
            if (!std::isfinite(weight_offset))
                return fail(OPKIT_ERROR_INVALID_ARGUMENT, "%s: weight_offset is not finite", op);
            OPKIT_TRY(check_param(op, weight, "weight", last_dim(x), dt, "x"));
            OPKIT_TRY(check_like(op, y, "y", x, "x", dt, true));
            OPKIT_TRY(check_stat(op, rstd, "rstd", row_count(x), false));
            OPKIT_TRY(v::one_device(op, {{x, "x"}, {weight, "weight"}, {y, "y"}, {rstd, "rstd"}}, dev));
            return v::no_overlap(op, {{y, "y"}, {rstd, "rstd"}}, {{x, "x"}, {weight, "weight"}},
                                 {{y, x}});
        },
        x, weight, eps, weight_offset, y, rstd, stream);
}

extern "C" OPKIT_API opkit_status opkit_rms_norm_backward(
    const opkit_tensor* dy, const opkit_tensor* x, const opkit_tensor* weight,
    const opkit_tensor* rstd, float weight_offset, opkit_tensor* dx, opkit_tensor* dweight,
    opkit_stream stream) {
    const char* op = "rms_norm_backward";
    return run_op<OpId::rms_norm_backward>(
        [&](opkit_device* dev) -> opkit_status {
            DType dt;
            OPKIT_TRY(check_row_op(op, x, "x", &dt));
            OPKIT_TRY(check_like(op, dy, "dy", x, "x", dt, true));
            if (!std::isfinite(weight_offset))
                return fail(OPKIT_ERROR_INVALID_ARGUMENT, "%s: weight_offset is not finite", op);
            OPKIT_TRY(check_param(op, weight, "weight", last_dim(x), dt, "x"));
            OPKIT_TRY(check_stat(op, rstd, "rstd", row_count(x), true));
            OPKIT_TRY(check_like(op, dx, "dx", x, "x", dt, true));
            if (dweight && !weight)
                return fail(OPKIT_ERROR_INVALID_ARGUMENT,
                            "%s: dweight is given but weight is NULL (no weight, no gradient)", op);
            OPKIT_TRY(check_param(op, dweight, "dweight", last_dim(x), dt, "x"));
            OPKIT_TRY(v::one_device(op, {{dy, "dy"}, {x, "x"}, {weight, "weight"}, {rstd, "rstd"},
                                         {dx, "dx"}, {dweight, "dweight"}}, dev));
            return v::no_overlap(op, {{dx, "dx"}, {dweight, "dweight"}},
                                 {{dy, "dy"}, {x, "x"}, {weight, "weight"}, {rstd, "rstd"}},
                                 {{dx, dy}});
        },
        dy, x, weight, rstd, weight_offset, dx, dweight, stream);
}

extern "C" OPKIT_API opkit_status opkit_layer_norm_forward(const opkit_tensor* x,
                                                           const opkit_tensor* weight,
                                                           const opkit_tensor* bias, float eps,
                                                           opkit_tensor* y, opkit_tensor* mean,
                                                           opkit_tensor* rstd, opkit_stream stream) {
    const char* op = "layer_norm_forward";
    return run_op<OpId::layer_norm_forward>(
        [&](opkit_device* dev) -> opkit_status {
            DType dt;
            OPKIT_TRY(check_row_op(op, x, "x", &dt));
            OPKIT_TRY(check_eps(op, eps));
            OPKIT_TRY(check_param(op, weight, "weight", last_dim(x), dt, "x"));
            OPKIT_TRY(check_param(op, bias, "bias", last_dim(x), dt, "x"));
            OPKIT_TRY(check_like(op, y, "y", x, "x", dt, true));
            OPKIT_TRY(check_stat(op, mean, "mean", row_count(x), false));
            OPKIT_TRY(check_stat(op, rstd, "rstd", row_count(x), false));
            OPKIT_TRY(v::one_device(op, {{x, "x"}, {weight, "weight"}, {bias, "bias"}, {y, "y"},
                                         {mean, "mean"}, {rstd, "rstd"}}, dev));
            return v::no_overlap(op, {{y, "y"}, {mean, "mean"}, {rstd, "rstd"}},
                                 {{x, "x"}, {weight, "weight"}, {bias, "bias"}}, {{y, x}});
        },
        x, weight, bias, eps, y, mean, rstd, stream);
}

extern "C" OPKIT_API opkit_status opkit_layer_norm_backward(
    const opkit_tensor* dy, const opkit_tensor* x, const opkit_tensor* weight,
    const opkit_tensor* mean, const opkit_tensor* rstd, opkit_tensor* dx, opkit_tensor* dweight,
    opkit_tensor* dbias, opkit_stream stream) {
    const char* op = "layer_norm_backward";
    return run_op<OpId::layer_norm_backward>(
        [&](opkit_device* dev) -> opkit_status {
            DType dt;
            OPKIT_TRY(check_row_op(op, x, "x", &dt));
            OPKIT_TRY(check_like(op, dy, "dy", x, "x", dt, true));
            OPKIT_TRY(check_param(op, weight, "weight", last_dim(x), dt, "x"));
            OPKIT_TRY(check_stat(op, mean, "mean", row_count(x), true));
            OPKIT_TRY(check_stat(op, rstd, "rstd", row_count(x), true));
            OPKIT_TRY(check_like(op, dx, "dx", x, "x", dt, true));
            if (dweight && !weight)
                return fail(OPKIT_ERROR_INVALID_ARGUMENT,
                            "%s: dweight is given but weight is NULL (no weight, no gradient)", op);
            OPKIT_TRY(check_param(op, dweight, "dweight", last_dim(x), dt, "x"));
            OPKIT_TRY(check_param(op, dbias, "dbias", last_dim(x), dt, "x"));
            OPKIT_TRY(v::one_device(op, {{dy, "dy"}, {x, "x"}, {weight, "weight"}, {mean, "mean"},
                                         {rstd, "rstd"}, {dx, "dx"}, {dweight, "dweight"},
                                         {dbias, "dbias"}}, dev));
            return v::no_overlap(op, {{dx, "dx"}, {dweight, "dweight"}, {dbias, "dbias"}},
                                 {{dy, "dy"}, {x, "x"}, {weight, "weight"}, {mean, "mean"},
                                  {rstd, "rstd"}},
                                 {{dx, dy}});
        },
        dy, x, weight, mean, rstd, dx, dweight, dbias, stream);
}

extern "C" OPKIT_API opkit_status opkit_softmax_forward(const opkit_tensor* x, opkit_tensor* y,
                                                        opkit_stream stream) {
    const char* op = "softmax_forward";
    return run_op<OpId::softmax_forward>(
        [&](opkit_device* dev) -> opkit_status {
            DType dt;
            OPKIT_TRY(check_row_op(op, x, "x", &dt));
            OPKIT_TRY(check_like(op, y, "y", x, "x", dt, true));
            OPKIT_TRY(v::one_device(op, {{x, "x"}, {y, "y"}}, dev));
            return v::no_overlap(op, {{y, "y"}}, {{x, "x"}}, {{y, x}});
        },
        x, y, stream);
}

extern "C" OPKIT_API opkit_status opkit_softmax_backward(const opkit_tensor* dy,
                                                         const opkit_tensor* y, opkit_tensor* dx,
                                                         opkit_stream stream) {
    const char* op = "softmax_backward";
    return run_op<OpId::softmax_backward>(
        [&](opkit_device* dev) -> opkit_status {
            DType dt;
            OPKIT_TRY(check_row_op(op, y, "y", &dt));
            OPKIT_TRY(check_like(op, dy, "dy", y, "y", dt, true));
            OPKIT_TRY(check_like(op, dx, "dx", y, "y", dt, true));
            OPKIT_TRY(v::one_device(op, {{dy, "dy"}, {y, "y"}, {dx, "dx"}}, dev));
            return v::no_overlap(op, {{dx, "dx"}}, {{dy, "dy"}, {y, "y"}}, {{dx, dy}, {dx, y}});
        },
        dy, y, dx, stream);
}
