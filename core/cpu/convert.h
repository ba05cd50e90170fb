// Element conversions between storage dtypes and the fp32 the kernels compute in.
// bf16 and f16 are handled as raw 16-bit patterns so that no compiler extension is
// needed; the conversions round to nearest even, like PyTorch's.
#pragma once

#include "../tensor.h"

#include <cstdint>
#include <cstring>

namespace opkit::cpu {

inline float bf16_to_f32(uint16_t h) {
    uint32_t u = uint32_t(h) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

inline uint16_t f32_to_bf16(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) return uint16_t((u >> 16) | 0x40);  // quiet NaN
    u += 0x7fffu + ((u >> 16) & 1u);
    return uint16_t(u >> 16);
}

// An element of an f32 row, or of a bf16 row held as raw bits, as fp32: for the kernels
// written once for both row types (vec_act.cpp, vec_math.cpp).
__attribute__((always_inline)) inline float as_f32(float v) { return v; }
__attribute__((always_inline)) inline float as_f32(uint16_t v) { return bf16_to_f32(v); }

inline float f16_to_f32(uint16_t h) {
    const uint32_t sign = uint32_t(h & 0x8000u) << 16;
    const uint32_t exp = (h >> 10) & 0x1fu;
    const uint32_t man = h & 0x3ffu;
    uint32_t u;
    if (exp == 0x1f) {
        u = sign | 0x7f800000u | (man << 13);
    } else if (exp != 0) {
        u = sign | ((exp + 112u) << 23) | (man << 13);
    } else {
        // zero or subnormal: value = man * 2^-24, exact in fp32
        float f = float(man) * 5.9604644775390625e-8f;
        std::memcpy(&u, &f, 4);
        u |= sign;
    }
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

inline uint16_t f32_to_f16(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    const uint16_t sign = uint16_t((u >> 16) & 0x8000u);
    const uint32_t absu = u & 0x7fffffffu;
    if (absu > 0x7f800000u) return uint16_t(sign | 0x7e00u);        // NaN
    if (absu >= 0x477ff000u) return uint16_t(sign | 0x7c00u);       // overflow -> inf
    if (absu < 0x38800000u) {                                       // subnormal or zero
        float a;
        std::memcpy(&a, &absu, 4);
        // scale to units of 2^-24 and round to nearest even
        const float scaled = a * 16777216.0f;
        uint32_t q = uint32_t(scaled);
        const float rem = scaled - float(q);
        if (rem > 0.5f || (rem == 0.5f && (q & 1u))) ++q;
        return uint16_t(sign | q);
    }
    uint32_t v = absu - (112u << 23);  // rebias exponent
    v += 0xfffu + ((v >> 13) & 1u);    // round to nearest even at bit 13
    return uint16_t(sign | (v >> 13));
}

// Converts n elements of storage dtype `d` at src into fp32 at dst.
void load_f32(DType d, const void* src, float* dst, int64_t n);
// Converts n fp32 values into storage dtype `d` at dst.
void store_f32(DType d, const float* src, void* dst, int64_t n);

inline float load_one(DType d, const void* p) {
    switch (d) {
    case DType::f32: return *static_cast<const float*>(p);
    case DType::bf16: return bf16_to_f32(*static_cast<const uint16_t*>(p));
    default: return f16_to_f32(*static_cast<const uint16_t*>(p));
    }
}

inline void store_one(DType d, float v, void* p) {
    switch (d) {
    case DType::f32: *static_cast<float*>(p) = v; break;
    case DType::bf16: *static_cast<uint16_t*>(p) = f32_to_bf16(v); break;
    default: *static_cast<uint16_t*>(p) = f32_to_f16(v); break;
    }
}

inline int64_t load_index(DType d, const void* p) {
    return d == DType::i64 ? *static_cast<const int64_t*>(p)
                           : int64_t(*static_cast<const int32_t*>(p));
}

}  // namespace opkit::cpu
