// bf16 and f16 to and from fp32, for the BLASes that multiply only fp32: operands are
// widened exactly, results rounded to nearest-even once (what opkit's CPU defaults do).
#pragma once

#include <cstdint>

namespace opkit_blas {

enum class Half { bf16, f16 };

// Rows [r0, r0 + rows) and columns [c0, c0 + cols) of a stored matrix (row stride ld
// elements, columns contiguous) into a dense fp32 [rows, cols].
void widen_block(Half h, const void* base, int64_t ld, int64_t r0, int64_t rows, int64_t c0, int64_t cols,
                 float* out);
// A dense fp32 [rows, cols] into rows [r0, r0 + rows) of a stored matrix (row stride ld).
void narrow_block(Half h, const float* in, int64_t rows, int64_t cols, void* base, int64_t ld, int64_t r0);

float f16_to_f32(uint16_t h);
uint16_t f32_to_f16(float f);
float bf16_to_f32(uint16_t h);
uint16_t f32_to_bf16(float f);

}  // namespace opkit_blas
