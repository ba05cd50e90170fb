// The gated activations y = act(a) * b share their row loop; only the activation and
// its derivative differ (SiLU for SwiGLU, GELU for GeGLU).
#pragma once

#include "convert.h"
#include "rows.h"

namespace opkit::cpu {

// Row loops shared by the gated activations. `forward(a, b, y, n)` and
// `backward(a, b, g, da, db, n)` are the activation's vectorized element loops
// (vec_act.h), which allow their outputs to alias their inputs. f32 rows are processed
// in place in the tensors, and so are bf16 rows (converted inside the loops); f16 rows go
// through fp32 scratch rows.
using GatedForwardFn = void (*)(const float* a, const float* b, float* y, int64_t n);
using GatedBackwardFn = void (*)(const float* a, const float* b, const float* g, float* da, float* db, int64_t n);
// The bf16 forms, on the rows' raw 16-bit patterns (no fp32 copies).
using GatedForwardBf16Fn = void (*)(const uint16_t* a, const uint16_t* b, uint16_t* y, int64_t n);
using GatedBackwardBf16Fn = void (*)(const uint16_t* a, const uint16_t* b, const uint16_t* g, uint16_t* da,
                                     uint16_t* db, int64_t n);

template <class Args>
void gated_forward_rows(const Args& args, GatedForwardFn forward, GatedForwardBf16Fn forward_bf16) {
    const RowView av(args.a), bv(args.b), yv(args.y);
    const int64_t n = av.n();
    const DType dt = av.dtype();
    if (dt == DType::f32) {  // straight on the rows: no scratch copies
        for_each_row(av.rows(), n, [&](int64_t r) {
            forward(reinterpret_cast<const float*>(av.row(r)), reinterpret_cast<const float*>(bv.row(r)),
                    reinterpret_cast<float*>(yv.row(r)), n);
        });
        return;
    }
    if (dt == DType::bf16) {
        for_each_row(av.rows(), n, [&](int64_t r) {
            forward_bf16(reinterpret_cast<const uint16_t*>(av.row(r)), reinterpret_cast<const uint16_t*>(bv.row(r)),
                         reinterpret_cast<uint16_t*>(yv.row(r)), n);
        });
        return;
    }
    for_each_row(av.rows(), n, [&](int64_t r) {
        float* ar = scratch(0, n);
        float* br = scratch(1, n);
        load_f32(dt, av.row(r), ar, n);
        load_f32(dt, bv.row(r), br, n);
        forward(ar, br, ar, n);
        store_f32(dt, ar, yv.row(r), n);
    });
}

// da = dy * b * act'(a), db = dy * act(a). Rows are read whole before either output is
// written, so da may alias a or dy and db may alias b or dy.
template <class Args>
void gated_backward_rows(const Args& args, GatedBackwardFn backward, GatedBackwardBf16Fn backward_bf16) {
    const RowView dyv(args.dy), av(args.a), bv(args.b), dav(args.da), dbv(args.db);
    const int64_t n = av.n();
    const DType dt = av.dtype();
    if (dt == DType::f32) {  // elementwise, so every documented alias is safe in place
        for_each_row(av.rows(), n, [&](int64_t r) {
            backward(reinterpret_cast<const float*>(av.row(r)), reinterpret_cast<const float*>(bv.row(r)),
                     reinterpret_cast<const float*>(dyv.row(r)), reinterpret_cast<float*>(dav.row(r)),
                     reinterpret_cast<float*>(dbv.row(r)), n);
        });
        return;
    }
    if (dt == DType::bf16) {  // as f32: block loops, so every documented alias is safe
        for_each_row(av.rows(), n, [&](int64_t r) {
            backward_bf16(reinterpret_cast<const uint16_t*>(av.row(r)), reinterpret_cast<const uint16_t*>(bv.row(r)),
                          reinterpret_cast<const uint16_t*>(dyv.row(r)), reinterpret_cast<uint16_t*>(dav.row(r)),
                          reinterpret_cast<uint16_t*>(dbv.row(r)), n);
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
        backward(ar, br, g, ar, br, n);
        store_f32(dt, ar, dav.row(r), n);
        store_f32(dt, br, dbv.row(r), n);
    });
}

}  // namespace opkit::cpu
