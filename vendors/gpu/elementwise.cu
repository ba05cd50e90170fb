// Element-wise ops: SwiGLU and GeGLU (forward, backward), axpy, and the beta scaling that
// matmul needs when K = 0. One thread per 16-byte pack (per 8 bytes in the dense kernels
// that kernel_params.h's EwDenseAccess names); tensors that are dense end to end arrive as
// a single row, so the common case does no index division at all.
#include "rows.cuh"

namespace opk {
namespace {

// act(a) -> value and derivative, in fp32. Fast = the result is stored as a 2-byte type:
// exp and reciprocal through the MUFU unit (__expf, __fdividef; relative error ~1e-6,
// far below bf16/f16 resolution). With 2-byte data these ops were bound by the
// accurate expf and division, not by memory (measured on an H100: 0.84-0.89 of copy
// bandwidth against 0.97-0.99 for fp32).
template <bool Fast>
OPK_DEV float exp_(float x) { return Fast ? __expf(x) : expf(x); }
template <bool Fast>
OPK_DEV float recip_(float x) { return Fast ? __fdividef(1.0f, x) : 1.0f / x; }

struct Silu {
    template <bool Fast>
    OPK_DEV static void eval(float a, float& v, float& d) {
        const float s = recip_<Fast>(1.0f + exp_<Fast>(-a));
        v = a * s;
        d = s * (1.0f + a * (1.0f - s));
    }
};

struct GeluErf {  // erfcf has no fast form; both paths are the accurate one
    template <bool Fast>
    OPK_DEV static void eval(float a, float& v, float& d) {
        const float cdf = 0.5f * erfcf(-a * 0.70710678118654752f);  // no cancellation for a < 0
        v = a * cdf;
        d = cdf + a * 0.39894228040143268f * expf(-0.5f * a * a);
    }
};

struct GeluTanh {  // 0.5 * (1 + tanh(u)) as sigmoid(2u), from exp(-2|u|): no cancellation
    template <bool Fast>
    OPK_DEV static void eval(float a, float& v, float& d) {
        constexpr float kS = 0.79788456080286536f, kC = 0.044715f;
        const float u = kS * (a + kC * a * a * a);
        const float e = exp_<Fast>(-2.0f * fabsf(u));
        const float big = recip_<Fast>(1.0f + e), small = e * big;
        const float s = u >= 0.0f ? big : small, rest = u >= 0.0f ? small : big;
        v = a * s;
        d = s + 2.0f * a * s * rest * kS * (1.0f + 3.0f * kC * a * a);
    }
};

// Ops: NIN inputs t[0..NIN), NOUT outputs t[NIN..NIN+NOUT).
template <class Act>
struct GatedForward {  // a, b -> y
    static constexpr int nin = 2, nout = 1;
    template <bool Fast>
    OPK_DEV static void apply(const float (&in)[2], float (&out)[1], float) {
        float v, d;
        Act::template eval<Fast>(in[0], v, d);
        out[0] = v * in[1];
    }
};

template <class Act>
struct GatedBackward {  // dy, a, b -> da, db
    static constexpr int nin = 3, nout = 2;
    template <bool Fast>
    OPK_DEV static void apply(const float (&in)[3], float (&out)[2], float) {
        float v, d;
        Act::template eval<Fast>(in[1], v, d);
        out[0] = in[0] * in[2] * d;
        out[1] = in[0] * v;
    }
};

struct Axpy {  // x, y -> y
    static constexpr int nin = 2, nout = 1;
    template <bool>
    OPK_DEV static void apply(const float (&in)[2], float (&out)[1], float alpha) {
        out[0] = in[1] + alpha * in[0];
    }
};

struct Scale {  // c -> c * alpha
    static constexpr int nin = 1, nout = 1;
    template <bool>
    OPK_DEV static void apply(const float (&in)[1], float (&out)[1], float alpha) {
        out[0] = in[0] * alpha;
    }
};

struct Zero {  // -> 0, reading nothing (beta == 0 must not read c: NaN there stays out)
    static constexpr int nin = 0, nout = 1;
    template <bool>
    OPK_DEV static void apply(const float (&)[1], float (&out)[1], float) { out[0] = 0.0f; }
};

// Op on each of E elements of its inputs (in[j][k]: input j's element k), in fp32: out[j][k].
template <typename T, class Op, int E, int NIA>
OPK_DEV void apply_each(const float (&in)[NIA][E], float (&out)[Op::nout][E], float alpha) {
#pragma unroll
    for (int k = 0; k < E; ++k) {
        float x[NIA], y[Op::nout];
#pragma unroll
        for (int j = 0; j < Op::nin; ++j) x[j] = in[j][k];
        Op::template apply<sizeof(T) == 2>(x, y, alpha);
#pragma unroll
        for (int j = 0; j < Op::nout; ++j) out[j][k] = y[j];
    }
}

template <typename T, bool Dense>
OPK_DEV T* tensor_row(const RowsView& v, int64_t r) {
    return Dense ? static_cast<T*>(v.data) : row_ptr<T>(v, r);
}

// Dense: every tensor is one row (a.rows == 1), so a pack's row pointer is the tensor's
// data. A kernel of its own because the general case's 64-bit row arithmetic takes
// registers for the whole kernel: 54 against 32 for bf16 swiglu backward (ptxas -v),
// which cost the dense case 40% of its resident threads.
template <typename T, class Op, bool Dense>
OPK_DEV void elementwise(const ElementwiseArgs& a) {
    constexpr int P = Pack<T>::n, NI = Op::nin, NO = Op::nout;
    constexpr int NIA = NI > 0 ? NI : 1;
    const int64_t n = a.n, packs = (n + P - 1) / P, total = a.rows * packs;
    // Not unrolled with the word-built packs (AMD): a dense launch gives most threads one
    // pack, and an unrolled loop's trip count is a 64-bit division (seen with those packs
    // in nvcc's code for the smallest bodies, fp32 scale and zero).
    OPK_AMD_NO_UNROLL
    for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
         i += int64_t(gridDim.x) * blockDim.x) {
        int64_t r = 0, c = i;
        if (!Dense) {
            r = i / packs;
            c = i - r * packs;
        }
        // Raw 16-byte loads first, all inputs in flight before any is converted.
        uint4 raw[NIA];
#pragma unroll
        for (int j = 0; j < NI; ++j) load_raw<T, P>(tensor_row<const T, Dense>(a.t[j], r), c, n, a.t[j].vec, raw[j], 0.0f);
        float in[NIA][P];
#pragma unroll
        for (int j = 0; j < NI; ++j) unpack<T, P>(raw[j], in[j]);
        float out[NO][P];
        apply_each<T, Op>(in, out, a.alpha);
#pragma unroll
        for (int j = 0; j < NO; ++j) store_pack<T, P>(tensor_row<T, Dense>(a.t[NI + j], r), c, n, a.t[NI + j].vec, out[j]);
    }
}

// The dense kernel at 8 bytes a thread of each tensor (half a pack; kernel_params.h's
// EwDenseAccess says where, with the measurements): every tensor one row of n elements and
// 8-byte aligned, one access a thread and no loop. run_elementwise launches it only so (a
// grid that covers the row, every view aligned) and takes the general kernel otherwise.
// Straight-line because the earlier form, a grid-stride loop testing each view's alignment
// flag, took 1.014 of a straight-line 8-byte kernel's time on the bf16 geglu(tanh) backward
// and 1.03-1.08 on the forwards (bench/experiments/elementwise_layouts.cu, "half body"
// against "w8 k1", bench/results/2026-12-02-s51/r2); in its SASS the loads waited behind
// the flags' constant loads and a branch, here they follow the address arithmetic. Words,
// not punned arrays (rows.cuh's rule for AMD).
template <typename T, class Op>
OPK_DEV void elementwise_dense_half(const ElementwiseArgs& a) {
    constexpr int H = 8 / int(sizeof(T)), NI = Op::nin, NO = Op::nout;
    static_assert(NI > 0, "the half-pack kernel reads its inputs");
    const int64_t n = a.n, e = (int64_t(blockIdx.x) * blockDim.x + threadIdx.x) * H;
    if (e + H > n) {  // the row's last, partial access (or none), element by element
        if (e >= n) return;
        float in[NI][H], out[NO][H];
#pragma unroll
        for (int j = 0; j < NI; ++j)
#pragma unroll
            for (int k = 0; k < H; ++k)
                in[j][k] = e + k < n ? to_f32(static_cast<const T*>(a.t[j].data)[e + k]) : 0.0f;
        apply_each<T, Op>(in, out, a.alpha);
#pragma unroll
        for (int j = 0; j < NO; ++j)
#pragma unroll
            for (int k = 0; k < H; ++k)
                if (e + k < n) static_cast<T*>(a.t[NI + j].data)[e + k] = from_f32<T>(out[j][k]);
        return;
    }
    uint2 raw[NI];  // every input in flight before any is converted
#pragma unroll
    for (int j = 0; j < NI; ++j) raw[j] = *reinterpret_cast<const uint2*>(static_cast<const T*>(a.t[j].data) + e);
    float in[NI][H], out[NO][H];
#pragma unroll
    for (int j = 0; j < NI; ++j) {
        unpack_word<T, H>(raw[j].x, 0, in[j]);
        unpack_word<T, H>(raw[j].y, 1, in[j]);
    }
    apply_each<T, Op>(in, out, a.alpha);
#pragma unroll
    for (int j = 0; j < NO; ++j)
        *reinterpret_cast<uint2*>(static_cast<T*>(a.t[NI + j].data) + e) =
            make_uint2(pack_word<T, H>(out[j], 0), pack_word<T, H>(out[j], 1));
}

// A kernel's body: the dense kernels at the access EwDenseAccess gives their type.
template <typename T, class Op, bool Dense, int DenseBytes>
OPK_DEV void elementwise_body(const ElementwiseArgs& a) {
    static_assert(DenseBytes == 16 || (Dense && DenseBytes == 8), "a pack, or half a pack for dense tensors");
    if constexpr (DenseBytes == 8)
        elementwise_dense_half<T, Op>(a);
    else
        elementwise<T, Op, Dense>(a);
}

}  // namespace
}  // namespace opk

using namespace opk;

#define OPK_EW_KERNEL(name, T, Op, dense, bytes) \
    OPK_KERNEL(name, 256)(const ElementwiseArgs a) { elementwise_body<T, Op, dense, bytes>(a); }
#define OPK_EW_KERNELS(stem, Op, access)                                                  \
    OPK_EW_KERNEL(stem##_f32, float, Op, false, 16)                                       \
    OPK_EW_KERNEL(stem##_f16, opk_f16, Op, false, 16)                                     \
    OPK_EW_KERNEL(stem##_bf16, opk_bf16, Op, false, 16)                                   \
    OPK_EW_KERNEL(stem##_dense_f32, float, Op, true, ew_dense_bytes(access, 4))           \
    OPK_EW_KERNEL(stem##_dense_f16, opk_f16, Op, true, ew_dense_bytes(access, 2))         \
    OPK_EW_KERNEL(stem##_dense_bf16, opk_bf16, Op, true, ew_dense_bytes(access, 2))

OPK_EW_KERNELS(opk_swiglu_fwd, GatedForward<Silu>, kEwDensePack)
OPK_EW_KERNELS(opk_swiglu_bwd, GatedBackward<Silu>, kSwigluBwdDense)
OPK_EW_KERNELS(opk_geglu_erf_fwd, GatedForward<GeluErf>, kEwDensePack)
OPK_EW_KERNELS(opk_geglu_erf_bwd, GatedBackward<GeluErf>, kEwDensePack)
OPK_EW_KERNELS(opk_geglu_tanh_fwd, GatedForward<GeluTanh>, kEwDensePack)
OPK_EW_KERNELS(opk_geglu_tanh_bwd, GatedBackward<GeluTanh>, kGeluTanhBwdDense)
OPK_EW_KERNELS(opk_axpy, Axpy, kEwDensePack)
OPK_EW_KERNELS(opk_scale, Scale, kEwDensePack)
OPK_EW_KERNELS(opk_zero, Zero, kEwDensePack)
