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

opkit_status swiglu_forward(const opkit_tensor* a, const opkit_tensor* b, opkit_tensor* y,
                            opkit_stream) {
    gated_forward_rows(a, b, y, [](float x, float* v, float* d) { silu(x, v, d); });
    return OPKIT_OK;
}

opkit_status swiglu_backward(const opkit_tensor* dy, const opkit_tensor* a, const opkit_tensor* b,
                             opkit_tensor* da, opkit_tensor* db, opkit_stream) {
    gated_backward_rows(dy, a, b, da, db, [](float x, float* v, float* d) { silu(x, v, d); });
    return OPKIT_OK;
}

}  // namespace opkit::cpu
