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
    if (dt == DType::bf16) {  // the bf16 rows read and written in place: no fp32 copies
        for_each_row(xv.rows(), n, [&](int64_t r) {
            const uint16_t* x = reinterpret_cast<const uint16_t*>(xv.row(r));
            float* e = scratch(0, n);
            const float total = vec::exp_shifted_bf16(x, vec::max_bf16(x, n), e, n);
            vec::scale_to_bf16(e, 1.0f / total, reinterpret_cast<uint16_t*>(yv.row(r)), n);
        });
        return OPKIT_OK;
    }
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
    if (dt == DType::bf16) {
        for_each_row(yv.rows(), n, [&](int64_t r) {
            const uint16_t* y = reinterpret_cast<const uint16_t*>(yv.row(r));
            const uint16_t* g = reinterpret_cast<const uint16_t*>(dyv.row(r));
            vec::mul_shifted_bf16(y, g, vec::dot_bf16(g, y, n), reinterpret_cast<uint16_t*>(dxv.row(r)), n);
        });
        return OPKIT_OK;
    }
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
