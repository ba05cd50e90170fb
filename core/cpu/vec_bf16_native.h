// The bf16-writing loops with the CPU's own fp32 -> bf16 conversion, where it has one
// (AVX512-BF16's vcvtneps2bf16: round to nearest even, NaN quieted, as f32_to_bf16 does).
// The portable loops emulate that rounding in integer arithmetic, which costs more than
// the loop's own arithmetic; PyTorch's bf16 CPU kernels use the instruction.
#pragma once

#include <cstdint>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(OPKIT_NO_CLONES)
#  define OPKIT_BF16_NATIVE 1
#else
#  define OPKIT_BF16_NATIVE 0
#endif

namespace opkit::cpu::vec {

// Whether this CPU (and its OS) runs the native loops; false where they are not built.
bool have_native_bf16();

#if OPKIT_BF16_NATIVE
// As mul_shifted_bf16 (vec_math.h): dx = y * (dy - s); dx may be dy or y itself. Only
// where have_native_bf16(). One difference from the portable loop: the instruction treats
// denormal fp32 results as zero (bf16 denormals, below 1.2e-38, come out as signed zero).
void mul_shifted_bf16_native(const uint16_t* y, const uint16_t* dy, float s, uint16_t* dx, int64_t n);
#endif

}  // namespace opkit::cpu::vec
