// Public entry point and validation of matmul.
#include "op_entry.h"

#include <cinttypes>
#include <cmath>

using namespace opkit;
namespace v = opkit::validate;

extern "C" OPKIT_API opkit_status opkit_matmul(const opkit_tensor* a, const opkit_tensor* b,
                                               opkit_tensor* c, float alpha, float beta,
                                               int32_t trans_a, int32_t trans_b,
                                               opkit_stream stream) {
    const char* op = "matmul";
    return run_op<OpId::matmul>(
        [&](opkit_device* dev) -> opkit_status {
            DType dt;
            OPKIT_TRY(v::required(op, a, "a"));
            OPKIT_TRY(v::float_dtype(op, a, "a", &dt));
            OPKIT_TRY(v::required(op, b, "b"));
            OPKIT_TRY(v::same_dtype(op, b, "b", dt, "a"));
            OPKIT_TRY(v::required(op, c, "c"));
            OPKIT_TRY(v::same_dtype(op, c, "c", dt, "a"));
            if ((trans_a != 0 && trans_a != 1) || (trans_b != 0 && trans_b != 1))
                return fail(OPKIT_ERROR_INVALID_ARGUMENT,
                            "%s: trans_a is %d and trans_b is %d; each must be 0 or 1", op,
                            int(trans_a), int(trans_b));
            if (!std::isfinite(alpha) || !std::isfinite(beta))
                return fail(OPKIT_ERROR_INVALID_ARGUMENT, "%s: alpha and beta must be finite", op);
            if (a->ndim != c->ndim || b->ndim != c->ndim || (c->ndim != 2 && c->ndim != 3))
                return fail(OPKIT_ERROR_INVALID_ARGUMENT,
                            "%s: a, b and c have %d, %d and %d dimensions; expected all 2 or all 3",
                            op, int(a->ndim), int(b->ndim), int(c->ndim));
            const int32_t o = c->ndim - 2;  // first matrix dimension
            const int64_t M = trans_a ? a->shape[o + 1] : a->shape[o];
            const int64_t Ka = trans_a ? a->shape[o] : a->shape[o + 1];
            const int64_t Kb = trans_b ? b->shape[o + 1] : b->shape[o];
            const int64_t N = trans_b ? b->shape[o] : b->shape[o + 1];
            if (Ka != Kb || c->shape[o] != M || c->shape[o + 1] != N)
                return fail(OPKIT_ERROR_INVALID_ARGUMENT,
                            "%s: shapes don't chain: op(a) is [%" PRId64 ", %" PRId64 "], op(b) is [%" PRId64
                            ", %" PRId64 "], c is %s (a %s, b %s, trans_a %d, trans_b %d)",
                            op, M, Ka, Kb, N, v::shape_string(c), v::shape_string(a),
                            v::shape_string(b), int(trans_a), int(trans_b));
            if (o == 1) {
                const int64_t batch = c->shape[0];
                for (const auto& [t, name] : {std::pair{a, "a"}, std::pair{b, "b"}})
                    if (t->shape[0] != batch && t->shape[0] != 1)
                        return fail(OPKIT_ERROR_INVALID_ARGUMENT,
                                    "%s: %s has batch %" PRId64 " but c has batch %" PRId64
                                    "; a batch must equal c's or be 1 (broadcast)",
                                    op, name, t->shape[0], batch);
            }
            OPKIT_TRY(v::one_device(op, {{a, "a"}, {b, "b"}, {c, "c"}}, dev));
            return v::no_overlap(op, {{c, "c"}}, {{a, "a"}, {b, "b"}});
        },
        a, b, c, alpha, beta, trans_a, trans_b, stream);
}
