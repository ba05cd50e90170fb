// RMSNorm and LayerNorm, forward and backward. One row per thread group (see RowConfig):
// a row that fits the group's registers is read once; a longer row streams through
// global memory twice. The backward kernels also sum dweight/dbias over the rows their
// group visits into a private fp32 partial row ([groups][n]); opk_column_sum adds the
// partial rows afterwards, so no atomics and the result does not depend on timing.
#include "rows.cuh"

namespace opk {
namespace {

template <typename T, int G, int C>
OPK_DEV void rms_forward(const NormArgs& a) {
    constexpr int P = Pack<T>::n;
    __shared__ float smem[kReduceSlots];
    const RowGroup<G> g;
    const int64_t n = a.n, packs = (n + P - 1) / P;
    const bool cached = packs <= int64_t(G) * C;
    const T* w = static_cast<const T*>(a.weight);
    for (int64_t r = g.first_row; r < a.rows; r += g.row_step) {
        const T* xr = row_ptr<const T>(a.x, r);
        T* yr = row_ptr<T>(a.y, r);
        float v[C][P];
        float ss = 0.0f;
        if (cached) {
#pragma unroll
            for (int i = 0; i < C; ++i) {
                const int64_t c = int64_t(i) * G + g.lane;
                if (c < packs) {
                    load_pack<T, P>(xr, c, n, a.x.vec, v[i]);
#pragma unroll
                    for (int k = 0; k < P; ++k) ss += v[i][k] * v[i][k];
                }
            }
        } else {
            for (int64_t c = g.lane; c < packs; c += G) {
                float t[P];
                load_pack<T, P>(xr, c, n, a.x.vec, t);
#pragma unroll
                for (int k = 0; k < P; ++k) ss += t[k] * t[k];
            }
        }
        ss = group_sum1<G>(ss, smem);
        const float inv = 1.0f / sqrtf(ss / float(n) + a.eps);
        auto emit = [&](int64_t c, const float(&x)[P]) {
            float out[P];
            if (w) {
                float wv[P];
                load_pack<T, P>(w, c, n, a.weight_vec, wv);
#pragma unroll
                for (int k = 0; k < P; ++k) out[k] = x[k] * inv * (wv[k] + a.weight_offset);
            } else {
#pragma unroll
                for (int k = 0; k < P; ++k) out[k] = x[k] * inv;
            }
            store_pack<T, P>(yr, c, n, a.y.vec, out);
        };
        if (cached) {
#pragma unroll
            for (int i = 0; i < C; ++i) {
                const int64_t c = int64_t(i) * G + g.lane;
                if (c < packs) emit(c, v[i]);
            }
        } else {
            for (int64_t c = g.lane; c < packs; c += G) {
                float t[P];
                load_pack<T, P>(xr, c, n, a.x.vec, t);
                emit(c, t);
            }
        }
        if (g.lane == 0 && a.rstd.data) strided_set<float>(a.rstd, r, inv);
    }
}

// Zeroes this group's partial row(s) with the same pack-to-lane mapping the streaming
// loops use, so each element is only ever touched by one thread (no barrier needed).
template <int P, int G>
OPK_DEV void zero_partial(float* part, int64_t n, int lane) {
    if (!part) return;
    const int64_t packs = (n + P - 1) / P;
    for (int64_t c = lane; c < packs; c += G)
#pragma unroll
        for (int k = 0; k < P; ++k)
            if (c * P + k < n) part[c * P + k] = 0.0f;
}

template <int P>
OPK_DEV void add_partial(float* part, int64_t c, int64_t n, const float (&v)[P]) {
#pragma unroll
    for (int k = 0; k < P; ++k)
        if (c * P + k < n) part[c * P + k] += v[k];
}

template <int P>
OPK_DEV void write_partial(float* part, int64_t c, int64_t n, const float (&v)[P]) {
#pragma unroll
    for (int k = 0; k < P; ++k)
        if (c * P + k < n) part[c * P + k] = v[k];
}

// dx = rstd * g - x * rstd^3 * mean(g * x), g = dy * (weight + weight_offset);
// dweight += dy * x * rstd.
template <typename T, int G, int C>
OPK_DEV void rms_backward(const NormArgs& a) {
    constexpr int P = Pack<T>::n;
    __shared__ float smem[kReduceSlots];
    const RowGroup<G> g;
    const int64_t n = a.n, packs = (n + P - 1) / P;
    const bool cached = packs <= int64_t(G) * C;
    const T* w = static_cast<const T*>(a.weight);
    float* part = a.want_dweight ? a.partial + g.group * n : nullptr;
    float acc[C][P];
#pragma unroll
    for (int i = 0; i < C; ++i)
#pragma unroll
        for (int k = 0; k < P; ++k) acc[i][k] = 0.0f;
    if (!cached) zero_partial<P, G>(part, n, g.lane);

    for (int64_t r = g.first_row; r < a.rows; r += g.row_step) {
        const T* xr = row_ptr<const T>(a.x, r);
        const T* dyr = row_ptr<const T>(a.dy, r);
        T* dxr = row_ptr<T>(a.dx, r);
        const float inv = strided_get<float>(a.rstd, r);
        float xv[C][P], gv[C][P];
        float dot = 0.0f;
        // Reads x and dy at pack c; leaves g in gd; returns the dweight contribution in dw.
        auto first = [&](int64_t c, float(&x)[P], float(&gd)[P], float(&dw)[P]) {
            load_pack<T, P>(xr, c, n, a.x.vec, x);
            load_pack<T, P>(dyr, c, n, a.dy.vec, gd);
            float wv[P];
            if (w) load_pack<T, P>(w, c, n, a.weight_vec, wv);
#pragma unroll
            for (int k = 0; k < P; ++k) {
                dw[k] = gd[k] * x[k] * inv;
                if (w) gd[k] *= wv[k] + a.weight_offset;
                dot += gd[k] * x[k];
            }
        };
        if (cached) {
#pragma unroll
            for (int i = 0; i < C; ++i) {
                const int64_t c = int64_t(i) * G + g.lane;
                if (c < packs) {
                    float dw[P];
                    first(c, xv[i], gv[i], dw);
#pragma unroll
                    for (int k = 0; k < P; ++k) acc[i][k] += dw[k];
                }
            }
        } else {
            for (int64_t c = g.lane; c < packs; c += G) {
                float x[P], gd[P], dw[P];
                first(c, x, gd, dw);
                if (part) add_partial<P>(part, c, n, dw);
            }
        }
        dot = group_sum1<G>(dot, smem);
        const float coef = inv * inv * inv * dot / float(n);
        auto emit = [&](int64_t c, const float(&x)[P], const float(&gd)[P]) {
            float out[P];
#pragma unroll
            for (int k = 0; k < P; ++k) out[k] = inv * gd[k] - coef * x[k];
            store_pack<T, P>(dxr, c, n, a.dx.vec, out);
        };
        if (cached) {
#pragma unroll
            for (int i = 0; i < C; ++i) {
                const int64_t c = int64_t(i) * G + g.lane;
                if (c < packs) emit(c, xv[i], gv[i]);
            }
        } else {
            for (int64_t c = g.lane; c < packs; c += G) {
                float x[P], gd[P], dw[P];
                const float keep = dot;
                first(c, x, gd, dw);  // recomputes g; its dot and dw are discarded
                dot = keep;
                emit(c, x, gd);
            }
        }
    }
    if (cached && part) {
#pragma unroll
        for (int i = 0; i < C; ++i) {
            const int64_t c = int64_t(i) * G + g.lane;
            if (c < packs) write_partial<P>(part, c, n, acc[i]);
        }
    }
}

// y = (x - mean) * rstd * weight + bias; biased variance. Cached rows use the exact
// two-pass variance; streamed rows sum x - x[0] and its square in one pass (shifting by
// a row element keeps the cancellation small), then write in a second.
template <typename T, int G, int C>
OPK_DEV void ln_forward(const NormArgs& a) {
    constexpr int P = Pack<T>::n;
    __shared__ float smem[kReduceSlots];
    const RowGroup<G> g;
    const int64_t n = a.n, packs = (n + P - 1) / P;
    const bool cached = packs <= int64_t(G) * C;
    const T* w = static_cast<const T*>(a.weight);
    const T* b = static_cast<const T*>(a.bias);
    const float inv_n = 1.0f / float(n);
    for (int64_t r = g.first_row; r < a.rows; r += g.row_step) {
        const T* xr = row_ptr<const T>(a.x, r);
        T* yr = row_ptr<T>(a.y, r);
        float v[C][P];
        float mu, var;
        if (cached) {
            float s = 0.0f;
#pragma unroll
            for (int i = 0; i < C; ++i) {
                const int64_t c = int64_t(i) * G + g.lane;
                if (c < packs) {
                    load_pack<T, P>(xr, c, n, a.x.vec, v[i]);
#pragma unroll
                    for (int k = 0; k < P; ++k) s += v[i][k];
                }
            }
            mu = group_sum1<G>(s, smem) * inv_n;
            float q = 0.0f;
#pragma unroll
            for (int i = 0; i < C; ++i) {
                const int64_t c = int64_t(i) * G + g.lane;
                if (c < packs)
#pragma unroll
                    for (int k = 0; k < P; ++k)
                        if (c * P + k < n) q += (v[i][k] - mu) * (v[i][k] - mu);
            }
            var = group_sum1<G>(q, smem) * inv_n;
        } else {
            const float shift = to_f32(xr[0]);
            float sums[2] = {0.0f, 0.0f};
            for (int64_t c = g.lane; c < packs; c += G) {
                float t[P];
                load_pack<T, P>(xr, c, n, a.x.vec, t);
#pragma unroll
                for (int k = 0; k < P; ++k)
                    if (c * P + k < n) {
                        const float d = t[k] - shift;
                        sums[0] += d;
                        sums[1] += d * d;
                    }
            }
            group_sum<G, 2>(sums, smem);
            const float m1 = sums[0] * inv_n;
            mu = shift + m1;
            var = fmaxf(sums[1] * inv_n - m1 * m1, 0.0f);
        }
        const float inv = 1.0f / sqrtf(var + a.eps);
        auto emit = [&](int64_t c, const float(&x)[P]) {
            float out[P], wv[P], bv[P];
            if (w) load_pack<T, P>(w, c, n, a.weight_vec, wv);
            if (b) load_pack<T, P>(b, c, n, a.bias_vec, bv);
#pragma unroll
            for (int k = 0; k < P; ++k) {
                out[k] = (x[k] - mu) * inv;
                if (w) out[k] *= wv[k];
                if (b) out[k] += bv[k];
            }
            store_pack<T, P>(yr, c, n, a.y.vec, out);
        };
        if (cached) {
#pragma unroll
            for (int i = 0; i < C; ++i) {
                const int64_t c = int64_t(i) * G + g.lane;
                if (c < packs) emit(c, v[i]);
            }
        } else {
            for (int64_t c = g.lane; c < packs; c += G) {
                float t[P];
                load_pack<T, P>(xr, c, n, a.x.vec, t);
                emit(c, t);
            }
        }
        if (g.lane == 0) {
            if (a.mean.data) strided_set<float>(a.mean, r, mu);
            if (a.rstd.data) strided_set<float>(a.rstd, r, inv);
        }
    }
}

// xhat = (x - mean) * rstd, g = dy * weight;
// dx = rstd * (g - mean(g) - xhat * mean(g * xhat)); dweight += dy * xhat; dbias += dy.
template <typename T, int G, int C>
OPK_DEV void ln_backward(const NormArgs& a) {
    constexpr int P = Pack<T>::n;
    __shared__ float smem[kReduceSlots];
    const RowGroup<G> g;
    const int64_t n = a.n, packs = (n + P - 1) / P;
    const bool cached = packs <= int64_t(G) * C;
    const T* w = static_cast<const T*>(a.weight);
    const int64_t groups = int64_t(gridDim.x) * (int(blockDim.x) / G);
    float* part_w = a.want_dweight ? a.partial + g.group * n : nullptr;
    float* part_b = a.want_dbias ? a.partial + (groups + g.group) * n : nullptr;
    float acc_w[C][P], acc_b[C][P];
#pragma unroll
    for (int i = 0; i < C; ++i)
#pragma unroll
        for (int k = 0; k < P; ++k) acc_w[i][k] = acc_b[i][k] = 0.0f;
    if (!cached) {
        zero_partial<P, G>(part_w, n, g.lane);
        zero_partial<P, G>(part_b, n, g.lane);
    }
    const float inv_n = 1.0f / float(n);

    for (int64_t r = g.first_row; r < a.rows; r += g.row_step) {
        const T* xr = row_ptr<const T>(a.x, r);
        const T* dyr = row_ptr<const T>(a.dy, r);
        T* dxr = row_ptr<T>(a.dx, r);
        const float mu = strided_get<float>(a.mean, r);
        const float inv = strided_get<float>(a.rstd, r);
        float xh[C][P], gv[C][P];
        float sums[2] = {0.0f, 0.0f};  // sum(g), sum(g * xhat)
        // Reads pack c: xhat into x, g into gd, dy into dyv (for dweight / dbias).
        auto first = [&](int64_t c, float(&x)[P], float(&gd)[P], float(&dyv)[P]) {
            load_pack<T, P>(xr, c, n, a.x.vec, x);
            load_pack<T, P>(dyr, c, n, a.dy.vec, dyv);
            float wv[P];
            if (w) load_pack<T, P>(w, c, n, a.weight_vec, wv);
#pragma unroll
            for (int k = 0; k < P; ++k) {
                const bool in = c * P + k < n;
                x[k] = in ? (x[k] - mu) * inv : 0.0f;
                gd[k] = w ? dyv[k] * wv[k] : dyv[k];
                sums[0] += gd[k];
                sums[1] += gd[k] * x[k];
            }
        };
        if (cached) {
#pragma unroll
            for (int i = 0; i < C; ++i) {
                const int64_t c = int64_t(i) * G + g.lane;
                if (c < packs) {
                    float dyv[P];
                    first(c, xh[i], gv[i], dyv);
#pragma unroll
                    for (int k = 0; k < P; ++k) {
                        acc_w[i][k] += dyv[k] * xh[i][k];
                        acc_b[i][k] += dyv[k];
                    }
                }
            }
        } else {
            for (int64_t c = g.lane; c < packs; c += G) {
                float x[P], gd[P], dyv[P];
                first(c, x, gd, dyv);
                if (part_w) {
                    float t[P];
#pragma unroll
                    for (int k = 0; k < P; ++k) t[k] = dyv[k] * x[k];
                    add_partial<P>(part_w, c, n, t);
                }
                if (part_b) add_partial<P>(part_b, c, n, dyv);
            }
        }
        group_sum<G, 2>(sums, smem);
        const float mg = sums[0] * inv_n, mgx = sums[1] * inv_n;
        auto emit = [&](int64_t c, const float(&x)[P], const float(&gd)[P]) {
            float out[P];
#pragma unroll
            for (int k = 0; k < P; ++k) out[k] = inv * (gd[k] - mg - x[k] * mgx);
            store_pack<T, P>(dxr, c, n, a.dx.vec, out);
        };
        if (cached) {
#pragma unroll
            for (int i = 0; i < C; ++i) {
                const int64_t c = int64_t(i) * G + g.lane;
                if (c < packs) emit(c, xh[i], gv[i]);
            }
        } else {
            const float keep[2] = {sums[0], sums[1]};
            for (int64_t c = g.lane; c < packs; c += G) {
                float x[P], gd[P], dyv[P];
                first(c, x, gd, dyv);  // recomputes xhat and g; the sums are restored below
                emit(c, x, gd);
            }
            sums[0] = keep[0];
            sums[1] = keep[1];
        }
    }
    if (cached) {
#pragma unroll
        for (int i = 0; i < C; ++i) {
            const int64_t c = int64_t(i) * G + g.lane;
            if (c < packs) {
                if (part_w) write_partial<P>(part_w, c, n, acc_w[i]);
                if (part_b) write_partial<P>(part_b, c, n, acc_b[i]);
            }
        }
    }
}

}  // namespace
}  // namespace opk

using namespace opk;

OPK_ROW_KERNELS(opk_rms_fwd, NormArgs, rms_forward, kRowConfigs)
OPK_ROW_KERNELS(opk_rms_bwd, NormArgs, rms_backward, kRowConfigsBwd)
OPK_ROW_KERNELS(opk_ln_fwd, NormArgs, ln_forward, kRowConfigs)
OPK_ROW_KERNELS(opk_ln_bwd, NormArgs, ln_backward, kRowConfigsBwd)

// dweight / dbias: out[j] = sum over groups of partial[g][j], converted to the weight's
// type. One thread per column: the loads of a warp are contiguous in every group row.
template <typename T>
__device__ void column_sum(const ColumnSumArgs& a) {
    T* out = static_cast<T*>(a.out);
    for (int64_t j = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; j < a.n;
         j += int64_t(gridDim.x) * blockDim.x) {
        float s = 0.0f;
        for (int64_t g = 0; g < a.groups; ++g) s += a.partial[g * a.n + j];
        out[j] = from_f32<T>(s);
    }
}

OPK_KERNEL(opk_column_sum_f32, 256)(const ColumnSumArgs a) { column_sum<float>(a); }
OPK_KERNEL(opk_column_sum_f16, 256)(const ColumnSumArgs a) { column_sum<opk_f16>(a); }
OPK_KERNEL(opk_column_sum_bf16, 256)(const ColumnSumArgs a) { column_sum<opk_bf16>(a); }
