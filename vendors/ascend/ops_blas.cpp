// matmul and axpy.
//
// matmul: c = alpha * op(a) op(b) + beta * c with cubeMathType 0 (KEEP_DTYPE: fp32 stays
// fp32, half types accumulate in fp32; audit:242, 312-313). Transposes are views with the
// last two strides swapped (ggml does the same, audit:277-278); a batch of 1 broadcasts
// through a stride of 0. beta == 0 must not read c (NaN in c must not leak, as in BLAS):
// Mm / BatchMatMul write c, then InplaceMuls scales it when alpha != 1. beta != 0:
// Addmm / Baddbmm (audit:243), whose input is a copy of c, so the op never reads the
// tensor it writes.
// axpy: y += alpha * x is InplaceAdd (audit:95-97).
#include "op_call.h"
#include "ops.h"

namespace opkit_ascend {
namespace {

View operand(const opkit_tensor* t, int32_t trans, int64_t batch) {
    View v = view_of(t);
    if (trans) v = transposed(v);
    if (v.ndim == 3 && v.dims[0] == 1 && batch > 1) {
        v.dims[0] = batch;
        v.strides[0] = 0;
    }
    return v;
}

}  // namespace

opkit_status run(const opkit::args::matmul& a) {
    OpCall call("matmul", a.c->device, a.stream);
    const bool batched = a.c->ndim == 3;
    const int64_t batch = batched ? a.c->shape[0] : 1;
    const View c = view_of(a.c);
    OPKIT_ASCEND_TRY(call.begin());
    acl::aclTensor* lhs = call.tensor(operand(a.a, a.trans_a, batch));
    acl::aclTensor* rhs = call.tensor(operand(a.b, a.trans_b, batch));
    acl::aclTensor* out = call.tensor(c);
    if (a.beta == 0.0f) {
        if (batched)
            OPKIT_ASCEND_TRY(call.step<acl::Op::BatchMatMul>(lhs, rhs, out, acl::kCubeKeepDtype));
        else
            OPKIT_ASCEND_TRY(call.step<acl::Op::Mm>(lhs, rhs, out, acl::kCubeKeepDtype));
        if (a.alpha != 1.0f) OPKIT_ASCEND_TRY(call.step<acl::Op::InplaceMuls>(out, call.scalar(a.alpha)));
        return call.run();
    }
    void* copy = nullptr;
    OPKIT_ASCEND_TRY(call.temps({{size_t(c.numel()) * size_of(c.dtype), &copy}}));
    acl::aclTensor* self = call.tensor(dense(copy, c.dtype, dims_of(c)));
    OPKIT_ASCEND_TRY(call.step<acl::Op::Cast>(out, c.dtype, self));
    acl::aclScalar *beta = call.scalar(a.beta), *alpha = call.scalar(a.alpha);
    if (batched)
        OPKIT_ASCEND_TRY(call.step<acl::Op::Baddbmm>(self, lhs, rhs, beta, alpha, out, acl::kCubeKeepDtype));
    else
        OPKIT_ASCEND_TRY(call.step<acl::Op::Addmm>(self, lhs, rhs, beta, alpha, out, acl::kCubeKeepDtype));
    return call.run();
}

opkit_status run(const opkit::args::axpy& a) {
    OpCall call("axpy", a.y->device, a.stream);
    OPKIT_ASCEND_TRY(call.begin());
    OPKIT_ASCEND_TRY(call.step<acl::Op::InplaceAdd>(call.tensor(view_of(a.y)), call.tensor(view_of(a.x)),
                                                    call.scalar(a.alpha)));
    return call.run();
}

}  // namespace opkit_ascend
