// Softmax over the last dimension, forward and backward. Cached rows are read once;
// streamed rows use the online (max, sum) recurrence in the first pass, so the row is
// read twice in total, never three times.
#include "rows.cuh"

namespace opk {
namespace {

template <typename T, int G, int C>
OPK_DEV void softmax_forward(const SoftmaxArgs& a) {
    constexpr int P = Pack<T>::n;
    __shared__ float smem[kReduceSlots];
    const RowGroup<G> g;
    const int64_t n = a.n, packs = (n + P - 1) / P;
    const bool cached = packs <= int64_t(G) * C;
    for (int64_t r = g.first_row; r < a.rows; r += g.row_step) {
        const T* xr = row_ptr<const T>(a.a, r);
        T* yr = row_ptr<T>(a.out, r);
        float v[C][P];
        float m = -INFINITY, s = 0.0f;
        if (cached) {
#pragma unroll
            for (int i = 0; i < C; ++i) {
                const int64_t c = int64_t(i) * G + g.lane;
                if (c < packs) {
                    load_pack<T, P>(xr, c, n, a.a.vec, v[i], -INFINITY);
#pragma unroll
                    for (int k = 0; k < P; ++k) m = fmaxf(m, v[i][k]);
                }
            }
            m = group_max<G>(m, smem);
#pragma unroll
            for (int i = 0; i < C; ++i) {
                const int64_t c = int64_t(i) * G + g.lane;
                if (c < packs)
#pragma unroll
                    for (int k = 0; k < P; ++k) {
                        v[i][k] = exp_shifted(v[i][k], m);
                        s += v[i][k];
                    }
            }
            s = group_sum1<G>(s, smem);
            const float rs = 1.0f / s;
#pragma unroll
            for (int i = 0; i < C; ++i) {
                const int64_t c = int64_t(i) * G + g.lane;
                if (c < packs) {
#pragma unroll
                    for (int k = 0; k < P; ++k) v[i][k] *= rs;
                    store_pack<T, P>(yr, c, n, a.out.vec, v[i]);
                }
            }
        } else {
            for (int64_t c = g.lane; c < packs; c += G) {
                float t[P];
                load_pack<T, P>(xr, c, n, a.a.vec, t, -INFINITY);
                online_add<P>(m, s, t);
            }
            group_online<G>(m, s, smem);
            const float rs = 1.0f / s;
            for (int64_t c = g.lane; c < packs; c += G) {
                float t[P];
                load_pack<T, P>(xr, c, n, a.a.vec, t, -INFINITY);
#pragma unroll
                for (int k = 0; k < P; ++k) t[k] = exp_shifted(t[k], m) * rs;
                store_pack<T, P>(yr, c, n, a.out.vec, t);
            }
        }
    }
}

// dx = y * (dy - sum(dy * y)).
template <typename T, int G, int C>
OPK_DEV void softmax_backward(const SoftmaxArgs& a) {
    constexpr int P = Pack<T>::n;
    __shared__ float smem[kReduceSlots];
    const RowGroup<G> g;
    const int64_t n = a.n, packs = (n + P - 1) / P;
    const bool cached = packs <= int64_t(G) * C;
    for (int64_t r = g.first_row; r < a.rows; r += g.row_step) {
        const T* dyr = row_ptr<const T>(a.a, r);
        const T* yr = row_ptr<const T>(a.b, r);
        T* dxr = row_ptr<T>(a.out, r);
        float dv[C][P], yv[C][P];
        float dot = 0.0f;
        if (cached) {
#pragma unroll
            for (int i = 0; i < C; ++i) {
                const int64_t c = int64_t(i) * G + g.lane;
                if (c < packs) {
                    load_pack<T, P>(dyr, c, n, a.a.vec, dv[i]);
                    load_pack<T, P>(yr, c, n, a.b.vec, yv[i]);
#pragma unroll
                    for (int k = 0; k < P; ++k) dot += dv[i][k] * yv[i][k];
                }
            }
        } else {
            for (int64_t c = g.lane; c < packs; c += G) {
                float d[P], y[P];
                load_pack<T, P>(dyr, c, n, a.a.vec, d);
                load_pack<T, P>(yr, c, n, a.b.vec, y);
#pragma unroll
                for (int k = 0; k < P; ++k) dot += d[k] * y[k];
            }
        }
        dot = group_sum1<G>(dot, smem);
        if (cached) {
#pragma unroll
            for (int i = 0; i < C; ++i) {
                const int64_t c = int64_t(i) * G + g.lane;
                if (c < packs) {
                    float out[P];
#pragma unroll
                    for (int k = 0; k < P; ++k) out[k] = yv[i][k] * (dv[i][k] - dot);
                    store_pack<T, P>(dxr, c, n, a.out.vec, out);
                }
            }
        } else {
            for (int64_t c = g.lane; c < packs; c += G) {
                float d[P], y[P];
                load_pack<T, P>(dyr, c, n, a.a.vec, d);
                load_pack<T, P>(yr, c, n, a.b.vec, y);
#pragma unroll
                for (int k = 0; k < P; ++k) d[k] = y[k] * (d[k] - dot);
                store_pack<T, P>(dxr, c, n, a.out.vec, d);
            }
        }
    }
}

}  // namespace
}  // namespace opk

using namespace opk;

OPK_ROW_KERNELS(opk_softmax_fwd, SoftmaxArgs, softmax_forward, kRowConfigs)
OPK_ROW_KERNELS(opk_softmax_bwd, SoftmaxArgs, softmax_backward, kRowConfigsBwd)
