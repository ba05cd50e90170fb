// LayerNorm: y = (x - mean) * rstd * weight + bias, biased variance, like PyTorch.
#include "kernels.h"
#include "norm_common.h"
#include "vec_math.h"

#include <cmath>

namespace opkit::cpu {

opkit_status layer_norm_forward(const opkit_tensor* x, const opkit_tensor* weight,
                                const opkit_tensor* bias, float eps, opkit_tensor* y,
                                opkit_tensor* mean, opkit_tensor* rstd, opkit_stream) {
    const RowView xv(x), yv(y);
    const int64_t n = xv.n();
    const DType dt = xv.dtype();
    const std::vector<float> w = load_param(weight, n, 0.0f, 1.0f);
    const std::vector<float> b = load_param(bias, n, 0.0f, 0.0f);
    for_each_row(xv.rows(), n, [&](int64_t r) {
        float* row = scratch(0, n);
        load_f32(dt, xv.row(r), row, n);
        const float mu = n ? vec::sum(row, n) / float(n) : 0.0f;
        for (int64_t i = 0; i < n; ++i) row[i] -= mu;  // two-pass variance: no cancellation
        const float inv = 1.0f / std::sqrt((n ? vec::sum_squares(row, n) / float(n) : 0.0f) + eps);
        for (int64_t i = 0; i < n; ++i) row[i] = row[i] * inv * w[size_t(i)] + b[size_t(i)];
        store_f32(dt, row, yv.row(r), n);
        if (mean) *reinterpret_cast<float*>(vec_elem(mean, r)) = mu;
        if (rstd) *reinterpret_cast<float*>(vec_elem(rstd, r)) = inv;
    });
    return OPKIT_OK;
}

opkit_status layer_norm_backward(const opkit_tensor* dy, const opkit_tensor* x,
                                 const opkit_tensor* weight, const opkit_tensor* mean,
                                 const opkit_tensor* rstd, opkit_tensor* dx, opkit_tensor* dweight,
                                 opkit_tensor* dbias, opkit_stream) {
    const RowView dyv(dy), xv(x), dxv(dx);
    const int64_t n = xv.n(), rows = xv.rows();
    const DType dt = xv.dtype();
    const std::vector<float> w = load_param(weight, n, 0.0f, 1.0f);
    // xhat = (x - mean) * rstd; g = dy * w;
    // dx = rstd * (g - mean(g) - xhat * mean(g * xhat))
    auto row_grad = [&](int64_t r, float* dw_acc, float* db_acc) {
        float* xh = scratch(0, n);
        float* g = scratch(1, n);
        load_f32(dt, xv.row(r), xh, n);
        load_f32(dt, dyv.row(r), g, n);
        const float mu = *reinterpret_cast<const float*>(vec_elem(mean, r));
        const float inv = *reinterpret_cast<const float*>(vec_elem(rstd, r));
        for (int64_t i = 0; i < n; ++i) xh[i] = (xh[i] - mu) * inv;
        if (dw_acc)
            for (int64_t i = 0; i < n; ++i) dw_acc[i] += g[i] * xh[i];
        if (db_acc) vec::add(g, db_acc, n);
        vec::mul(g, w.data(), g, n);
        const float mg = vec::sum(g, n) / float(n), mgx = vec::dot(g, xh, n) / float(n);
        for (int64_t i = 0; i < n; ++i) g[i] = inv * (g[i] - mg - xh[i] * mgx);
        store_f32(dt, g, dxv.row(r), n);
    };
    if (!dweight && !dbias) {
        for_each_row(rows, n, [&](int64_t r) { row_grad(r, nullptr, nullptr); });
        return OPKIT_OK;
    }
    opkit_tensor* const outs[2] = {dweight, dbias};
    reduce_rows<2>(rows, n, outs, [&](int64_t r, float* const* p) {
        row_grad(r, dweight ? p[0] : nullptr, dbias ? p[1] : nullptr);
    });
    return OPKIT_OK;
}

}  // namespace opkit::cpu
