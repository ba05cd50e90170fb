#include "tensor_args.h"

#include "gpu_runtime.h"
#include "status.h"

namespace opkit_gpu {

int float_type(const opkit_tensor* t) {
    const opkit_dtype d = t->dtype;
    if (d.lanes != 1) return -1;
    if (d.code == OPKIT_DTYPE_FLOAT && d.bits == 32) return 0;
    if (d.code == OPKIT_DTYPE_FLOAT && d.bits == 16) return 1;
    if (d.code == OPKIT_DTYPE_BFLOAT && d.bits == 16) return 2;
    return -1;
}

size_t element_size(const opkit_tensor* t) { return size_t(t->dtype.bits) / 8 * t->dtype.lanes; }

char* base_of(const opkit_tensor* t) { return static_cast<char*>(t->data) + t->byte_offset; }

int64_t numel(const opkit_tensor* t) {
    int64_t n = 1;
    for (int d = 0; d < t->ndim; ++d) n *= t->shape[d];
    return n;
}

int64_t stride_of(const opkit_tensor* t, int d) {
    if (t->strides) return t->strides[d];
    int64_t s = 1;
    for (int k = d + 1; k < t->ndim; ++k) s *= t->shape[k];
    return s;
}

int64_t rows_of(const opkit_tensor* t) {
    int64_t r = 1;
    for (int d = 0; d + 1 < t->ndim; ++d) r *= t->shape[d];
    return r;
}

int64_t inner_of(const opkit_tensor* t) { return t->ndim ? t->shape[t->ndim - 1] : 1; }

bool contiguous(const opkit_tensor* t) {
    if (!t->strides) return true;
    int64_t expect = 1;
    for (int d = t->ndim - 1; d >= 0; --d) {
        if (t->shape[d] != 1 && t->strides[d] != expect) return false;
        expect *= t->shape[d];
    }
    return true;
}

bool aligned16(const void* p) { return (reinterpret_cast<uintptr_t>(p) & 15u) == 0; }

opk::RowsView rows_view(const opkit_tensor* t, int outer) {
    opk::RowsView v{};
    v.data = base_of(t);
    const int64_t es = int64_t(element_size(t));
    // Keep the dimensions of size > 1, outermost first, merging a dimension into the one
    // inside it when the pair is laid out like a single dimension.
    int nd = 0;
    bool vec = aligned16(v.data);
    for (int d = 0; d < outer; ++d) {
        const int64_t size = t->shape[d], stride = stride_of(t, d);
        if (size == 1) continue;
        if ((stride * es) % 16 != 0) vec = false;
        v.size[nd] = size;
        v.stride[nd] = stride;
        ++nd;
    }
    int out = 0;
    for (int d = 0; d < nd; ++d) {
        if (out > 0 && v.stride[out - 1] == v.stride[d] * v.size[d]) {
            v.size[out - 1] *= v.size[d];
            v.stride[out - 1] = v.stride[d];
        } else {
            v.size[out] = v.size[d];
            v.stride[out] = v.stride[d];
            ++out;
        }
    }
    v.nd = out;
    v.vec = vec ? 1 : 0;
    return v;
}

opk::RowsView flat_view(const opkit_tensor* t) {
    opk::RowsView v{};
    v.data = base_of(t);
    v.nd = 0;
    v.vec = aligned16(v.data) ? 1 : 0;
    return v;
}

opk::Strided strided_view(const opkit_tensor* t) {
    opk::Strided s{nullptr, 0};
    if (!t) return s;
    s.data = base_of(t);
    s.stride = t->ndim >= 1 ? stride_of(t, t->ndim - 1) : 0;
    return s;
}

opkit_status check_element_aligned(const char* op, const char* what, const opkit_tensor* t) {
    if (!t) return OPKIT_OK;
    const size_t es = element_size(t);
    if (es > 1 && reinterpret_cast<uintptr_t>(base_of(t)) % es != 0)
        return fail(OPKIT_ERROR_UNSUPPORTED,
                    "%s: %s starts at %p (data + byte_offset %llu), which is not a multiple of its "
                    "%zu-byte element; the %s vendor needs element-aligned tensors",
                    op, what, static_cast<void*>(base_of(t)),
                    static_cast<unsigned long long>(t->byte_offset), es, runtime().vendor());
    return OPKIT_OK;
}

}  // namespace opkit_gpu
