// Views: what an aclTensor describes, built from opkit tensors (which libopkit has
// validated: innermost stride 1, non-negative strides, element-aligned start) and
// reshaped on the host (transposes, broadcast batches, the [rows] statistics seen with
// x's outer dimensions) before one aclCreateTensor per view.
#pragma once

#include "acl_decls.h"
#include "opkit.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace opkit_ascend {

constexpr int kMaxDims = 8;  // aclnn ops take at most 8 dimensions, as opkit does

struct View {
    acl::DataType dtype = acl::DataType::Float;
    int ndim = 0;
    int64_t dims[kMaxDims] = {};
    int64_t strides[kMaxDims] = {};  // elements, like opkit's and aclCreateTensor's (audit:193)
    char* start = nullptr;           // the first element of the view

    int64_t numel() const;
    bool contiguous() const;  // dense row-major from start
};

// opkit dtype -> aclDataType; false for one aclnn has no use for here.
bool acl_dtype(opkit_dtype d, acl::DataType* out);
size_t size_of(acl::DataType d);
// 0 f32, 1 f16, 2 bf16; -1 otherwise.
int float_type(const opkit_tensor* t);
acl::DataType float_dtype(int float_type);

int64_t numel(const opkit_tensor* t);
int64_t rows_of(const opkit_tensor* t);   // all dimensions but the last
int64_t inner_of(const opkit_tensor* t);  // the last (1 for a scalar)

// The tensor as it is.
View view_of(const opkit_tensor* t);
// A dense row-major view of `dims` at start.
View dense(void* start, acl::DataType dtype, const std::vector<int64_t>& dims);
// `dims` over rows of `row_stride` elements (a half of a [rows, 2N] concatenation):
// strides row-major as if the last dimension were row_stride long.
View in_rows(void* start, acl::DataType dtype, const std::vector<int64_t>& dims, int64_t row_stride);
// A 1-D fp32 statistic [rows] (opkit's rstd, mean, lse) seen with the outer dimensions of
// x, plus a trailing 1 when `keep_dim` (RmsNorm's and LayerNorm's [A..., 1] shapes).
View stats_view(const opkit_tensor* stat, const opkit_tensor* x, bool keep_dim);
// A view with a leading dimension of 1 (a 1-D x for ops that need 2 dimensions).
View unsqueeze0(View v);
// The last two dimensions swapped (a transposed matmul operand: no copy).
View transposed(View v);
std::vector<int64_t> dims_of(const View& v);

}  // namespace opkit_ascend
