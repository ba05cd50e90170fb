// expf written so that loops calling it vectorize (std::exp is an opaque libm call).
// Range reduction x = n*ln2 + r with |r| <= ln2/2, a degree-6 polynomial for e^r, and
// 2^n assembled in the exponent bits. Max relative error ~2 ulp over the fp32 range;
// inputs below -87.3 flush to 0, above 88.7 saturate to the largest finite power.
#pragma once

#include <cstdint>
#include <cstring>

namespace opkit::cpu {

inline float fast_exp(float x) {
    x = x < -87.33654f ? -87.33654f : x;
    x = x > 88.72283f ? 88.72283f : x;
    const float rounder = 12582912.0f;              // 1.5 * 2^23: adds with round-to-nearest
    const float t = x * 1.44269504088896341f + rounder;
    const float n = t - rounder;                    // round(x / ln2)
    float r = x - n * 0.693145751953125f;           // ln2 split in two for accuracy
    r = r - n * 1.428606765330187e-06f;
    float p = 1.0f / 720.0f;
    p = p * r + 1.0f / 120.0f;
    p = p * r + 1.0f / 24.0f;
    p = p * r + 1.0f / 6.0f;
    p = p * r + 0.5f;
    p = p * r + 1.0f;
    p = p * r + 1.0f;
    int32_t bits;
    std::memcpy(&bits, &t, 4);                      // low mantissa bits of t hold n
    const int32_t e = (bits - 0x4b400000) + 127;    // n + bias
    const int32_t scale_bits = e << 23;
    float scale;
    std::memcpy(&scale, &scale_bits, 4);
    return x <= -87.33654f ? 0.0f : p * scale;
}

}  // namespace opkit::cpu
