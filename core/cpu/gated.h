// The gated activations y = act(a) * b share their row loop; only the activation and
// its derivative differ (SiLU for SwiGLU, GELU for GeGLU).
#pragma once

#include "convert.h"
#include "rows.h"

namespace opkit::cpu {

// act(a, &value, &derivative) for one element; pass a lambda (not a function pointer) so
// it inlines and the unused derivative of the forward is optimised away.
// Args: the op's argument struct (swiglu or geglu).
template <class Args, class Act>
void gated_forward_rows(const Args& args, Act act) {
    const RowView av(args.a), bv(args.b), yv(args.y);
    const int64_t n = av.n();
    const DType dt = av.dtype();
    if (dt == DType::f32) {  // straight on the rows: no scratch copies
        for_each_row(av.rows(), n, [&](int64_t r) {
            const float* ar = reinterpret_cast<const float*>(av.row(r));
            const float* br = reinterpret_cast<const float*>(bv.row(r));
            float* yr = reinterpret_cast<float*>(yv.row(r));
            for (int64_t i = 0; i < n; ++i) {
                float v, d;
                act(ar[i], &v, &d);
                yr[i] = v * br[i];
            }
        });
        return;
    }
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
template <class Args, class Act>
void gated_backward_rows(const Args& args, Act act) {
    const RowView dyv(args.dy), av(args.a), bv(args.b), dav(args.da), dbv(args.db);
    const int64_t n = av.n();
    const DType dt = av.dtype();
    if (dt == DType::f32) {  // elementwise, so every documented alias is safe in place
        for_each_row(av.rows(), n, [&](int64_t r) {
            const float* ar = reinterpret_cast<const float*>(av.row(r));
            const float* br = reinterpret_cast<const float*>(bv.row(r));
            const float* g = reinterpret_cast<const float*>(dyv.row(r));
            float* dar = reinterpret_cast<float*>(dav.row(r));
            float* dbr = reinterpret_cast<float*>(dbv.row(r));
            for (int64_t i = 0; i < n; ++i) {
                const float a_i = ar[i], b_i = br[i], g_i = g[i];
                float v, d;
                act(a_i, &v, &d);
                dar[i] = g_i * b_i * d;
                dbr[i] = g_i * v;
            }
        });
        return;
    }
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
