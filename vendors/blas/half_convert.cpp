#include "half_convert.h"

#include <cstring>

namespace opkit_blas {
namespace {

uint32_t bits_of(float f) {
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}
float float_of(uint32_t u) {
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

// Round to nearest even, a NaN kept NaN (quiet). A select, not a branch: the row loops
// below vectorize over it.
inline uint16_t round_to_bf16(float f) {
    const uint32_t u = bits_of(f);
    const uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    return uint16_t((u & 0x7fffffffu) > 0x7f800000u ? (u >> 16) | 0x40u : rounded);
}

// The bf16 row loops, compiled for AVX2 and AVX-512 too (picked at load time, as libopkit's
// own kernels are): narrowing oneDNN's fp32 C block scalar took a quarter of a bf16
// 1024^3 product's time on one core.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#  define OPKIT_BLAS_CLONES __attribute__((target_clones("default", "arch=x86-64-v3", "arch=x86-64-v4")))
#else
#  define OPKIT_BLAS_CLONES
#endif

OPKIT_BLAS_CLONES void narrow_bf16_row(const float* in, int64_t n, uint16_t* out) {
    for (int64_t c = 0; c < n; ++c) out[c] = round_to_bf16(in[c]);
}

OPKIT_BLAS_CLONES void widen_bf16_row(const uint16_t* in, int64_t n, float* out) {
    for (int64_t c = 0; c < n; ++c) out[c] = float_of(uint32_t(in[c]) << 16);
}

}  // namespace

float bf16_to_f32(uint16_t h) { return float_of(uint32_t(h) << 16); }

uint16_t f32_to_bf16(float f) { return round_to_bf16(f); }

float f16_to_f32(uint16_t h) {
    const uint32_t sign = uint32_t(h & 0x8000u) << 16;
    const uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0) {  // zero or subnormal: m * 2^-24, exact in fp32
        const float v = float(m) * 0x1p-24f;
        return sign ? -v : v;
    }
    if (e == 31) return float_of(sign | 0x7f800000u | (m << 13));
    return float_of(sign | ((e + 112u) << 23) | (m << 13));
}

uint16_t f32_to_f16(float f) {
    const uint32_t u = bits_of(f);
    const uint32_t sign = (u >> 16) & 0x8000u, ax = u & 0x7fffffffu;
    if (ax >= 0x7f800000u) return uint16_t(sign | 0x7c00u | (ax > 0x7f800000u ? 0x200u : 0u));
    if (ax >= 0x477ff000u) return uint16_t(sign | 0x7c00u);  // at or past 65520: rounds to inf
    if (ax < 0x38800000u) {  // below 2^-14: a subnormal half (units of 2^-24)
        const uint32_t e = ax >> 23;
        if (e < 102) return uint16_t(sign);  // below 2^-25: rounds to zero
        const uint32_t m = (ax & 0x7fffffu) | 0x800000u, shift = 126u - e;
        uint32_t q = m >> shift;
        const uint32_t rem = m & ((1u << shift) - 1u), half = 1u << (shift - 1u);
        if (rem > half || (rem == half && (q & 1u))) ++q;  // may carry into the smallest normal
        return uint16_t(sign | q);
    }
    uint32_t h = (ax - 0x38000000u) >> 13;  // exponent rebiased 127 -> 15
    const uint32_t rem = ax & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;  // may carry into the exponent
    return uint16_t(sign | h);
}

void widen_block(Half h, const void* base, int64_t ld, int64_t r0, int64_t rows, int64_t c0, int64_t cols,
                 float* out) {
    const uint16_t* src = static_cast<const uint16_t*>(base);
    for (int64_t r = 0; r < rows; ++r) {
        const uint16_t* in = src + (r0 + r) * ld + c0;
        float* o = out + r * cols;
        if (h == Half::bf16)
            widen_bf16_row(in, cols, o);
        else
            for (int64_t c = 0; c < cols; ++c) o[c] = f16_to_f32(in[c]);
    }
}

void narrow_block(Half h, const float* in, int64_t rows, int64_t cols, void* base, int64_t ld, int64_t r0) {
    uint16_t* dst = static_cast<uint16_t*>(base);
    for (int64_t r = 0; r < rows; ++r) {
        uint16_t* o = dst + (r0 + r) * ld;
        const float* i = in + r * cols;
        if (h == Half::bf16)
            narrow_bf16_row(i, cols, o);
        else
            for (int64_t c = 0; c < cols; ++c) o[c] = f32_to_f16(i[c]);
    }
}

}  // namespace opkit_blas
