// GeGLU: y = gelu(a) * b with PyTorch's exact (erf) or tanh-approximated GELU; the
// element loops are vec_act.cpp's.
#include "gated.h"
#include "kernels.h"
#include "vec_act.h"

namespace opkit::cpu {

opkit_status geglu_forward(const args::geglu_forward& args) {
    const bool tanh = args.approximate == OPKIT_GELU_TANH;
    gated_forward_rows(args, tanh ? vec::gelu_tanh_mul : vec::gelu_erf_mul,
                       tanh ? vec::gelu_tanh_mul_bf16 : vec::gelu_erf_mul_bf16);
    return OPKIT_OK;
}

opkit_status geglu_backward(const args::geglu_backward& args) {
    const bool tanh = args.approximate == OPKIT_GELU_TANH;
    gated_backward_rows(args, tanh ? vec::gelu_tanh_mul_backward : vec::gelu_erf_mul_backward,
                        tanh ? vec::gelu_tanh_mul_backward_bf16 : vec::gelu_erf_mul_backward_bf16);
    return OPKIT_OK;
}

}  // namespace opkit::cpu
