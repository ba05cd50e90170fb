// Validation of matmul (validate_ops.h).
#include "validate_ops.h"

#include <cinttypes>
#include <cmath>

using namespace opkit;
namespace v = opkit::validate;

opkit_status opkit::validate_op(const args::matmul& a, opkit_device* dev) {
    const char* op = "matmul";
    DType dt;
    OPKIT_TRY(v::required(op, a.a, "a"));
    OPKIT_TRY(v::float_dtype(op, a.a, "a", &dt));
    OPKIT_TRY(v::required(op, a.b, "b"));
    OPKIT_TRY(v::same_dtype(op, a.b, "b", dt, "a"));
    OPKIT_TRY(v::required(op, a.c, "c"));
    OPKIT_TRY(v::same_dtype(op, a.c, "c", dt, "a"));
    if ((a.trans_a != 0 && a.trans_a != 1) || (a.trans_b != 0 && a.trans_b != 1))
        return fail(OPKIT_ERROR_INVALID_ARGUMENT,
                    "%s: trans_a is %d and trans_b is %d; each must be 0 or 1", op,
                    int(a.trans_a), int(a.trans_b));
    if (!std::isfinite(a.alpha) || !std::isfinite(a.beta))
        return fail(OPKIT_ERROR_INVALID_ARGUMENT, "%s: alpha and beta must be finite", op);
    if (a.a->ndim != a.c->ndim || a.b->ndim != a.c->ndim || (a.c->ndim != 2 && a.c->ndim != 3))
        return fail(OPKIT_ERROR_INVALID_ARGUMENT,
                    "%s: a, b and c have %d, %d and %d dimensions; expected all 2 or all 3",
                    op, int(a.a->ndim), int(a.b->ndim), int(a.c->ndim));
    const int32_t o = a.c->ndim - 2;  // first matrix dimension
    const int64_t M = a.trans_a ? a.a->shape[o + 1] : a.a->shape[o];
    const int64_t Ka = a.trans_a ? a.a->shape[o] : a.a->shape[o + 1];
    const int64_t Kb = a.trans_b ? a.b->shape[o + 1] : a.b->shape[o];
    const int64_t N = a.trans_b ? a.b->shape[o] : a.b->shape[o + 1];
    if (Ka != Kb || a.c->shape[o] != M || a.c->shape[o + 1] != N)
        return fail(OPKIT_ERROR_INVALID_ARGUMENT,
                    "%s: shapes don't chain: op(a) is [%" PRId64 ", %" PRId64 "], op(b) is [%" PRId64
                    ", %" PRId64 "], c is %s (a %s, b %s, trans_a %d, trans_b %d)",
                    op, M, Ka, Kb, N, v::shape_string(a.c), v::shape_string(a.a),
                    v::shape_string(a.b), int(a.trans_a), int(a.trans_b));
    if (o == 1) {
        const int64_t batch = a.c->shape[0];
        for (const auto& [t, name] : {std::pair{a.a, "a"}, std::pair{a.b, "b"}})
            if (t->shape[0] != batch && t->shape[0] != 1)
                return fail(OPKIT_ERROR_INVALID_ARGUMENT,
                            "%s: %s has batch %" PRId64 " but c has batch %" PRId64
                            "; a batch must equal c's or be 1 (broadcast)",
                            op, name, t->shape[0], batch);
    }
    OPKIT_TRY(v::same_device(op, a, dev));
    return v::no_overlap(op, a);
}
