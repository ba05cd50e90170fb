// LayerNorm: y = (x - mean) * rstd * weight + bias, biased variance, like PyTorch.
#include "kernels.h"
#include "norm_common.h"
#include "vec_math.h"

#include <cmath>

namespace opkit::cpu {

opkit_status layer_norm_forward(const args::layer_norm_forward& args) {
    const RowView xv(args.x), yv(args.y);
    const int64_t n = xv.n();
    const DType dt = xv.dtype();
    const std::vector<float> w = load_param(args.weight, n, 0.0f, 1.0f);
    const std::vector<float> b = load_param(args.bias, n, 0.0f, 0.0f);
    if (dt == DType::bf16) {  // three passes over the bf16 row, no fp32 copy (same results)
        for_each_row(xv.rows(), n, [&](int64_t r) {
            const uint16_t* x = reinterpret_cast<const uint16_t*>(xv.row(r));
            const float mu = n ? vec::sum_bf16(x, n) / float(n) : 0.0f;
            const float inv = 1.0f / std::sqrt((n ? vec::centered_sum_squares_bf16(x, mu, n) / float(n) : 0.0f) + args.eps);
            vec::normalize_bf16(x, mu, inv, w.data(), b.data(), reinterpret_cast<uint16_t*>(yv.row(r)), n);
            if (args.mean) *reinterpret_cast<float*>(vec_elem(args.mean, r)) = mu;
            if (args.rstd) *reinterpret_cast<float*>(vec_elem(args.rstd, r)) = inv;
        });
        return OPKIT_OK;
    }
    for_each_row(xv.rows(), n, [&](int64_t r) {
        float* row = scratch(0, n);
        load_f32(dt, xv.row(r), row, n);
        const float mu = n ? vec::sum(row, n) / float(n) : 0.0f;
        vec::shift_scale(row, mu, 1.0f, n);  // two-pass variance: no cancellation
        const float inv = 1.0f / std::sqrt((n ? vec::sum_squares(row, n) / float(n) : 0.0f) + args.eps);
        vec::scale_mul_add(row, inv, w.data(), b.data(), n);
        store_f32(dt, row, yv.row(r), n);
        if (args.mean) *reinterpret_cast<float*>(vec_elem(args.mean, r)) = mu;
        if (args.rstd) *reinterpret_cast<float*>(vec_elem(args.rstd, r)) = inv;
    });
    return OPKIT_OK;
}

opkit_status layer_norm_backward(const args::layer_norm_backward& args) {
    const RowView dyv(args.dy), xv(args.x), dxv(args.dx);
    const int64_t n = xv.n(), rows = xv.rows();
    const DType dt = xv.dtype();
    const std::vector<float> w = load_param(args.weight, n, 0.0f, 1.0f);
    // xhat = (x - mean) * rstd; g = dy * w;
    // dx = rstd * (g - mean(g) - xhat * mean(g * xhat))
    auto row_grad = [&](int64_t r, float* dw_acc, float* db_acc) {
        float* xh = scratch(0, n);
        float* g = scratch(1, n);
        load_f32(dt, xv.row(r), xh, n);
        load_f32(dt, dyv.row(r), g, n);
        const float mu = *reinterpret_cast<const float*>(vec_elem(args.mean, r));
        const float inv = *reinterpret_cast<const float*>(vec_elem(args.rstd, r));
        vec::shift_scale(xh, mu, inv, n);
        if (dw_acc) vec::mul_acc(g, xh, dw_acc, n);
        if (db_acc) vec::add(g, db_acc, n);
        vec::mul(g, w.data(), g, n);
        const float mg = vec::sum(g, n) / float(n), mgx = vec::dot(g, xh, n) / float(n);
        vec::layer_norm_grad(g, xh, inv, mg, mgx, n);
        store_f32(dt, g, dxv.row(r), n);
    };
    if (!args.dweight && !args.dbias) {
        for_each_row(rows, n, [&](int64_t r) { row_grad(r, nullptr, nullptr); });
        return OPKIT_OK;
    }
    opkit_tensor* const outs[2] = {args.dweight, args.dbias};
    reduce_rows<2>(rows, n, outs, [&](int64_t r, float* const* p) {
        row_grad(r, args.dweight ? p[0] : nullptr, args.dbias ? p[1] : nullptr);
    });
    return OPKIT_OK;
}

}  // namespace opkit::cpu
