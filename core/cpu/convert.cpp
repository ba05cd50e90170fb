#include "convert.h"
#include "simd.h"

namespace opkit::cpu {

OPKIT_CLONES void load_f32(DType d, const void* src, float* dst, int64_t n) {
    if (d == DType::f32) {
        std::memcpy(dst, src, size_t(n) * 4);
        return;
    }
    const uint16_t* s = static_cast<const uint16_t*>(src);
    if (d == DType::bf16) {
        for (int64_t i = 0; i < n; ++i) dst[i] = bf16_to_f32(s[i]);
    } else {
        for (int64_t i = 0; i < n; ++i) dst[i] = f16_to_f32(s[i]);
    }
}

OPKIT_CLONES void store_f32(DType d, const float* src, void* dst, int64_t n) {
    if (d == DType::f32) {
        std::memcpy(dst, src, size_t(n) * 4);
        return;
    }
    uint16_t* o = static_cast<uint16_t*>(dst);
    if (d == DType::bf16) {
        for (int64_t i = 0; i < n; ++i) o[i] = f32_to_bf16(src[i]);
    } else {
        for (int64_t i = 0; i < n; ++i) o[i] = f32_to_f16(src[i]);
    }
}

}  // namespace opkit::cpu
