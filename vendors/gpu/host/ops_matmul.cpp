// matmul: c = alpha * op(a) * op(b) + beta * c, 2-D or 3-D batched (batch 1 broadcasts
// through a zero batch stride). The generic part: what is declined before any BLAS is
// loaded, K = 0 (no products: a scale or zero kernel), and the column-major view of the
// operands; the product itself is the vendor's BLAS (Runtime::blas_matmul).
//
// opkit's matrices are row-major; BLAS's are column-major. A row-major [r, c] matrix
// with row stride ld is the column-major [c, r] matrix with the same ld, so computing
// c^T = op(b)^T * op(a)^T column-major writes exactly row-major c: BLAS's "A" is b,
// its "B" is a, and m/n swap.
#include "ops_common.h"

#include <string>

namespace {

using namespace opkit_gpu;

// The largest power of two (up to 256) dividing the address and every byte stride.
int alignment(const void* p, std::initializer_list<int64_t> byte_strides) {
    uint64_t bits = uint64_t(reinterpret_cast<uintptr_t>(p)) | 256u;
    for (int64_t s : byte_strides) bits |= uint64_t(s) | 256u;
    return int(bits & (~bits + 1));
}

// a 2-D or 3-D row-major tensor stored [.., r, c]: column-major [c, r], ld = row stride.
BlasOperand operand(const opkit_tensor* t, int64_t batch, size_t es) {
    const int nd = t->ndim;
    const int64_t r = t->shape[nd - 2], c = t->shape[nd - 1];
    BlasOperand o;
    o.rows = c;
    o.cols = r;
    o.ld = std::max<int64_t>(r > 1 ? stride_of(t, nd - 2) : c, std::max<int64_t>(c, 1));
    const bool batched = nd == 3 && t->shape[0] > 1 && batch > 1;
    o.batch_stride = batched ? stride_of(t, 0) : 0;
    o.align = alignment(base_of(t), {o.ld * int64_t(es), o.batch_stride * int64_t(es)});
    return o;
}

const char* const kScale[2][3] = OPK_EW_NAMES("opk_scale");
const char* const kZero[2][3] = OPK_EW_NAMES("opk_zero");

}  // namespace

namespace opkit_gpu {

opkit_status run(const args::matmul& call) {
    const char* op = "matmul";
    const opkit_tensor *a = call.a, *b = call.b;
    opkit_tensor* c = call.c;
    Runtime& rt = runtime();
    int type;
    OPKIT_GPU_TRY(need_float(op, c, &type));
    OPKIT_GPU_TRY(check_element_aligned(op, "a", a));
    OPKIT_GPU_TRY(check_element_aligned(op, "b", b));
    OPKIT_GPU_TRY(check_element_aligned(op, "c", c));
    const int nd = c->ndim;
    const int64_t M = c->shape[nd - 2], N = c->shape[nd - 1];
    const int64_t K = call.trans_a ? a->shape[a->ndim - 2] : a->shape[a->ndim - 1];
    const int64_t batch = nd == 3 ? c->shape[0] : 1;
    if (M == 0 || N == 0 || batch == 0) return OPKIT_OK;
    if (K == 0)  // no products: c = beta * c (and beta == 0 never reads c)
        return run_elementwise(op, call.beta == 0.0f ? kZero : kScale, {c, c}, call.beta, call.stream);
    for (const opkit_tensor* t : {a, b, static_cast<const opkit_tensor*>(c)})
        if (t->shape[t->ndim - 2] > 1 && stride_of(t, t->ndim - 2) < t->shape[t->ndim - 1])
            return fail(OPKIT_ERROR_UNSUPPORTED,
                        "matmul: a matrix whose rows overlap (row stride %lld < %lld columns) cannot be passed "
                        "to %s",
                        static_cast<long long>(stride_of(t, t->ndim - 2)),
                        static_cast<long long>(t->shape[t->ndim - 1]), rt.blas_name());
    if (batch > INT32_MAX)
        return fail(OPKIT_ERROR_UNSUPPORTED, "matmul: a batch of %lld exceeds %s's int32 batch count",
                    static_cast<long long>(batch), rt.blas_name());
    std::string why;
    if (!rt.blas_load(&why))
        return fail(OPKIT_ERROR_UNSUPPORTED, "matmul: %s; the %s vendor declines matmul", why.c_str(), rt.vendor());

    DeviceScope scope;
    OPKIT_GPU_TRY(scope.enter(c->device.device_id));
    const size_t es = element_size(c);
    BlasMatmul m{};
    m.type = type;
    m.trans_a = call.trans_b != 0;
    m.trans_b = call.trans_a != 0;
    m.A = operand(b, batch, es);
    m.B = operand(a, batch, es);
    m.C = operand(c, batch, es);
    m.batch = batch;
    m.a = base_of(b);
    m.b = base_of(a);
    m.c = base_of(c);
    m.alpha = call.alpha;
    m.beta = call.beta;
    m.stream = call.stream;
    return rt.blas_matmul(scope.dev(), m);
}

}  // namespace opkit_gpu
