// Rotary position embedding, NeoX/Hugging Face rotate-half form, on x [B, T, H, D] with
// cos/sin [T, D] or [B, T, D]. Backward is the same rotation by -theta. rope_qk_* is the
// rotation of q and then of k, each exactly as a rope call of its own.
#include "convert.h"
#include "kernels.h"
#include "rows.h"
#include "vec_math.h"

namespace opkit::cpu {
namespace {

// y = x*cos + rotate_half(x)*sin (forward); the transpose (backward),
// dx[i] = dy[i]*cos[i] + dy[i+h]*sin[i+h], dx[i+h] = dy[i+h]*cos[i+h] - dy[i]*sin[i].
// One task per position (b, t): its angles are converted once for all H heads.
void rotate(const opkit_tensor* x, const opkit_tensor* cos, const opkit_tensor* sin,
            opkit_tensor* y, bool backward) {
    const int64_t B = x->shape[0], T = x->shape[1], H = x->shape[2], D = x->shape[3];
    const DType dt = dtype_of(x);
    const bool batched_angles = cos->ndim == 3;
    for_each_row(B * T, H * D, [&](int64_t p) {
        const int64_t t = p % T, b = p / T;
        const int64_t ai3[3] = {b, t, 0}, ai2[2] = {t, 0};
        const int64_t* ai = batched_angles ? ai3 : ai2;
        float* c = scratch(1, D);
        float* s = scratch(2, D);
        load_f32(dt, element_ptr(cos, ai), c, D);
        load_f32(dt, element_ptr(sin, ai), s, D);
        float* xr = scratch(0, D);
        float* out = scratch(3, D);
        for (int64_t hh = 0; hh < H; ++hh) {
            const int64_t xi[4] = {b, t, hh, 0};
            load_f32(dt, element_ptr(x, xi), xr, D);
            vec::rotate_half(xr, c, s, out, D, backward);
            store_f32(dt, out, element_ptr(y, xi), D);
        }
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

opkit_status rope_qk_forward(const args::rope_qk_forward& args) {
    rotate(args.q, args.cos, args.sin, args.q_out, false);
    rotate(args.k, args.cos, args.sin, args.k_out, false);
    return OPKIT_OK;
}

opkit_status rope_qk_backward(const args::rope_qk_backward& args) {
    rotate(args.dq_out, args.cos, args.sin, args.dq, true);
    rotate(args.dk_out, args.cos, args.sin, args.dk, true);
    return OPKIT_OK;
}

}  // namespace opkit::cpu
