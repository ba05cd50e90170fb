// Internal view of opkit_tensor: dtypes, element counts and row addressing. Everything
// here assumes the tensor already passed validation (validate.h).
#pragma once

#include "opkit.h"

#include <cstddef>
#include <cstdint>

namespace opkit {

// ndim beyond this is refused by validation; it keeps row addressing allocation-free.
constexpr int32_t kMaxDims = 8;

enum class DType : uint8_t { f32, f16, bf16, i32, i64, unsupported };

inline DType dtype_of(opkit_dtype d) {
    if (d.lanes != 1) return DType::unsupported;
    switch (d.code) {
    case OPKIT_DTYPE_FLOAT: return d.bits == 32 ? DType::f32 : d.bits == 16 ? DType::f16 : DType::unsupported;
    case OPKIT_DTYPE_BFLOAT: return d.bits == 16 ? DType::bf16 : DType::unsupported;
    case OPKIT_DTYPE_INT: return d.bits == 32 ? DType::i32 : d.bits == 64 ? DType::i64 : DType::unsupported;
    default: return DType::unsupported;
    }
}
inline DType dtype_of(const opkit_tensor* t) { return dtype_of(t->dtype); }
inline size_t dtype_size(DType d) {
    switch (d) {
    case DType::f32: case DType::i32: return 4;
    case DType::f16: case DType::bf16: return 2;
    case DType::i64: return 8;
    default: return 0;
    }
}
const char* dtype_name(opkit_dtype d);  // "f32", "bf16", "float64", "int8x4", ...
inline bool is_float(DType d) { return d == DType::f32 || d == DType::f16 || d == DType::bf16; }

int64_t numel(const opkit_tensor* t);
inline int64_t last_dim(const opkit_tensor* t) { return t->ndim == 0 ? 1 : t->shape[t->ndim - 1]; }
// Product of all dimensions but the last ("rows"); 1 for ndim <= 1.
int64_t row_count(const opkit_tensor* t);
// Stride of dimension i in elements (the contiguous stride when strides is NULL).
int64_t stride_of(const opkit_tensor* t, int32_t i);
// All strides at once (out has ndim entries), in one pass.
inline void strides_of(const opkit_tensor* t, int64_t* out) {
    if (t->strides) {
        for (int32_t i = 0; i < t->ndim; ++i) out[i] = t->strides[i];
        return;
    }
    int64_t s = 1;
    for (int32_t i = t->ndim - 1; i >= 0; --i) {
        out[i] = s;
        s *= t->shape[i];
    }
}

// data + byte_offset, computed on integers: a view with no elements may pair any data
// pointer (NULL too) with any offset, and must not make pointer arithmetic overflow.
inline char* base_ptr(const opkit_tensor* t) {
    return reinterpret_cast<char*>(reinterpret_cast<uintptr_t>(t->data) + uintptr_t(t->byte_offset));
}

// A tensor seen as `rows` rows of `n` contiguous elements; row r's address is computed
// from the flattened outer index, so any outer strides work.
class RowView {
public:
    RowView() = default;
    explicit RowView(const opkit_tensor* t);
    int64_t rows() const { return rows_; }
    int64_t n() const { return n_; }
    DType dtype() const { return dtype_; }
    char* row(int64_t r) const;
    bool rows_are_dense() const { return dense_; }  // row r at base + r * n * elem

private:
    char* base_ = nullptr;
    int64_t rows_ = 0, n_ = 0;
    DType dtype_ = DType::f32;
    int32_t outer_ = 0;             // number of outer dimensions
    int64_t shape_[kMaxDims] = {};  // outer dims
    int64_t stride_bytes_[kMaxDims] = {};
    int64_t row_bytes_ = 0;
    bool dense_ = true;
};

// Byte address of element with multi-index idx (ndim entries).
char* element_ptr(const opkit_tensor* t, const int64_t* idx);

}  // namespace opkit
