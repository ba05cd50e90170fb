// exp and erfc for fp32 loops that must vectorize: branch-free (every case is a select),
// so GCC turns a loop over them into SIMD code in each OPKIT_CLONES clone, where a call to
// libm's expf/erfcf per element keeps the loop scalar (measured on this VM: 0.69 against
// 5.1 ns per element for a 4096-element loop of exp). Only included by the vec_*.cpp
// files, which are compiled with -fno-trapping-math (core/CMakeLists.txt): without it GCC
// keeps a branch per comparison and vectorizes nothing.
//
// Accuracy (tests/test_cpu_vec_math.cpp sweeps them against double precision):
//   exp_fast: at most 1.4 ulp over [-103.9, 88.7]; subnormal results as libm gives them
//     within one subnormal step; -inf -> 0, +inf and x > 88.72 -> inf, NaN -> NaN.
//   exp_nonpositive (x <= 0 only: a row minus its maximum): the same 1.4 ulp over
//     [-87.3, 0]; below, zero where e^x < 2^-126 (flushed: measured on the 2-core VM, one
//     thread, the bf16 softmax forward at 2048x4096 6.0 -> 4.3 ms against exp_fast, whose
//     clamps and two-factor 2^n this drops); -inf -> 0, NaN -> NaN.
//   erfc_fast: relative error under 2e-6 where erfc(x) > 1e-30, and it is used only by
//     GELU, whose tolerance (docs/tolerances.md) is 1.4e-6 relative plus an absolute
//     term that covers the small tail values.
#pragma once

#include <cstdint>
#include <cstring>

namespace opkit::cpu::vec {

// Sixteen fp32 lanes as one GCC vector, for the loops that must use AVX-512's full width:
// GCC's x86-64-v4 clones auto-vectorize with 256-bit registers (its default
// prefer-vector-width, which -mprefer-vector-width=512 does not change inside a
// target_clones clone), so a plain loop there runs two ymm halves. An explicit 64-byte
// vector is one zmm register in that clone, two ymm in the x86-64-v3 one and four xmm in
// the baseline: the same lanes, in the same order, everywhere.
// The templates here pass them by value, always inlined into the clone that calls them, so
// no call crosses the ABI boundary GCC's -Wpsabi note is about (core/CMakeLists.txt).
typedef float f32x16 __attribute__((vector_size(64)));
typedef uint32_t u32x16 __attribute__((vector_size(64)));

// The unsigned integer of a float's bits: uint32_t for float, u32x16 for f32x16.
template <class F>
struct BitsOf {
    using type = uint32_t;
};
template <>
struct BitsOf<f32x16> {
    using type = u32x16;
};

// The same bits as another type of the same size (a register move once inlined).
template <class To, class From>
__attribute__((always_inline)) inline To same_bits(const From& v) {
    static_assert(sizeof(To) == sizeof(From), "same size");
    To t;
    std::memcpy(&t, &v, sizeof t);
    return t;
}

__attribute__((always_inline)) inline float bits_to_float(uint32_t b) { return same_bits<float>(b); }
__attribute__((always_inline)) inline uint32_t float_to_bits(float f) { return same_bits<uint32_t>(f); }

// e^x = 2^n * e^r with n = round(x / ln 2) and |r| <= ln(2) / 2: ln 2 split in two so that
// n * ln2_hi is exact, a degree-7 polynomial for e^r (Taylor-like, coefficients fitted
// for float), and 2^n built from exponent bits in two halves so that n from -150 to 128
// (subnormal to overflowing results) needs no special case.
//
// n as an integer is read from the low mantissa bits of the sum that rounds it, rather
// than converted from float: no conversion instruction and no NaN test before it (a NaN
// converted to int is undefined behaviour; a NaN's bits are only bits, and the NaN stays
// in p). The results are the same bits as with the conversion (compared over every 997th
// float pattern); the AVX2 loop of exp over bf16 input is about 20 % shorter and faster.
// The shared core: e^x = 2^n * p for x already clamped to where n fits the callers'
// exponent arithmetic; returns p = e^r and sets *n_bits to n as an unsigned integer
// (wrapped for a NaN, harmlessly: the NaN stays in p). F is float or f32x16 (each lane
// as a float), U its BitsOf.
template <class F, class U = typename BitsOf<F>::type>
__attribute__((always_inline)) inline F exp_reduced(F x, U* n_bits) {
    constexpr float kLog2e = 1.44269504088896341f;
    constexpr float kRound = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
    const F t = x * kLog2e + kRound;       // n in its low mantissa bits, as an integer
    const F n = t - kRound;
    F r = x - n * 0.693359375f;  // ln 2, high part (exact times n)
    r = r - n * -2.12194440e-4f;     // ln 2 - high part
    F p = r * 1.9875691500e-4f + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    *n_bits = same_bits<U>(t) - float_to_bits(kRound);
    return p * r * r + r + 1.0f;
}

__attribute__((always_inline)) inline float exp_fast(float x) {
    constexpr float kHi = 88.8f, kLo = -104.0f;  // e^88.8 overflows, e^-104 rounds to 0
    float xc = x > kHi ? kHi : x;                 // NaN passes both selects
    xc = xc < kLo ? kLo : xc;
    uint32_t ni;
    const float p = exp_reduced(xc, &ni);
    const uint32_t e1 = uint32_t(int32_t(ni) >> 1), e2 = ni - e1;  // 2^n in two halves
    return p * bits_to_float((e1 + 127) << 23) * bits_to_float((e2 + 127) << 23);
}

// e^x for x <= 0 or NaN, as the loops that first subtract a row's maximum need (softmax,
// log-sum-exp): no upper clamp, and results below 2^-126 (x < -87.34) are flushed to
// zero instead of built as subnormals, so 2^n is one factor, not two. Within 1.4 ulp of
// e^x where that is at least 2^-126 (the same polynomial as exp_fast); -inf -> 0, NaN ->
// NaN. Inputs above 0 are outside its contract (past 88.7 its result is garbage).
template <class F>
__attribute__((always_inline)) inline F exp_nonpositive(F x) {
    using U = typename BitsOf<F>::type;
    constexpr float kLo = -87.33654f;  // ln(2^-126): below it the result is flushed to zero
    U ni;
    const F p = exp_reduced(x, &ni);
    // n in [-126, 0] here gives a normal 2^n; below kLo (and for -inf) the select drops
    // whatever the wrapped exponent made. A NaN fails the comparison and stays in p.
    const F y = p * same_bits<F>((ni + 127u) << 23);
    if constexpr (sizeof(F) == sizeof(float)) {
        return x < kLo ? 0.0f : y;
    } else {
        return x < kLo ? F{} : y;  // lane by lane
    }
}

// erfc(x) = t * exp(-z^2 + P(t)), z = |x|, t = 1 / (1 + z/2), for x >= 0, and
// 2 - erfc(-x) below: the classic Chebyshev fit whose fractional error is under 1.2e-7 in
// exact arithmetic; in float the rounding of -z^2 + P(t) adds about 1e-7 * z^2 relative.
__attribute__((always_inline)) inline float erfc_fast(float x) {
    const float z = x < 0.0f ? -x : x;
    const float t = 1.0f / (1.0f + 0.5f * z);
    float p = 0.17087277f;
    p = p * t - 0.82215223f;
    p = p * t + 1.48851587f;
    p = p * t - 1.13520398f;
    p = p * t + 0.27886807f;
    p = p * t - 0.18628806f;
    p = p * t + 0.09678418f;
    p = p * t + 0.37409196f;
    p = p * t + 1.00002368f;
    p = p * t - 1.26551223f;
    const float y = t * exp_fast(p - z * z);
    return x < 0.0f ? 2.0f - y : y;
}

}  // namespace opkit::cpu::vec
