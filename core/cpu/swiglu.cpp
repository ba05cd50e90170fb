// SwiGLU: y = silu(a) * b, silu(a) = a * sigmoid(a); the element loops are vec_act.cpp's.
#include "gated.h"
#include "kernels.h"
#include "vec_act.h"

namespace opkit::cpu {

opkit_status swiglu_forward(const args::swiglu_forward& args) {
    gated_forward_rows(args, vec::silu_mul, vec::silu_mul_bf16);
    return OPKIT_OK;
}

opkit_status swiglu_backward(const args::swiglu_backward& args) {
    gated_backward_rows(args, vec::silu_mul_backward, vec::silu_mul_backward_bf16);
    return OPKIT_OK;
}

}  // namespace opkit::cpu
