// Validation of the normalization and softmax ops.
#include "validate_ops.h"

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

opkit_status opkit::validate_op(const args::rms_norm_forward& a, opkit_device* dev) {
    const char* op = "rms_norm_forward";
    DType dt;
    OPKIT_TRY(check_row_op(op, a.x, "x", &dt));
    OPKIT_TRY(check_eps(op, a.eps));
    if (!std::isfinite(a.weight_offset))
        return fail(OPKIT_ERROR_INVALID_ARGUMENT, "%s: weight_offset is not finite", op);
    OPKIT_TRY(check_param(op, a.weight, "weight", last_dim(a.x), dt, "x"));
    OPKIT_TRY(check_like(op, a.y, "y", a.x, "x", dt, true));
    OPKIT_TRY(check_stat(op, a.rstd, "rstd", row_count(a.x), false));
    OPKIT_TRY(v::same_device(op, a, dev));
    return v::no_overlap(op, a, {{a.y, a.x}});
}

opkit_status opkit::validate_op(const args::rms_norm_backward& a, opkit_device* dev) {
    const char* op = "rms_norm_backward";
    DType dt;
    OPKIT_TRY(check_row_op(op, a.x, "x", &dt));
    OPKIT_TRY(check_like(op, a.dy, "dy", a.x, "x", dt, true));
    if (!std::isfinite(a.weight_offset))
        return fail(OPKIT_ERROR_INVALID_ARGUMENT, "%s: weight_offset is not finite", op);
    OPKIT_TRY(check_param(op, a.weight, "weight", last_dim(a.x), dt, "x"));
    OPKIT_TRY(check_stat(op, a.rstd, "rstd", row_count(a.x), true));
    OPKIT_TRY(check_like(op, a.dx, "dx", a.x, "x", dt, true));
    if (a.dweight && !a.weight)
        return fail(OPKIT_ERROR_INVALID_ARGUMENT,
                    "%s: dweight is given but weight is NULL (no weight, no gradient)", op);
    OPKIT_TRY(check_param(op, a.dweight, "dweight", last_dim(a.x), dt, "x"));
    OPKIT_TRY(v::same_device(op, a, dev));
    return v::no_overlap(op, a, {{a.dx, a.dy}});
}

opkit_status opkit::validate_op(const args::layer_norm_forward& a, opkit_device* dev) {
    const char* op = "layer_norm_forward";
    DType dt;
    OPKIT_TRY(check_row_op(op, a.x, "x", &dt));
    OPKIT_TRY(check_eps(op, a.eps));
    OPKIT_TRY(check_param(op, a.weight, "weight", last_dim(a.x), dt, "x"));
    OPKIT_TRY(check_param(op, a.bias, "bias", last_dim(a.x), dt, "x"));
    OPKIT_TRY(check_like(op, a.y, "y", a.x, "x", dt, true));
    OPKIT_TRY(check_stat(op, a.mean, "mean", row_count(a.x), false));
    OPKIT_TRY(check_stat(op, a.rstd, "rstd", row_count(a.x), false));
    OPKIT_TRY(v::same_device(op, a, dev));
    return v::no_overlap(op, a, {{a.y, a.x}});
}

opkit_status opkit::validate_op(const args::layer_norm_backward& a, opkit_device* dev) {
    const char* op = "layer_norm_backward";
    DType dt;
    OPKIT_TRY(check_row_op(op, a.x, "x", &dt));
    OPKIT_TRY(check_like(op, a.dy, "dy", a.x, "x", dt, true));
    OPKIT_TRY(check_param(op, a.weight, "weight", last_dim(a.x), dt, "x"));
    OPKIT_TRY(check_stat(op, a.mean, "mean", row_count(a.x), true));
    OPKIT_TRY(check_stat(op, a.rstd, "rstd", row_count(a.x), true));
    OPKIT_TRY(check_like(op, a.dx, "dx", a.x, "x", dt, true));
    if (a.dweight && !a.weight)
        return fail(OPKIT_ERROR_INVALID_ARGUMENT,
                    "%s: dweight is given but weight is NULL (no weight, no gradient)", op);
    OPKIT_TRY(check_param(op, a.dweight, "dweight", last_dim(a.x), dt, "x"));
    OPKIT_TRY(check_param(op, a.dbias, "dbias", last_dim(a.x), dt, "x"));
    OPKIT_TRY(v::same_device(op, a, dev));
    return v::no_overlap(op, a, {{a.dx, a.dy}});
}

opkit_status opkit::validate_op(const args::softmax_forward& a, opkit_device* dev) {
    const char* op = "softmax_forward";
    DType dt;
    OPKIT_TRY(check_row_op(op, a.x, "x", &dt));
    OPKIT_TRY(check_like(op, a.y, "y", a.x, "x", dt, true));
    OPKIT_TRY(v::same_device(op, a, dev));
    return v::no_overlap(op, a, {{a.y, a.x}});
}

opkit_status opkit::validate_op(const args::softmax_backward& a, opkit_device* dev) {
    const char* op = "softmax_backward";
    DType dt;
    OPKIT_TRY(check_row_op(op, a.y, "y", &dt));
    OPKIT_TRY(check_like(op, a.dy, "dy", a.y, "y", dt, true));
    OPKIT_TRY(check_like(op, a.dx, "dx", a.y, "y", dt, true));
    OPKIT_TRY(v::same_device(op, a, dev));
    return v::no_overlap(op, a, {{a.dx, a.dy}, {a.dx, a.y}});
}
