// The gated activations' element loops (SwiGLU's SiLU, GeGLU's exact and tanh GELU),
// forward and backward, over fp32 arrays. Each is compiled per ISA (OPKIT_CLONES) and
// vectorizes (vec_exp.h). Outputs may alias inputs (the ops allow da over a or dy, db
// over b or dy, y over a or b): the loops work through fixed blocks copied to the stack.
#pragma once

#include <cstdint>

namespace opkit::cpu::vec {

// y = act(a) * b
void silu_mul(const float* a, const float* b, float* y, int64_t n);
void gelu_erf_mul(const float* a, const float* b, float* y, int64_t n);
void gelu_tanh_mul(const float* a, const float* b, float* y, int64_t n);

// da = g * b * act'(a), db = g * act(a)
void silu_mul_backward(const float* a, const float* b, const float* g, float* da, float* db, int64_t n);
void gelu_erf_mul_backward(const float* a, const float* b, const float* g, float* da, float* db, int64_t n);
void gelu_tanh_mul_backward(const float* a, const float* b, const float* g, float* da, float* db, int64_t n);

// The same on bf16 arrays (raw 16-bit patterns), widened and rounded inside the loops.
void silu_mul_bf16(const uint16_t* a, const uint16_t* b, uint16_t* y, int64_t n);
void gelu_erf_mul_bf16(const uint16_t* a, const uint16_t* b, uint16_t* y, int64_t n);
void gelu_tanh_mul_bf16(const uint16_t* a, const uint16_t* b, uint16_t* y, int64_t n);
void silu_mul_backward_bf16(const uint16_t* a, const uint16_t* b, const uint16_t* g, uint16_t* da, uint16_t* db,
                            int64_t n);
void gelu_erf_mul_backward_bf16(const uint16_t* a, const uint16_t* b, const uint16_t* g, uint16_t* da,
                                uint16_t* db, int64_t n);
void gelu_tanh_mul_backward_bf16(const uint16_t* a, const uint16_t* b, const uint16_t* g, uint16_t* da,
                                 uint16_t* db, int64_t n);

// grad[j] = (exp(x[j] - lse) - smooth) * scale - (j == t ? hit : 0): a cross-entropy
// gradient row (t outside [0, n): no target term). grad may be x.
void softmax_minus(const float* x, float lse, float smooth, float scale, int64_t t, float hit, float* grad,
                   int64_t n);
void softmax_minus_bf16(const uint16_t* x, float lse, float smooth, float scale, int64_t t, float hit,
                        uint16_t* grad, int64_t n);

}  // namespace opkit::cpu::vec
