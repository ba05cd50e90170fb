// The gated activations y = act(a) * b share their row loop; only the activation and
// its derivative differ (SiLU for SwiGLU, GELU for GeGLU).
#pragma once

#include "convert.h"
#include "rows.h"

namespace opkit::cpu {

// act(a, &value, &derivative) for one element.
template <class Act>
void gated_forward_rows(const opkit_tensor* a, const opkit_tensor* b, opkit_tensor* y, Act act) {
    const RowView av(a), bv(b), yv(y);
    const int64_t n = av.n();
    const DType dt = av.dtype();
    for_each_row(av.rows(), n, [&](int64_t r) {
        float* ar = scratch(0, n);
        float* br = scratch(1, n);
        load_f32(dt, av.row(r), ar, n);
        load_f32(dt, bv.row(r), br, n);
        for (int64_t i = 0; i < n; ++i) {
            float v, d;
            act(ar[i], &v, &d);
            ar[i] = v * br[i];
        }
        store_f32(dt, ar, yv.row(r), n);
    });
}

// da = dy * b * act'(a), db = dy * act(a). Rows are read whole before either output is
// written, so da may alias a or dy and db may alias b or dy.
template <class Act>
void gated_backward_rows(const opkit_tensor* dy, const opkit_tensor* a, const opkit_tensor* b,
                         opkit_tensor* da, opkit_tensor* db, Act act) {
    const RowView dyv(dy), av(a), bv(b), dav(da), dbv(db);
    const int64_t n = av.n();
    const DType dt = av.dtype();
    for_each_row(av.rows(), n, [&](int64_t r) {
        float* ar = scratch(0, n);
        float* br = scratch(1, n);
        float* g = scratch(2, n);
        load_f32(dt, av.row(r), ar, n);
        load_f32(dt, bv.row(r), br, n);
        load_f32(dt, dyv.row(r), g, n);
        for (int64_t i = 0; i < n; ++i) {
            float v, d;
            act(ar[i], &v, &d);
            ar[i] = g[i] * br[i] * d;  // da
            br[i] = g[i] * v;          // db
        }
        store_f32(dt, ar, dav.row(r), n);
        store_f32(dt, br, dbv.row(r), n);
    });
}

}  // namespace opkit::cpu
