// opkit_tensor -> the plain-data views the kernels take (vendors/gpu/kernel_params.h).
// libopkit has validated every call already (dtypes, shapes, innermost stride 1, no bad
// aliasing); what is left here is what only a device cares about: pointer alignment and
// collapsing strides so the kernels rarely have to divide.
#pragma once

#include "../kernel_params.h"
#include "opkit_vendor.h"

#include <cstddef>
#include <cstdint>

namespace opkit_gpu {

// 0 = f32, 1 = f16, 2 = bf16 (the index into the kernel name tables); -1 otherwise.
int float_type(const opkit_tensor* t);
size_t element_size(const opkit_tensor* t);  // bytes
char* base_of(const opkit_tensor* t);        // data + byte_offset
int64_t numel(const opkit_tensor* t);
int64_t stride_of(const opkit_tensor* t, int d);  // elements, NULL strides = contiguous
int64_t rows_of(const opkit_tensor* t);           // product of all but the last dim
int64_t inner_of(const opkit_tensor* t);          // the last dim (1 for a scalar)
bool contiguous(const opkit_tensor* t);           // dense, row-major, end to end

// Rows view over the first `outer` dimensions (ndim - 1 for row ops; ndim for an index
// tensor seen as one element per row).
opk::RowsView rows_view(const opkit_tensor* t, int outer);
// The whole tensor as one dense row (only for contiguous tensors).
opk::RowsView flat_view(const opkit_tensor* t);
// A 1-D vector ([rows] statistics, targets) or a scalar; NULL tensor = absent.
opk::Strided strided_view(const opkit_tensor* t);

bool aligned16(const void* p);

// Declines (OPKIT_ERROR_UNSUPPORTED, before anything is written) a tensor whose data
// pointer plus byte_offset is not a multiple of its element size: the device cannot load
// a misaligned element. NULL tensors pass. `what` names the argument in the message.
opkit_status check_element_aligned(const char* op, const char* what, const opkit_tensor* t);

}  // namespace opkit_gpu
