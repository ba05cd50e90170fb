// Cross-entropy over logits [rows, V] with ignore_index, label smoothing and the three
// reductions, matching F.cross_entropy. The forward can also write the gradient for an
// upstream gradient of 1 (in place over the logits, as Liger does).
#include "../error.h"
#include "convert.h"
#include "kernels.h"
#include "rows.h"
#include "vec_act.h"
#include "vec_math.h"

#include <cinttypes>
#include <cmath>
#include <cstring>
#include <vector>

namespace opkit::cpu {
namespace {

struct Targets {
    std::vector<int64_t> value;  // per row; ignored rows hold -1
    int64_t valid = 0;
};

// Reads every target before any output is written, so a bad one changes nothing.
opkit_status read_targets(const opkit_tensor* target, int64_t rows, int64_t V, int64_t ignore_index,
                          Targets* out) {
    const DType it = dtype_of(target);
    out->value.resize(size_t(rows));
    for (int64_t r = 0; r < rows; ++r) {
        const int64_t t = load_index(it, vec_elem(target, r));
        if (t == ignore_index) {
            out->value[size_t(r)] = -1;
            continue;
        }
        if (t < 0 || t >= V)
            return fail(OPKIT_ERROR_INVALID_ARGUMENT,
                        "cross_entropy: target[%" PRId64 "] = %" PRId64 " is outside [0, %" PRId64
                        ") and is not ignore_index (%" PRId64 ")",
                        r, t, V, ignore_index);
        out->value[size_t(r)] = t;
        ++out->valid;
    }
    return OPKIT_OK;
}

// Scale of each row's gradient under the reduction (before the upstream gradient).
float reduction_scale(int32_t reduction, int64_t valid) {
    return reduction == OPKIT_REDUCTION_MEAN ? (valid > 0 ? 1.0f / float(valid) : 0.0f) : 1.0f;
}

// What the loss needs of one row: its log-sum-exp, the logit at the target (t >= 0) and,
// for label smoothing, the row's sum. f32 and bf16 rows are read where they are, f16
// through an fp32 copy; the exponentials are summed, never stored.
struct RowStats {
    float lse = 0.0f, at_target = 0.0f, sum = 0.0f;
};

// The shift of a row's exponentials: its max, or 0 for a row that is all -inf, whose lse
// is then log(0) = -inf, as PyTorch's logsumexp gives (exp(-inf - -inf) would make it NaN).
float shift_of(float max) { return max == -INFINITY ? 0.0f : max; }

RowStats row_stats(DType dt, const char* p, int64_t V, int64_t t, bool want_sum) {
    RowStats st;
    if (dt == DType::bf16) {
        const uint16_t* x = reinterpret_cast<const uint16_t*>(p);
        const float m = shift_of(vec::max_bf16(x, V));
        st.lse = m + std::log(vec::exp_sum_bf16(x, m, V));
        if (t >= 0) st.at_target = bf16_to_f32(x[t]);
        if (want_sum) st.sum = vec::sum_bf16(x, V);
        return st;
    }
    const float* x = reinterpret_cast<const float*>(p);
    if (dt != DType::f32) {
        float* copy = scratch(0, V);
        load_f32(dt, p, copy, V);
        x = copy;
    }
    const float m = shift_of(vec::max(x, V));
    st.lse = m + std::log(vec::exp_sum(x, m, V));
    if (t >= 0) st.at_target = x[t];
    if (want_sum) st.sum = vec::sum(x, V);
    return st;
}

// Writes (softmax(x) - (1-eps)*onehot(t) - eps/V) * scale in the logits' type to out,
// which may be x itself; zeros for an ignored row (t < 0). f32 and bf16 rows go from x to
// out directly, f16 ones through an fp32 row.
void write_gradient(DType dt, const char* x, float lse, int64_t t, float eps, int64_t V, float scale, char* out) {
    if (t < 0) {
        std::memset(out, 0, size_t(V) * dtype_size(dt));  // +0 is all zero bits in every float type
        return;
    }
    const float smooth = eps / float(V), hit = (1.0f - eps) * scale;
    if (dt == DType::f32) {
        vec::softmax_minus(reinterpret_cast<const float*>(x), lse, smooth, scale, t, hit, reinterpret_cast<float*>(out),
                           V);
    } else if (dt == DType::bf16) {
        vec::softmax_minus_bf16(reinterpret_cast<const uint16_t*>(x), lse, smooth, scale, t, hit,
                                reinterpret_cast<uint16_t*>(out), V);
    } else {
        float* row = scratch(0, V);
        load_f32(dt, x, row, V);
        vec::softmax_minus(row, lse, smooth, scale, t, hit, row, V);
        store_f32(dt, row, out, V);
    }
}

}  // namespace

opkit_status cross_entropy_forward(const args::cross_entropy_forward& args) {
    const RowView lv(args.logits);
    const int64_t rows = lv.rows(), V = lv.n();
    const DType dt = lv.dtype();
    Targets tg;
    OPKIT_TRY(read_targets(args.target, rows, V, args.ignore_index, &tg));
    const float scale = reduction_scale(args.reduction, tg.valid);
    const float eps = args.label_smoothing;
    std::vector<float> row_loss(size_t(rows), 0.0f);
    const RowView gv = args.dlogits ? RowView(args.dlogits) : RowView();
    for_each_row(rows, V, [&](int64_t r) {
        const int64_t t = tg.value[size_t(r)];
        const RowStats st = row_stats(dt, lv.row(r), V, t, t >= 0 && eps > 0.0f);
        if (args.lse) *reinterpret_cast<float*>(vec_elem(args.lse, r)) = st.lse;
        if (t >= 0) {
            const float smooth = eps > 0.0f ? eps / float(V) * st.sum : 0.0f;
            row_loss[size_t(r)] = st.lse - (1.0f - eps) * st.at_target - smooth;
        }
        if (args.dlogits) write_gradient(dt, lv.row(r), st.lse, t, eps, V, scale, gv.row(r));
    });
    if (args.loss) {
        if (args.reduction == OPKIT_REDUCTION_NONE) {
            for (int64_t r = 0; r < rows; ++r) *reinterpret_cast<float*>(vec_elem(args.loss, r)) = row_loss[size_t(r)];
        } else {
            double total = 0.0;  // fixed order, double accumulator: deterministic and exact enough
            for (float v : row_loss) total += double(v);
            if (args.reduction == OPKIT_REDUCTION_MEAN) total = tg.valid ? total / double(tg.valid) : NAN;
            *reinterpret_cast<float*>(base_ptr(args.loss)) = float(total);
        }
    }
    return OPKIT_OK;
}

opkit_status cross_entropy_backward(const args::cross_entropy_backward& args) {
    const RowView lv(args.logits), gv(args.dlogits);
    const int64_t rows = lv.rows(), V = lv.n();
    const DType dt = lv.dtype();
    Targets tg;
    OPKIT_TRY(read_targets(args.target, rows, V, args.ignore_index, &tg));
    const float scale = reduction_scale(args.reduction, tg.valid);
    const bool per_row = args.reduction == OPKIT_REDUCTION_NONE;
    const float upstream = per_row ? 0.0f : *reinterpret_cast<const float*>(base_ptr(args.dloss));
    for_each_row(rows, V, [&](int64_t r) {
        const int64_t t = tg.value[size_t(r)];
        float l = 0.0f, g = 0.0f;
        if (t >= 0) {
            l = args.lse ? *reinterpret_cast<const float*>(vec_elem(args.lse, r)) : row_stats(dt, lv.row(r), V, -1, false).lse;
            g = per_row ? *reinterpret_cast<const float*>(vec_elem(args.dloss, r)) : upstream;
        }
        write_gradient(dt, lv.row(r), l, t, args.label_smoothing, V, scale * g, gv.row(r));
    });
    return OPKIT_OK;
}

}  // namespace opkit::cpu
