// Softmax over the last dimension and its backward, dx = y * (dy - sum(dy * y)).
#include "convert.h"
#include "kernels.h"
#include "rows.h"
#include "vec_math.h"

namespace opkit::cpu {

opkit_status softmax_forward(const args::softmax_forward& args) {
    const RowView xv(args.x), yv(args.y);
    const int64_t n = xv.n();
    const DType dt = xv.dtype();
    for_each_row(xv.rows(), n, [&](int64_t r) {
        float* row = scratch(0, n);
        load_f32(dt, xv.row(r), row, n);
        const float total = vec::exp_shifted(row, vec::max(row, n), row, n);
        vec::scale(row, 1.0f / total, n);
        store_f32(dt, row, yv.row(r), n);
    });
    return OPKIT_OK;
}

opkit_status softmax_backward(const args::softmax_backward& args) {
    const RowView dyv(args.dy), yv(args.y), dxv(args.dx);
    const int64_t n = yv.n();
    const DType dt = yv.dtype();
    for_each_row(yv.rows(), n, [&](int64_t r) {
        float* yr = scratch(0, n);
        float* g = scratch(1, n);
        load_f32(dt, yv.row(r), yr, n);
        load_f32(dt, dyv.row(r), g, n);
        const float s = vec::dot(g, yr, n);
        vec::mul_shifted(yr, s, g, n);
        store_f32(dt, g, dxv.row(r), n);
    });
    return OPKIT_OK;
}

}  // namespace opkit::cpu
