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

// Writes (softmax(x) - (1-eps)*onehot(t) - eps/V) * scale into grad; row holds x in fp32.
void gradient_row(const float* row, float lse, int64_t t, float eps, int64_t V, float scale,
                  float* grad) {
    const float smooth = eps / float(V);
    vec::softmax_minus(row, lse, smooth, scale, grad, V);
    grad[t] -= (1.0f - eps) * scale;
}

float log_sum_exp(const float* row, int64_t V, float* tmp) {  // tmp: V floats of scratch
    const float m = vec::max(row, V);
    return m + std::log(vec::exp_shifted(row, m, tmp, V));
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
        // f32 rows are read where they are; other types through a converted copy
        float* tmp = scratch(1, V);
        const float* row = reinterpret_cast<const float*>(lv.row(r));
        if (dt != DType::f32) {
            float* copy = scratch(0, V);
            load_f32(dt, lv.row(r), copy, V);
            row = copy;
        }
        const float l = log_sum_exp(row, V, tmp);
        const int64_t t = tg.value[size_t(r)];
        if (args.lse) *reinterpret_cast<float*>(vec_elem(args.lse, r)) = l;
        if (t >= 0) {
            const float smooth = eps > 0.0f ? eps / float(V) * vec::sum(row, V) : 0.0f;
            row_loss[size_t(r)] = l - (1.0f - eps) * row[t] - smooth;
        }
        if (args.dlogits) {
            if (t >= 0) {
                gradient_row(row, l, t, eps, V, scale, tmp);
            } else {
                for (int64_t j = 0; j < V; ++j) tmp[j] = 0.0f;
            }
            store_f32(dt, tmp, gv.row(r), V);
        }
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
        float* row = scratch(0, V);
        float* tmp = scratch(1, V);
        const int64_t t = tg.value[size_t(r)];
        if (t < 0) {
            for (int64_t j = 0; j < V; ++j) tmp[j] = 0.0f;
        } else {
            load_f32(dt, lv.row(r), row, V);
            const float l = args.lse ? *reinterpret_cast<const float*>(vec_elem(args.lse, r)) : log_sum_exp(row, V, tmp);
            const float g = per_row ? *reinterpret_cast<const float*>(vec_elem(args.dloss, r)) : upstream;
            gradient_row(row, l, t, args.label_smoothing, V, scale * g, tmp);
        }
        store_f32(dt, tmp, gv.row(r), V);
    });
    return OPKIT_OK;
}

}  // namespace opkit::cpu
