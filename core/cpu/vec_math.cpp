#include "vec_math.h"

#include "simd.h"
#include "convert.h"
#include "vec_exp.h"

#include <cmath>
#include <cstring>

namespace opkit::cpu::vec {

namespace {

// Sixteen elements of a row as fp32 lanes (f32x16, vec_exp.h says why a GCC vector), and
// sixteen fp32 lanes stored: memcpy, since rows need not be 64-byte aligned.
typedef uint16_t u16x16 __attribute__((vector_size(32)));
__attribute__((always_inline)) inline f32x16 load16(const float* p) {
    f32x16 v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
__attribute__((always_inline)) inline f32x16 load16(const uint16_t* p) {  // bf16 bits
    u16x16 h;
    std::memcpy(&h, p, sizeof h);
    return same_bits<f32x16>(__builtin_convertvector(h, u32x16) << 16);
}
__attribute__((always_inline)) inline void store16(float* p, const f32x16& v) { std::memcpy(p, &v, sizeof v); }

// The lanes' partial sums added in a fixed order (lane 0 first), as the loops below have
// always added theirs: every clone gives the same result.
__attribute__((always_inline)) inline float lane_sum(const f32x16& acc) {
    float r = 0.0f;
    for (int k = 0; k < 16; ++k) r += acc[k];
    return r;
}

}  // namespace

// Thirty-two independent partial sums, added in a fixed order: the compiler keeps them in
// several vectors (four of eight in the AVX2 clone; GCC 12's AVX-512 clone used two of
// sixteen), so several additions are in flight where one vector of partial sums would
// wait on each add's latency (4 cycles for 8 elements: the bound of a reduction over a row
// already in L1).
// The order of the additions is fixed by this text, not by the clone, so every clone gives
// the same result.
#define OPKIT_REDUCE(init, expr, combine)                                \
    constexpr int kParts = 32;                                            \
    float acc[kParts];                                                    \
    for (int k = 0; k < kParts; ++k) acc[k] = init;                       \
    int64_t i = 0;                                                        \
    for (; i + kParts <= n; i += kParts)                                  \
        for (int k = 0; k < kParts; ++k) acc[k] = combine(acc[k], expr(i + k)); \
    float r = init;                                                       \
    for (int k = 0; k < kParts; ++k) r = combine(r, acc[k]);              \
    for (; i < n; ++i) r = combine(r, expr(i));                           \
    return r

#define OPKIT_ADD(a, b) ((a) + (b))

OPKIT_CLONES float sum(const float* x, int64_t n) {
#define E(j) x[j]
    OPKIT_REDUCE(0.0f, E, OPKIT_ADD);
#undef E
}

OPKIT_CLONES float sum_squares(const float* x, int64_t n) {
#define E(j) (x[j] * x[j])
    OPKIT_REDUCE(0.0f, E, OPKIT_ADD);
#undef E
}

OPKIT_CLONES float dot(const float* x, const float* y, int64_t n) {
#define E(j) (x[j] * y[j])
    OPKIT_REDUCE(0.0f, E, OPKIT_ADD);
#undef E
}

// The maxima compare order-preserving integer keys of the float bits instead of floats:
// GCC keeps a float `a > b ? a : b` reduction scalar unless NaNs and signed zeros may be
// ignored (-ffast-math), while an integer max vectorizes (vpmaxsd/vpmaxsw). Measured on
// this VM (AVX2): the max of a 2048 x 4096 bf16 matrix, row by row, 4.2 -> 1.6 ms.
// The key of a non-negative float is its bits; a negative one's magnitude bits are
// flipped, so that more negative sorts lower; the map is its own inverse. The result
// differs from a float max only where it cannot matter: +0 wins over -0 (x - max is the
// same), and a NaN with the sign bit clear wins over everything (e^(x - NaN) is NaN, as
// e^(NaN - max) is for any NaN, so the row's sum is NaN either way).
__attribute__((always_inline)) inline int32_t order_key(int32_t bits) { return bits < 0 ? bits ^ 0x7fffffff : bits; }
__attribute__((always_inline)) inline int16_t order_key(int16_t bits) {
    return bits < 0 ? int16_t(bits ^ 0x7fff) : bits;
}

OPKIT_CLONES float max(const float* x, int64_t n) {
    int32_t m = INT32_MIN;  // the key of -NaN with all payload bits set, below -inf
    for (int64_t i = 0; i < n; ++i) {
        const int32_t k = order_key(int32_t(float_to_bits(x[i])));
        m = k > m ? k : m;
    }
    return n ? bits_to_float(uint32_t(order_key(m))) : -INFINITY;
}

// exp and sum in one pass, sixteen lanes at a time (loaded before y is written: y may be x
// itself, softmax works in place; from bf16, y is fp32 scratch, never the input). Sixteen
// partial sums, added in a fixed order, keep the result independent of the clone.
template <class T>
__attribute__((always_inline)) inline float exp_shifted_row(const T* x, float shift, float* y, int64_t n) {
    f32x16 acc = {};
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const f32x16 e = exp_nonpositive(load16(x + i) - shift);
        store16(y + i, e);
        acc += e;
    }
    float r = lane_sum(acc);
    for (; i < n; ++i) {
        const float e = exp_nonpositive(as_f32(x[i]) - shift);
        y[i] = e;
        r += e;
    }
    return r;
}

OPKIT_CLONES_WIDE float exp_shifted(const float* x, float shift, float* y, int64_t n) {
    return exp_shifted_row(x, shift, y, n);
}

OPKIT_CLONES void scale(float* x, float s, int64_t n) {
    for (int64_t i = 0; i < n; ++i) x[i] *= s;
}

OPKIT_CLONES void mul(const float* a, const float* b, float* y, int64_t n) {
    for (int64_t i = 0; i < n; ++i) y[i] = a[i] * b[i];
}

OPKIT_CLONES void axpy(float alpha, const float* x, float* y, int64_t n) {
    for (int64_t i = 0; i < n; ++i) y[i] += alpha * x[i];
}

OPKIT_CLONES void add(const float* x, float* y, int64_t n) {
    for (int64_t i = 0; i < n; ++i) y[i] += x[i];
}

OPKIT_CLONES void shift_scale(float* x, float shift, float s, int64_t n) {
    for (int64_t i = 0; i < n; ++i) x[i] = (x[i] - shift) * s;
}

OPKIT_CLONES void scale_mul_add(float* x, float s, const float* w, const float* b, int64_t n) {
    for (int64_t i = 0; i < n; ++i) x[i] = x[i] * s * w[i] + b[i];
}

OPKIT_CLONES void mul_acc(const float* a, const float* b, float* acc, int64_t n) {
    for (int64_t i = 0; i < n; ++i) acc[i] += a[i] * b[i];
}

OPKIT_CLONES void layer_norm_grad(float* g, const float* xh, float s, float mg, float mgx, int64_t n) {
    for (int64_t i = 0; i < n; ++i) g[i] = s * (g[i] - mg - xh[i] * mgx);
}

OPKIT_CLONES_WIDE float max_bf16(const uint16_t* x, int64_t n) {
    int16_t m = INT16_MIN;
    for (int64_t i = 0; i < n; ++i) {
        const int16_t k = order_key(int16_t(x[i]));
        m = k > m ? k : m;
    }
    return n ? bf16_to_f32(uint16_t(order_key(m))) : -INFINITY;
}

OPKIT_CLONES_WIDE float dot_bf16(const uint16_t* a, const uint16_t* b, int64_t n) {
#define E(j) (bf16_to_f32(a[j]) * bf16_to_f32(b[j]))
    OPKIT_REDUCE(0.0f, E, OPKIT_ADD);
#undef E
}

OPKIT_CLONES_WIDE float exp_shifted_bf16(const uint16_t* x, float shift, float* y, int64_t n) {
    return exp_shifted_row(x, shift, y, n);
}

// Sum of exp(x[i] - shift), nothing stored: the cross-entropy forward's log-sum-exp,
// which needs no exponentials afterwards. Sixteen partial sums as in exp_shifted.
template <class T>
__attribute__((always_inline)) inline float exp_sum_row(const T* x, float shift, int64_t n) {
    f32x16 acc = {};
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) acc += exp_nonpositive(load16(x + i) - shift);
    float r = lane_sum(acc);
    for (; i < n; ++i) r += exp_nonpositive(as_f32(x[i]) - shift);
    return r;
}

OPKIT_CLONES_WIDE float exp_sum(const float* x, float shift, int64_t n) { return exp_sum_row(x, shift, n); }
OPKIT_CLONES_WIDE float exp_sum_bf16(const uint16_t* x, float shift, int64_t n) { return exp_sum_row(x, shift, n); }

OPKIT_CLONES_WIDE float sum_bf16(const uint16_t* x, int64_t n) {
#define E(j) bf16_to_f32(x[j])
    OPKIT_REDUCE(0.0f, E, OPKIT_ADD);
#undef E
}

// LayerNorm's bf16 row passes, read from the bf16 row itself (no fp32 copy, no pass that
// only converts or shifts): the same arithmetic as shift_scale, sum_squares and
// scale_mul_add on a widened copy, so the same results. With sum_bf16 they have the
// AVX-512 clone (simd.h).
OPKIT_CLONES_WIDE float centered_sum_squares_bf16(const uint16_t* x, float mu, int64_t n) {
#define E(j) ((bf16_to_f32(x[j]) - mu) * (bf16_to_f32(x[j]) - mu))
    OPKIT_REDUCE(0.0f, E, OPKIT_ADD);
#undef E
}

// A plain loop, not stack blocks: GCC stored a 16-element block through the stack and
// general registers (a store-forwarding stall on every block; 22 % of the op's time in
// perf). y may still alias x: GCC's run-time alias check then takes its scalar loop.
OPKIT_CLONES_WIDE void normalize_bf16(const uint16_t* x, float mu, float s, const float* w, const float* b,
                                      uint16_t* y, int64_t n) {
    for (int64_t i = 0; i < n; ++i) y[i] = f32_to_bf16((bf16_to_f32(x[i]) - mu) * s * w[i] + b[i]);
}

OPKIT_CLONES_WIDE void scale_to_bf16(const float* y, float s, uint16_t* out, int64_t n) {
    for (int64_t i = 0; i < n; ++i) out[i] = f32_to_bf16(y[i] * s);
}

// A plain loop, as normalize_bf16: through 16-element stack blocks GCC split each block's
// store into six pieces. dx may alias y or dy (GCC's alias check then runs its scalar loop).
OPKIT_CLONES_WIDE void mul_shifted_bf16(const uint16_t* y, const uint16_t* dy, float s, uint16_t* dx, int64_t n) {
    for (int64_t i = 0; i < n; ++i) dx[i] = f32_to_bf16(bf16_to_f32(y[i]) * (bf16_to_f32(dy[i]) - s));
}

OPKIT_CLONES void mul_shifted(const float* y, float s, float* g, int64_t n) {
    for (int64_t i = 0; i < n; ++i) g[i] = y[i] * (g[i] - s);
}

OPKIT_CLONES void rotate_half(const float* x, const float* c, const float* s, float* out, int64_t d,
                              bool backward) {
    const int64_t h = d / 2;
    if (!backward) {
        for (int64_t i = 0; i < h; ++i) {
            out[i] = x[i] * c[i] - x[i + h] * s[i];
            out[i + h] = x[i + h] * c[i + h] + x[i] * s[i + h];
        }
    } else {
        for (int64_t i = 0; i < h; ++i) {
            out[i] = x[i] * c[i] + x[i + h] * s[i + h];
            out[i + h] = x[i + h] * c[i + h] - x[i] * s[i];
        }
    }
}

}  // namespace opkit::cpu::vec
