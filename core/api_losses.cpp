// Public entry points and validation of cross-entropy and embedding.
#include "op_entry.h"

#include <cinttypes>
#include <cmath>

using namespace opkit;
namespace v = opkit::validate;

namespace {

opkit_status check_reduction(const char* op, int32_t reduction) {
    if (reduction >= OPKIT_REDUCTION_NONE && reduction <= OPKIT_REDUCTION_SUM) return OPKIT_OK;
    return fail(OPKIT_ERROR_INVALID_ARGUMENT,
                "%s: reduction is %d; expected OPKIT_REDUCTION_NONE (0), _MEAN (1) or _SUM (2)", op,
                int(reduction));
}

opkit_status check_smoothing(const char* op, float s) {
    if (s >= 0.0f && s <= 1.0f) return OPKIT_OK;
    return fail(OPKIT_ERROR_INVALID_ARGUMENT, "%s: label_smoothing is %g; expected 0 <= it <= 1",
                op, double(s));
}

// logits [rows, V] float and target [rows] int.
opkit_status check_logits_target(const char* op, const opkit_tensor* logits,
                                 const opkit_tensor* target, DType* dt) {
    OPKIT_TRY(v::required(op, logits, "logits"));
    OPKIT_TRY(v::float_dtype(op, logits, "logits", dt));
    OPKIT_TRY(v::ndim(op, logits, "logits", 2));
    if (logits->shape[1] == 0 && logits->shape[0] > 0)
        return fail(OPKIT_ERROR_INVALID_ARGUMENT, "%s: logits has shape %s; V must be at least 1",
                    op, v::shape_string(logits));
    OPKIT_TRY(v::required(op, target, "target"));
    OPKIT_TRY(v::index_dtype(op, target, "target"));
    return v::vector_of(op, target, "target", logits->shape[0]);
}

opkit_status check_fp32_shape(const char* op, const opkit_tensor* t, const char* name,
                              bool per_row, int64_t rows) {
    OPKIT_TRY(v::well_formed(op, t, name));
    OPKIT_TRY(v::fp32(op, t, name));
    return per_row ? v::vector_of(op, t, name, rows) : v::shape(op, t, name, {});
}

opkit_status check_grad_like(const char* op, const opkit_tensor* g, const char* name,
                             const opkit_tensor* ref, const char* ref_name, DType dt) {
    OPKIT_TRY(v::well_formed(op, g, name));
    OPKIT_TRY(v::same_dtype(op, g, name, dt, ref_name));
    return v::same_shape(op, g, name, ref, ref_name);
}

// y / dy of an embedding: ids.shape + [D].
opkit_status check_embedded(const char* op, const opkit_tensor* t, const char* name,
                            const opkit_tensor* ids, int64_t D) {
    bool ok = t->ndim == ids->ndim + 1 && t->shape[t->ndim - 1] == D;
    for (int32_t i = 0; ok && i < ids->ndim; ++i) ok = t->shape[i] == ids->shape[i];
    if (ok) return OPKIT_OK;
    return fail(OPKIT_ERROR_INVALID_ARGUMENT, "%s: %s has shape %s; expected ids' shape %s plus [%" PRId64 "]",
                op, name, v::shape_string(t), v::shape_string(ids), D);
}

opkit_status check_table(const char* op, const opkit_tensor* w, const char* name, DType* dt) {
    OPKIT_TRY(v::required(op, w, name));
    OPKIT_TRY(v::float_dtype(op, w, name, dt));
    return v::ndim(op, w, name, 2);
}

opkit_status check_ids(const char* op, const opkit_tensor* ids) {
    OPKIT_TRY(v::required(op, ids, "ids"));
    OPKIT_TRY(v::index_dtype(op, ids, "ids"));
    if (ids->ndim >= kMaxDims)
        return fail(OPKIT_ERROR_UNSUPPORTED, "%s: ids has %d dimensions; at most %d are supported",
                    op, int(ids->ndim), int(kMaxDims - 1));
    return OPKIT_OK;
}

}  // namespace

extern "C" OPKIT_API opkit_status opkit_cross_entropy_forward(
    const opkit_tensor* logits, const opkit_tensor* target, int64_t ignore_index,
    float label_smoothing, int32_t reduction, opkit_tensor* loss, opkit_tensor* lse,
    opkit_tensor* dlogits, opkit_stream stream) {
    const char* op = "cross_entropy_forward";
    return run_op<OpId::cross_entropy_forward>(
        [&](opkit_device* dev) -> opkit_status {
            DType dt;
            OPKIT_TRY(check_logits_target(op, logits, target, &dt));
            OPKIT_TRY(check_reduction(op, reduction));
            OPKIT_TRY(check_smoothing(op, label_smoothing));
            const int64_t rows = logits->shape[0];
            if (loss) OPKIT_TRY(check_fp32_shape(op, loss, "loss", reduction == OPKIT_REDUCTION_NONE, rows));
            if (lse) OPKIT_TRY(check_fp32_shape(op, lse, "lse", true, rows));
            if (dlogits) OPKIT_TRY(check_grad_like(op, dlogits, "dlogits", logits, "logits", dt));
            OPKIT_TRY(v::one_device(op, {{logits, "logits"}, {target, "target"}, {loss, "loss"},
                                         {lse, "lse"}, {dlogits, "dlogits"}}, dev));
            return v::no_overlap(op, {{loss, "loss"}, {lse, "lse"}, {dlogits, "dlogits"}},
                                 {{logits, "logits"}, {target, "target"}}, {{dlogits, logits}});
        },
        logits, target, ignore_index, label_smoothing, reduction, loss, lse, dlogits, stream);
}

extern "C" OPKIT_API opkit_status opkit_cross_entropy_backward(
    const opkit_tensor* dloss, const opkit_tensor* logits, const opkit_tensor* target,
    const opkit_tensor* lse, int64_t ignore_index, float label_smoothing, int32_t reduction,
    opkit_tensor* dlogits, opkit_stream stream) {
    const char* op = "cross_entropy_backward";
    return run_op<OpId::cross_entropy_backward>(
        [&](opkit_device* dev) -> opkit_status {
            DType dt;
            OPKIT_TRY(check_logits_target(op, logits, target, &dt));
            OPKIT_TRY(check_reduction(op, reduction));
            OPKIT_TRY(check_smoothing(op, label_smoothing));
            const int64_t rows = logits->shape[0];
            OPKIT_TRY(v::required(op, dloss, "dloss"));
            OPKIT_TRY(check_fp32_shape(op, dloss, "dloss", reduction == OPKIT_REDUCTION_NONE, rows));
            if (lse) OPKIT_TRY(check_fp32_shape(op, lse, "lse", true, rows));
            OPKIT_TRY(v::required(op, dlogits, "dlogits"));
            OPKIT_TRY(check_grad_like(op, dlogits, "dlogits", logits, "logits", dt));
            OPKIT_TRY(v::one_device(op, {{dloss, "dloss"}, {logits, "logits"}, {target, "target"},
                                         {lse, "lse"}, {dlogits, "dlogits"}}, dev));
            return v::no_overlap(op, {{dlogits, "dlogits"}},
                                 {{dloss, "dloss"}, {logits, "logits"}, {target, "target"}, {lse, "lse"}},
                                 {{dlogits, logits}});
        },
        dloss, logits, target, lse, ignore_index, label_smoothing, reduction, dlogits, stream);
}

extern "C" OPKIT_API opkit_status opkit_embedding_forward(const opkit_tensor* weight,
                                                          const opkit_tensor* ids, opkit_tensor* y,
                                                          opkit_stream stream) {
    const char* op = "embedding_forward";
    return run_op<OpId::embedding_forward>(
        [&](opkit_device* dev) -> opkit_status {
            DType dt;
            OPKIT_TRY(check_table(op, weight, "weight", &dt));
            OPKIT_TRY(check_ids(op, ids));
            OPKIT_TRY(v::required(op, y, "y"));
            OPKIT_TRY(v::same_dtype(op, y, "y", dt, "weight"));
            OPKIT_TRY(check_embedded(op, y, "y", ids, weight->shape[1]));
            OPKIT_TRY(v::one_device(op, {{weight, "weight"}, {ids, "ids"}, {y, "y"}}, dev));
            return v::no_overlap(op, {{y, "y"}}, {{weight, "weight"}, {ids, "ids"}});
        },
        weight, ids, y, stream);
}

extern "C" OPKIT_API opkit_status opkit_embedding_backward(const opkit_tensor* dy,
                                                           const opkit_tensor* ids,
                                                           int64_t padding_idx,
                                                           opkit_tensor* dweight,
                                                           opkit_stream stream) {
    const char* op = "embedding_backward";
    return run_op<OpId::embedding_backward>(
        [&](opkit_device* dev) -> opkit_status {
            DType dt;
            OPKIT_TRY(check_table(op, dweight, "dweight", &dt));
            OPKIT_TRY(check_ids(op, ids));
            OPKIT_TRY(v::required(op, dy, "dy"));
            OPKIT_TRY(v::same_dtype(op, dy, "dy", dt, "dweight"));
            OPKIT_TRY(check_embedded(op, dy, "dy", ids, dweight->shape[1]));
            if (padding_idx < -1 || padding_idx >= dweight->shape[0])
                return fail(OPKIT_ERROR_INVALID_ARGUMENT,
                            "%s: padding_idx is %" PRId64 "; expected -1 (none) or an id in [0, %" PRId64 ")",
                            op, padding_idx, dweight->shape[0]);
            OPKIT_TRY(v::one_device(op, {{dy, "dy"}, {ids, "ids"}, {dweight, "dweight"}}, dev));
            return v::no_overlap(op, {{dweight, "dweight"}}, {{dy, "dy"}, {ids, "ids"}});
        },
        dy, ids, padding_idx, dweight, stream);
}
