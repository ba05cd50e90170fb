#include "view.h"

namespace opkit_ascend {

int64_t View::numel() const {
    int64_t n = 1;
    for (int d = 0; d < ndim; ++d) n *= dims[d];
    return n;
}

bool View::contiguous() const {
    int64_t expect = 1;
    for (int d = ndim - 1; d >= 0; --d) {
        if (dims[d] != 1 && strides[d] != expect) return false;
        expect *= dims[d];
    }
    return true;
}

bool acl_dtype(opkit_dtype d, acl::DataType* out) {
    if (d.lanes != 1) return false;
    if (d.code == OPKIT_DTYPE_FLOAT && d.bits == 32) *out = acl::DataType::Float;
    else if (d.code == OPKIT_DTYPE_FLOAT && d.bits == 16) *out = acl::DataType::Float16;
    else if (d.code == OPKIT_DTYPE_BFLOAT && d.bits == 16) *out = acl::DataType::BFloat16;
    else if (d.code == OPKIT_DTYPE_INT && d.bits == 32) *out = acl::DataType::Int32;
    else if (d.code == OPKIT_DTYPE_INT && d.bits == 64) *out = acl::DataType::Int64;
    else return false;
    return true;
}

size_t size_of(acl::DataType d) {
    switch (d) {
        case acl::DataType::Float16:
        case acl::DataType::BFloat16: return 2;
        case acl::DataType::Int64: return 8;
        case acl::DataType::Bool: return 1;
        default: return 4;
    }
}

int float_type(const opkit_tensor* t) {
    acl::DataType d;
    if (!acl_dtype(t->dtype, &d)) return -1;
    return d == acl::DataType::Float ? 0 : d == acl::DataType::Float16 ? 1 : d == acl::DataType::BFloat16 ? 2 : -1;
}

acl::DataType float_dtype(int ft) {
    return ft == 1 ? acl::DataType::Float16 : ft == 2 ? acl::DataType::BFloat16 : acl::DataType::Float;
}

int64_t numel(const opkit_tensor* t) {
    int64_t n = 1;
    for (int d = 0; d < t->ndim; ++d) n *= t->shape[d];
    return n;
}

int64_t rows_of(const opkit_tensor* t) {
    int64_t r = 1;
    for (int d = 0; d + 1 < t->ndim; ++d) r *= t->shape[d];
    return r;
}

int64_t inner_of(const opkit_tensor* t) { return t->ndim ? t->shape[t->ndim - 1] : 1; }

View view_of(const opkit_tensor* t) {
    View v;
    (void)acl_dtype(t->dtype, &v.dtype);
    v.ndim = t->ndim;
    int64_t contiguous = 1;
    for (int d = t->ndim - 1; d >= 0; --d) {
        v.dims[d] = t->shape[d];
        v.strides[d] = t->strides ? t->strides[d] : contiguous;
        contiguous *= t->shape[d];
    }
    v.start = static_cast<char*>(t->data) + t->byte_offset;
    return v;
}

View in_rows(void* start, acl::DataType dtype, const std::vector<int64_t>& dims, int64_t row_stride) {
    View v;
    v.dtype = dtype;
    v.ndim = int(dims.size());
    v.start = static_cast<char*>(start);
    int64_t s = 1;
    for (int d = v.ndim - 1; d >= 0; --d) {
        v.dims[d] = dims[size_t(d)];
        v.strides[d] = s;
        s *= d == v.ndim - 1 ? row_stride : dims[size_t(d)];
    }
    return v;
}

View dense(void* start, acl::DataType dtype, const std::vector<int64_t>& dims) {
    return in_rows(start, dtype, dims, dims.empty() ? 1 : dims.back());
}

View stats_view(const opkit_tensor* stat, const opkit_tensor* x, bool keep_dim) {
    View v;
    v.dtype = acl::DataType::Float;
    v.start = static_cast<char*>(stat->data) + stat->byte_offset;
    const int64_t step = stat->ndim >= 1 && stat->strides ? stat->strides[stat->ndim - 1] : 1;
    v.ndim = x->ndim - 1 + (keep_dim ? 1 : 0);
    int64_t s = step;
    for (int d = x->ndim - 2; d >= 0; --d) {
        v.dims[d] = x->shape[d];
        v.strides[d] = s;
        s *= x->shape[d];
    }
    if (keep_dim) {
        v.dims[v.ndim - 1] = 1;
        v.strides[v.ndim - 1] = 1;
    }
    return v;
}

View unsqueeze0(View v) {
    for (int d = v.ndim; d > 0; --d) {
        v.dims[d] = v.dims[d - 1];
        v.strides[d] = v.strides[d - 1];
    }
    v.dims[0] = 1;
    v.strides[0] = v.ndim ? v.dims[1] * v.strides[1] : 1;
    ++v.ndim;
    return v;
}

View transposed(View v) {
    std::swap(v.dims[v.ndim - 1], v.dims[v.ndim - 2]);
    std::swap(v.strides[v.ndim - 1], v.strides[v.ndim - 2]);
    return v;
}

std::vector<int64_t> dims_of(const View& v) { return std::vector<int64_t>(v.dims, v.dims + v.ndim); }

}  // namespace opkit_ascend
