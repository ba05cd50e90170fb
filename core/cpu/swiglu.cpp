// SwiGLU: y = silu(a) * b, silu(a) = a * sigmoid(a).
#include "gated.h"
#include "kernels.h"

#include <cmath>

namespace opkit::cpu {
namespace {

inline void silu(float a, float* value, float* derivative) {
    const float s = 1.0f / (1.0f + std::exp(-a));
    *value = a * s;
    *derivative = s * (1.0f + a * (1.0f - s));
}

}  // namespace

opkit_status swiglu_forward(const args::swiglu_forward& args) {
    gated_forward_rows(args, [](float x, float* v, float* d) { silu(x, v, d); });
    return OPKIT_OK;
}

opkit_status swiglu_backward(const args::swiglu_backward& args) {
    gated_backward_rows(args, [](float x, float* v, float* d) { silu(x, v, d); });
    return OPKIT_OK;
}

}  // namespace opkit::cpu
