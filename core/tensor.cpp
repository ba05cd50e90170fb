#include "tensor.h"

#include <cstdio>

namespace opkit {

const char* dtype_name(opkit_dtype d) {
    static thread_local char buf[48];
    const char* code = d.code == OPKIT_DTYPE_FLOAT    ? "float"
                       : d.code == OPKIT_DTYPE_BFLOAT ? "bfloat"
                       : d.code == OPKIT_DTYPE_INT    ? "int"
                       : d.code == OPKIT_DTYPE_UINT   ? "uint"
                                                      : nullptr;
    if (!code)
        snprintf(buf, sizeof buf, "dtype(code=%u,bits=%u,lanes=%u)", unsigned(d.code),
                 unsigned(d.bits), unsigned(d.lanes));
    else if (d.lanes != 1)
        snprintf(buf, sizeof buf, "%s%ux%u", code, unsigned(d.bits), unsigned(d.lanes));
    else if (d.code == OPKIT_DTYPE_FLOAT)
        snprintf(buf, sizeof buf, "f%u", unsigned(d.bits));
    else if (d.code == OPKIT_DTYPE_BFLOAT)
        snprintf(buf, sizeof buf, "bf%u", unsigned(d.bits));
    else
        snprintf(buf, sizeof buf, "%s%u", code, unsigned(d.bits));
    return buf;
}

int64_t numel(const opkit_tensor* t) {
    int64_t n = 1;
    for (int32_t i = 0; i < t->ndim; ++i) n *= t->shape[i];
    return n;
}

int64_t row_count(const opkit_tensor* t) {
    int64_t n = 1;
    for (int32_t i = 0; i + 1 < t->ndim; ++i) n *= t->shape[i];
    return n;
}

int64_t stride_of(const opkit_tensor* t, int32_t i) {
    if (t->strides) return t->strides[i];
    int64_t s = 1;
    for (int32_t j = t->ndim - 1; j > i; --j) s *= t->shape[j];
    return s;
}

RowView::RowView(const opkit_tensor* t) {
    base_ = base_ptr(t);
    dtype_ = dtype_of(t);
    n_ = last_dim(t);
    rows_ = row_count(t);
    outer_ = t->ndim > 0 ? t->ndim - 1 : 0;
    const int64_t elem = int64_t(dtype_size(dtype_));
    row_bytes_ = n_ * elem;
    int64_t expect = n_;  // contiguous stride of the dimension being looked at
    for (int32_t i = outer_ - 1; i >= 0; --i) {
        shape_[i] = t->shape[i];
        const int64_t s = stride_of(t, i);
        stride_bytes_[i] = s * elem;
        if (shape_[i] != 1 && s != expect) dense_ = false;
        expect *= shape_[i];
    }
}

char* RowView::row(int64_t r) const {
    if (dense_) return base_ + r * row_bytes_;
    char* p = base_;
    for (int32_t i = outer_ - 1; i >= 0; --i) {
        const int64_t q = r / shape_[i];
        p += (r - q * shape_[i]) * stride_bytes_[i];
        r = q;
    }
    return p;
}

char* element_ptr(const opkit_tensor* t, const int64_t* idx) {
    const int64_t elem = int64_t(dtype_size(dtype_of(t)));
    int64_t off = 0;
    for (int32_t i = 0; i < t->ndim; ++i) off += idx[i] * stride_of(t, i);
    return base_ptr(t) + off * elem;
}

}  // namespace opkit
