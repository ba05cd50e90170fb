// GeGLU: y = gelu(a) * b with PyTorch's exact (erf) or tanh-approximated GELU.
#include "gated.h"
#include "kernels.h"

#include <cmath>

namespace opkit::cpu {
namespace {

constexpr float kInvSqrt2 = 0.70710678118654752f;
constexpr float kInvSqrt2Pi = 0.39894228040143268f;  // 1/sqrt(2*pi)
constexpr float kSqrt2OverPi = 0.79788456080286536f;
constexpr float kCubic = 0.044715f;

inline void gelu_erf(float a, float* value, float* derivative) {
    // erfc(-x) rather than 1 + erf(x): no cancellation for negative a, where the CDF is tiny
    const float cdf = 0.5f * std::erfc(-a * kInvSqrt2);
    *value = a * cdf;
    *derivative = cdf + a * kInvSqrt2Pi * std::exp(-0.5f * a * a);
}

inline void gelu_tanh(float a, float* value, float* derivative) {
    // 0.5 * (1 + tanh(u)) is sigmoid(2u). Both sigmoid(2u) and 1 - sigmoid(2u) are formed
    // from exp(-2|u|), so neither cancels for large |a| (1 + tanh(u) does for a << 0).
    const float u = kSqrt2OverPi * (a + kCubic * a * a * a);
    const float e = std::exp(-2.0f * std::fabs(u));
    const float big = 1.0f / (1.0f + e), small = e * big;
    const float s = u >= 0.0f ? big : small, rest = u >= 0.0f ? small : big;
    *value = a * s;
    *derivative = s + 2.0f * a * s * rest * kSqrt2OverPi * (1.0f + 3.0f * kCubic * a * a);
}

}  // namespace

opkit_status geglu_forward(const args::geglu_forward& args) {
    if (args.approximate == OPKIT_GELU_TANH)
        gated_forward_rows(args, [](float x, float* v, float* d) { gelu_tanh(x, v, d); });
    else
        gated_forward_rows(args, [](float x, float* v, float* d) { gelu_erf(x, v, d); });
    return OPKIT_OK;
}

opkit_status geglu_backward(const args::geglu_backward& args) {
    if (args.approximate == OPKIT_GELU_TANH)
        gated_backward_rows(args, [](float x, float* v, float* d) { gelu_tanh(x, v, d); });
    else
        gated_backward_rows(args, [](float x, float* v, float* d) { gelu_erf(x, v, d); });
    return OPKIT_OK;
}

}  // namespace opkit::cpu
