// y += alpha * x over tensors of any shape (rows of the innermost dimension).
#include "convert.h"
#include "kernels.h"
#include "rows.h"
#include "vec_math.h"

namespace opkit::cpu {

opkit_status axpy(const args::axpy& args) {
    const RowView xv(args.x), yv(args.y);
    const int64_t n = xv.n();
    const DType dt = xv.dtype();
    if (dt == DType::f32) {
        for_each_row(xv.rows(), n, [&](int64_t r) {
            vec::axpy(args.alpha, reinterpret_cast<const float*>(xv.row(r)),
                      reinterpret_cast<float*>(yv.row(r)), n);
        });
        return OPKIT_OK;
    }
    for_each_row(xv.rows(), n, [&](int64_t r) {
        float* xr = scratch(0, n);
        float* yr = scratch(1, n);
        load_f32(dt, xv.row(r), xr, n);
        load_f32(dt, yv.row(r), yr, n);
        vec::axpy(args.alpha, xr, yr, n);
        store_f32(dt, yr, yv.row(r), n);
    });
    return OPKIT_OK;
}

}  // namespace opkit::cpu
