// Rotary position embedding, NeoX / Hugging Face rotate-half, on x [B,T,H,D] with
// cos/sin [T,D] or [B,T,D]. A block works on one (b, t) position: its threads cover every
// head's (pack of the first half, matching pack of the second half) pairs, so cos/sin of
// that position are read from memory once and then hit the cache for the other heads.
//
// forward:  y[j]   = x[j] cos[j]     - x[j+h] sin[j]
//           y[j+h] = x[j+h] cos[j+h] + x[j] sin[j+h]
// backward (rotation by -theta, the transpose):
//           dx[j]   = dy[j] cos[j]     + dy[j+h] sin[j+h]
//           dx[j+h] = dy[j+h] cos[j+h] - dy[j] sin[j]
#include "rows.cuh"

namespace opk {
namespace {

template <typename T>
OPK_DEV void rope(const RopeArgs& a) {
    constexpr int P = Pack<T>::n;
    const int64_t half = a.D / 2, packs = (half + P - 1) / P;
    const int64_t per_pos = a.H * packs;
    const bool vec = a.vec != 0;
    for (int64_t pos = blockIdx.x; pos < a.B * a.T; pos += gridDim.x) {
        const int64_t b = pos / a.T, t = pos - b * a.T;
        const T* cr = static_cast<const T*>(a.cos) + b * a.cs[0] + t * a.cs[1];
        const T* sr = static_cast<const T*>(a.sin) + b * a.ss[0] + t * a.ss[1];
        const T* xb = static_cast<const T*>(a.x) + b * a.xs[0] + t * a.xs[1];
        T* yb = static_cast<T*>(a.y) + b * a.ys[0] + t * a.ys[1];
        for (int64_t i = threadIdx.x; i < per_pos; i += blockDim.x) {
            const int64_t h = i / packs, c = i - h * packs;
            const T* xr = xb + h * a.xs[2];
            T* yr = yb + h * a.ys[2];
            float xl[P], xh[P], cl[P], ch[P], sl[P], sh[P];
            load_pack<T, P>(xr, c, half, vec, xl);
            load_pack<T, P>(xr + half, c, half, vec, xh);
            load_pack<T, P>(cr, c, half, vec, cl);
            load_pack<T, P>(cr + half, c, half, vec, ch);
            load_pack<T, P>(sr, c, half, vec, sl);
            load_pack<T, P>(sr + half, c, half, vec, sh);
            float lo[P], hi[P];
#pragma unroll
            for (int k = 0; k < P; ++k) {
                if (a.backward) {
                    lo[k] = xl[k] * cl[k] + xh[k] * sh[k];
                    hi[k] = xh[k] * ch[k] - xl[k] * sl[k];
                } else {
                    lo[k] = xl[k] * cl[k] - xh[k] * sl[k];
                    hi[k] = xh[k] * ch[k] + xl[k] * sh[k];
                }
            }
            store_pack<T, P>(yr, c, half, vec, lo);
            store_pack<T, P>(yr + half, c, half, vec, hi);
        }
    }
}

}  // namespace
}  // namespace opk

using namespace opk;

OPK_KERNEL(opk_rope_f32, 256)(const RopeArgs a) { rope<float>(a); }
OPK_KERNEL(opk_rope_f16, 256)(const RopeArgs a) { rope<opk_f16>(a); }
OPK_KERNEL(opk_rope_bf16, 256)(const RopeArgs a) { rope<opk_bf16>(a); }
