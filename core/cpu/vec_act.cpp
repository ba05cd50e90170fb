// Element loops of the gated activations and the cross-entropy gradient (vec_act.h).
#include "vec_act.h"

#include "convert.h"
#include "simd.h"
#include "vec_exp.h"

namespace opkit::cpu::vec {
namespace {

constexpr float kInvSqrt2 = 0.70710678118654752f;
constexpr float kInvSqrt2Pi = 0.39894228040143268f;  // 1/sqrt(2*pi)
constexpr float kSqrt2OverPi = 0.79788456080286536f;
constexpr float kCubic = 0.044715f;

// act(a, &value, &derivative); inlined into each clone's loop.
struct Silu {
    __attribute__((always_inline)) static void eval(float a, float* value, float* derivative) {
        const float s = 1.0f / (1.0f + exp_fast(-a));
        *value = a * s;
        *derivative = s * (1.0f + a * (1.0f - s));
    }
};

struct GeluErf {
    __attribute__((always_inline)) static void eval(float a, float* value, float* derivative) {
        // erfc(-x) rather than 1 + erf(x): no cancellation for negative a, where the CDF is tiny
        const float cdf = 0.5f * erfc_fast(-a * kInvSqrt2);
        *value = a * cdf;
        *derivative = cdf + a * kInvSqrt2Pi * exp_fast(-0.5f * a * a);
    }
};

struct GeluTanh {
    __attribute__((always_inline)) static void eval(float a, float* value, float* derivative) {
        // 0.5 * (1 + tanh(u)) is sigmoid(2u). Both sigmoid(2u) and 1 - sigmoid(2u) are formed
        // from exp(-2|u|), so neither cancels for large |a| (1 + tanh(u) does for a << 0).
        const float u = kSqrt2OverPi * (a + kCubic * a * a * a);
        const float e = exp_fast(-2.0f * (u < 0.0f ? -u : u));
        const float big = 1.0f / (1.0f + e), small = e * big;
        const float s = u >= 0.0f ? big : small, rest = u >= 0.0f ? small : big;
        *value = a * s;
        *derivative = s + 2.0f * a * s * rest * kSqrt2OverPi * (1.0f + 3.0f * kCubic * a * a);
    }
};

// Everything below is always_inline: a helper left out of line would be compiled once,
// for the baseline ISA, and called from every clone.

// Elements per block: the inputs of a block are copied to the stack before any output
// of it is written, so an output that aliases an input is read first, and the loops over
// the stack copies have no aliasing for the vectorizer to fear.
constexpr int64_t kBlock = 256;

// Elements as fp32 (as_f32, convert.h), and back: f32 arrays as they are, bf16 ones (raw
// 16-bit patterns) widened and rounded to nearest even inside the block loops, so bf16
// rows need no fp32 copies.
template <class T>
__attribute__((always_inline)) inline T from_f32(float v) {
    if constexpr (sizeof(T) == 2)
        return f32_to_bf16(v);
    else
        return v;
}

template <class Act, class T = float>
__attribute__((always_inline)) inline void forward(const T* a, const T* b, T* y, int64_t n) {
    for (int64_t s = 0; s < n; s += kBlock) {
        const int64_t m = n - s < kBlock ? n - s : kBlock;
        float ab[kBlock], bb[kBlock], yb[kBlock];
        for (int64_t i = 0; i < m; ++i) {
            ab[i] = as_f32(a[s + i]);
            bb[i] = as_f32(b[s + i]);
        }
        for (int64_t i = 0; i < m; ++i) {
            float v, d;
            Act::eval(ab[i], &v, &d);
            yb[i] = v * bb[i];
        }
        for (int64_t i = 0; i < m; ++i) y[s + i] = from_f32<T>(yb[i]);
    }
}

template <class Act, class T = float>
__attribute__((always_inline)) inline void backward(const T* a, const T* b, const T* g, T* da, T* db, int64_t n) {
    for (int64_t s = 0; s < n; s += kBlock) {
        const int64_t m = n - s < kBlock ? n - s : kBlock;
        float ab[kBlock], bb[kBlock], gb[kBlock], dab[kBlock], dbb[kBlock];
        for (int64_t i = 0; i < m; ++i) {
            ab[i] = as_f32(a[s + i]);
            bb[i] = as_f32(b[s + i]);
            gb[i] = as_f32(g[s + i]);
        }
        for (int64_t i = 0; i < m; ++i) {
            float v, d;
            Act::eval(ab[i], &v, &d);
            dab[i] = gb[i] * bb[i] * d;
            dbb[i] = gb[i] * v;
        }
        for (int64_t i = 0; i < m; ++i) {
            da[s + i] = from_f32<T>(dab[i]);
            db[s + i] = from_f32<T>(dbb[i]);
        }
    }
}

}  // namespace

OPKIT_CLONES_WIDE void silu_mul(const float* a, const float* b, float* y, int64_t n) { forward<Silu>(a, b, y, n); }
OPKIT_CLONES_WIDE void gelu_erf_mul(const float* a, const float* b, float* y, int64_t n) {
    forward<GeluErf>(a, b, y, n);
}
OPKIT_CLONES_WIDE void gelu_tanh_mul(const float* a, const float* b, float* y, int64_t n) {
    forward<GeluTanh>(a, b, y, n);
}

OPKIT_CLONES_WIDE void silu_mul_backward(const float* a, const float* b, const float* g, float* da, float* db,
                                    int64_t n) {
    backward<Silu>(a, b, g, da, db, n);
}
OPKIT_CLONES_WIDE void gelu_erf_mul_backward(const float* a, const float* b, const float* g, float* da, float* db,
                                        int64_t n) {
    backward<GeluErf>(a, b, g, da, db, n);
}
OPKIT_CLONES_WIDE void gelu_tanh_mul_backward(const float* a, const float* b, const float* g, float* da, float* db,
                                         int64_t n) {
    backward<GeluTanh>(a, b, g, da, db, n);
}

OPKIT_CLONES_WIDE void silu_mul_bf16(const uint16_t* a, const uint16_t* b, uint16_t* y, int64_t n) {
    forward<Silu>(a, b, y, n);
}
OPKIT_CLONES_WIDE void gelu_erf_mul_bf16(const uint16_t* a, const uint16_t* b, uint16_t* y, int64_t n) {
    forward<GeluErf>(a, b, y, n);
}
OPKIT_CLONES_WIDE void gelu_tanh_mul_bf16(const uint16_t* a, const uint16_t* b, uint16_t* y, int64_t n) {
    forward<GeluTanh>(a, b, y, n);
}
OPKIT_CLONES_WIDE void silu_mul_backward_bf16(const uint16_t* a, const uint16_t* b, const uint16_t* g, uint16_t* da,
                                              uint16_t* db, int64_t n) {
    backward<Silu>(a, b, g, da, db, n);
}
OPKIT_CLONES_WIDE void gelu_erf_mul_backward_bf16(const uint16_t* a, const uint16_t* b, const uint16_t* g,
                                                  uint16_t* da, uint16_t* db, int64_t n) {
    backward<GeluErf>(a, b, g, da, db, n);
}
OPKIT_CLONES_WIDE void gelu_tanh_mul_backward_bf16(const uint16_t* a, const uint16_t* b, const uint16_t* g,
                                                   uint16_t* da, uint16_t* db, int64_t n) {
    backward<GeluTanh>(a, b, g, da, db, n);
}

// The cross-entropy gradient of one row, in the row's own type: grad may be x itself
// (in place over the logits), and the target's term is subtracted in fp32 before the
// rounding to T.
template <class T>
__attribute__((always_inline)) inline void softmax_minus_row(const T* x, float lse, float smooth, float scale,
                                                             int64_t t, float hit, T* grad, int64_t n) {
    for (int64_t s = 0; s < n; s += kBlock) {
        const int64_t m = n - s < kBlock ? n - s : kBlock;
        float xb[kBlock];
        for (int64_t j = 0; j < m; ++j) xb[j] = as_f32(x[s + j]);
        for (int64_t j = 0; j < m; ++j) xb[j] = (exp_fast(xb[j] - lse) - smooth) * scale;
        if (t >= s && t < s + m) xb[t - s] -= hit;
        for (int64_t j = 0; j < m; ++j) grad[s + j] = from_f32<T>(xb[j]);
    }
}

OPKIT_CLONES_WIDE void softmax_minus(const float* x, float lse, float smooth, float scale, int64_t t, float hit,
                                     float* grad, int64_t n) {
    softmax_minus_row(x, lse, smooth, scale, t, hit, grad, n);
}
OPKIT_CLONES_WIDE void softmax_minus_bf16(const uint16_t* x, float lse, float smooth, float scale, int64_t t,
                                          float hit, uint16_t* grad, int64_t n) {
    softmax_minus_row(x, lse, smooth, scale, t, hit, grad, n);
}

}  // namespace opkit::cpu::vec
