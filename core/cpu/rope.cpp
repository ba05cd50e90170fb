// Rotary position embedding, NeoX/Hugging Face rotate-half form, on x [B, T, H, D] with
// cos/sin [T, D] or [B, T, D]. Backward is the same rotation by -theta.
#include "convert.h"
#include "kernels.h"
#include "rows.h"

namespace opkit::cpu {
namespace {

// sign = +1: y = x*cos + rotate_half(x)*sin; sign = -1: the transpose (backward),
// dx[i] = dy[i]*cos[i] + dy[i+h]*sin[i+h], dx[i+h] = dy[i+h]*cos[i+h] - dy[i]*sin[i].
void rotate(const opkit_tensor* x, const opkit_tensor* cos, const opkit_tensor* sin,
            opkit_tensor* y, bool backward) {
    const int64_t B = x->shape[0], T = x->shape[1], H = x->shape[2], D = x->shape[3], h = D / 2;
    const DType dt = dtype_of(x);
    const bool batched_angles = cos->ndim == 3;
    for_each_row(B * T * H, D, [&](int64_t r) {
        const int64_t hh = r % H, t = (r / H) % T, b = r / (H * T);
        const int64_t xi[4] = {b, t, hh, 0};
        const int64_t ai3[3] = {b, t, 0}, ai2[2] = {t, 0};
        const int64_t* ai = batched_angles ? ai3 : ai2;
        float* xr = scratch(0, D);
        float* c = scratch(1, D);
        float* s = scratch(2, D);
        load_f32(dt, element_ptr(x, xi), xr, D);
        load_f32(dt, element_ptr(cos, ai), c, D);
        load_f32(dt, element_ptr(sin, ai), s, D);
        float* out = scratch(3, D);
        if (!backward) {
            for (int64_t i = 0; i < h; ++i) {
                out[i] = xr[i] * c[i] - xr[i + h] * s[i];
                out[i + h] = xr[i + h] * c[i + h] + xr[i] * s[i + h];
            }
        } else {
            for (int64_t i = 0; i < h; ++i) {
                out[i] = xr[i] * c[i] + xr[i + h] * s[i + h];
                out[i + h] = xr[i + h] * c[i + h] - xr[i] * s[i];
            }
        }
        store_f32(dt, out, element_ptr(y, xi), D);
    });
}

}  // namespace

opkit_status rope_forward(const args::rope_forward& args) {
    rotate(args.x, args.cos, args.sin, args.y, false);
    return OPKIT_OK;
}

opkit_status rope_backward(const args::rope_backward& args) {
    rotate(args.dy, args.cos, args.sin, args.dx, true);
    return OPKIT_OK;
}

}  // namespace opkit::cpu
