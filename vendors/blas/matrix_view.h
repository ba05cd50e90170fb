// One operand of a matmul call as BLAS sees it: a stored row-major matrix (rows, cols,
// leading dimension) per batch. libopkit validated the call (vendor ABI): 2-D or 3-D
// operands, shapes that chain, innermost stride 1 wherever the last dimension has more
// than one element, non-negative strides.
#pragma once

#include "opkit.h"

#include <cstdint>

namespace opkit_blas {

struct MatrixView {
    char* base = nullptr;       // data + byte_offset
    int64_t elem = 0;           // bytes per element
    int64_t rows = 0, cols = 0;  // the stored matrix (before any transpose)
    int64_t row_stride = 0;     // elements between rows as stored
    int64_t batches = 1;        // 1 for 2-D, or a batch of 1 that broadcasts
    int64_t batch_stride = 0;   // elements between batches

    // The leading dimension BLAS is given: the row stride, or any legal value where
    // the stride means nothing (one row, no columns).
    int64_t ld() const { return rows <= 1 || cols == 0 ? (cols > 1 ? cols : 1) : row_stride; }
    // Whether BLAS can address it in place: every row starts past the previous one's end.
    bool blas_addressable() const { return ld() >= (cols > 1 ? cols : 1); }
    // Batch b's first element (a broadcast batch of 1 serves every b).
    char* batch(int64_t b) const { return base + (batches == 1 ? 0 : b * batch_stride) * elem; }
};

MatrixView view_of(const opkit_tensor* t);

}  // namespace opkit_blas
