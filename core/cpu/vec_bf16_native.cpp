// AVX512-BF16 versions of the bf16-writing loops (vec_bf16_native.h), compiled for that
// ISA alone through target attributes and called only where the CPU reports it.
#include "vec_bf16_native.h"

#if OPKIT_BF16_NATIVE
#include <immintrin.h>
#endif

namespace opkit::cpu::vec {

#if OPKIT_BF16_NATIVE

// libgcc's check includes the OS's support for the AVX-512 register state (XCR0).
bool have_native_bf16() {
    static const bool yes = __builtin_cpu_supports("avx512bf16") && __builtin_cpu_supports("avx512bw") &&
                            __builtin_cpu_supports("avx512vl");
    return yes;
}

#define OPKIT_AVX512_BF16 __attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16")))

namespace {

// 8 bf16 values (raw bits) as fp32: the bits shifted into the high half of each lane.
OPKIT_AVX512_BF16 inline __m256 widen8(__m128i raw) {
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(raw), 16));
}

}  // namespace

// 256-bit vectors: the EVEX forms of AVX2-width instructions, which on the Xeons that
// dropped the x86-64-v4 clone (simd.h) do not lower the core clock as 512-bit ones do.
// The row's tail goes through the same instruction under a mask, so that every element
// of a row is rounded the same way.
OPKIT_AVX512_BF16 void mul_shifted_bf16_native(const uint16_t* y, const uint16_t* dy, float s, uint16_t* dx,
                                               int64_t n) {
    const __m256 vs = _mm256_set1_ps(s);
    for (int64_t i = 0; i < n; i += 8) {
        const int64_t left = n - i;
        const __mmask8 m = left >= 8 ? __mmask8(0xff) : __mmask8((1u << left) - 1u);
        const __m256 a = widen8(_mm_maskz_loadu_epi16(m, y + i));
        const __m256 g = widen8(_mm_maskz_loadu_epi16(m, dy + i));
        const __m128bh r = _mm256_cvtneps_pbh(_mm256_mul_ps(a, _mm256_sub_ps(g, vs)));
        _mm_mask_storeu_epi16(dx + i, m, reinterpret_cast<__m128i>(r));
    }
}

#else

bool have_native_bf16() { return false; }

#endif

}  // namespace opkit::cpu::vec
