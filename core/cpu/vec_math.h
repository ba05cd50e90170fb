// fp32 row primitives the kernels are built from. Each is a plain loop GCC
// vectorizes; vec_math.cpp compiles them for several ISAs (OPKIT_CLONES).
#pragma once

#include <cstdint>

namespace opkit::cpu::vec {

float sum(const float* x, int64_t n);
float sum_squares(const float* x, int64_t n);
float dot(const float* x, const float* y, int64_t n);
float max(const float* x, int64_t n);
// y[i] = exp(x[i] - shift); returns the sum of y. The exp loops here take the row's
// maximum as shift (x[i] - shift <= 0, vec_exp.h's exp_nonpositive): results below
// 2^-126 are zero.
float exp_shifted(const float* x, float shift, float* y, int64_t n);
void scale(float* x, float s, int64_t n);                        // x *= s
void mul(const float* a, const float* b, float* y, int64_t n);   // y = a * b
void axpy(float alpha, const float* x, float* y, int64_t n);     // y += alpha * x
void add(const float* x, float* y, int64_t n);                   // y += x
void mul_shifted(const float* y, float s, float* g, int64_t n);  // g = y * (g - s)
// LayerNorm's element loops (x, g, acc written in place; the others only read).
void shift_scale(float* x, float shift, float s, int64_t n);                      // x = (x - shift) * s
void scale_mul_add(float* x, float s, const float* w, const float* b, int64_t n);  // x = x * s * w + b
void mul_acc(const float* a, const float* b, float* acc, int64_t n);              // acc += a * b
// g = s * (g - mg - xh * mgx)
void layer_norm_grad(float* g, const float* xh, float s, float mg, float mgx, int64_t n);
// bf16 rows read and written as they are (the softmax's passes without fp32 copies);
// bf16 values are their raw 16-bit patterns.
float max_bf16(const uint16_t* x, int64_t n);
// y[i] = exp(x[i] - shift) in fp32 (shift the row's maximum); returns the sum of y.
float exp_shifted_bf16(const uint16_t* x, float shift, float* y, int64_t n);
void scale_to_bf16(const float* y, float s, uint16_t* out, int64_t n);        // out = y * s
// The sum of exp(x[i] - shift) alone, nothing stored (shift the row's maximum).
float exp_sum(const float* x, float shift, int64_t n);
float exp_sum_bf16(const uint16_t* x, float shift, int64_t n);
float sum_bf16(const uint16_t* x, int64_t n);
// LayerNorm's passes over a bf16 row: sum((x - mu)^2), and y = (x - mu) * s * w + b (y may be x).
float centered_sum_squares_bf16(const uint16_t* x, float mu, int64_t n);
void normalize_bf16(const uint16_t* x, float mu, float s, const float* w, const float* b, uint16_t* y, int64_t n);
float dot_bf16(const uint16_t* a, const uint16_t* b, int64_t n);
// dx = y * (dy - s); dx may be dy or y itself.
void mul_shifted_bf16(const uint16_t* y, const uint16_t* dy, float s, uint16_t* dx, int64_t n);
// RoPE's rotate-half of one head of d elements: out = x*c + rotate_half(x)*s, or with
// backward its transpose. out must not alias x.
void rotate_half(const float* x, const float* c, const float* s, float* out, int64_t d, bool backward);

}  // namespace opkit::cpu::vec
