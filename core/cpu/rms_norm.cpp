// RMSNorm: y = x * rstd * (weight + weight_offset), rstd = 1/sqrt(mean(x^2) + eps).
#include "kernels.h"
#include "norm_common.h"
#include "vec_math.h"

#include <cmath>

namespace opkit::cpu {

opkit_status rms_norm_forward(const args::rms_norm_forward& args) {
    const RowView xv(args.x), yv(args.y);
    const int64_t n = xv.n();
    const DType dt = xv.dtype();
    const std::vector<float> w = load_param(args.weight, n, args.weight_offset, 1.0f);
    const bool scaled = args.weight != nullptr;
    for_each_row(xv.rows(), n, [&](int64_t r) {
        float* row = scratch(0, n);
        load_f32(dt, xv.row(r), row, n);
        const float inv = 1.0f / std::sqrt(vec::sum_squares(row, n) / float(n) + args.eps);
        vec::scale(row, inv, n);
        if (scaled) vec::mul(row, w.data(), row, n);
        store_f32(dt, row, yv.row(r), n);
        if (args.rstd) *reinterpret_cast<float*>(vec_elem(args.rstd, r)) = inv;
    });
    return OPKIT_OK;
}

opkit_status rms_norm_backward(const args::rms_norm_backward& args) {
    const RowView dyv(args.dy), xv(args.x), dxv(args.dx);
    const int64_t n = xv.n(), rows = xv.rows();
    const DType dt = xv.dtype();
    const std::vector<float> w = load_param(args.weight, n, args.weight_offset, 1.0f);
    // dx = rstd * g - x * rstd^3 * mean(g * x), with g = dy * w
    auto row_grad = [&](int64_t r, float* dweight_acc) {
        float* xr = scratch(0, n);
        float* g = scratch(1, n);
        load_f32(dt, xv.row(r), xr, n);
        load_f32(dt, dyv.row(r), g, n);
        const float inv = *reinterpret_cast<const float*>(vec_elem(args.rstd, r));
        if (dweight_acc)  // dweight += dy * x * rstd, before g is scaled by w
            for (int64_t i = 0; i < n; ++i) dweight_acc[i] += g[i] * xr[i] * inv;
        vec::mul(g, w.data(), g, n);
        const float c = inv * inv * inv * vec::dot(g, xr, n) / float(n);
        for (int64_t i = 0; i < n; ++i) g[i] = inv * g[i] - c * xr[i];
        store_f32(dt, g, dxv.row(r), n);
    };
    if (!args.dweight) {
        for_each_row(rows, n, [&](int64_t r) { row_grad(r, nullptr); });
        return OPKIT_OK;
    }
    opkit_tensor* const outs[1] = {args.dweight};
    reduce_rows<1>(rows, n, outs, [&](int64_t r, float* const* p) { row_grad(r, p[0]); });
    return OPKIT_OK;
}

}  // namespace opkit::cpu
