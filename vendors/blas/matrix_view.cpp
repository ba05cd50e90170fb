#include "matrix_view.h"

namespace opkit_blas {

MatrixView view_of(const opkit_tensor* t) {
    MatrixView v;
    const int32_t o = t->ndim - 2;
    // Contiguous strides when the tensor gives none.
    int64_t strides[3], s = 1;
    for (int32_t i = t->ndim - 1; i >= 0; --i) {
        strides[i] = t->strides ? t->strides[i] : s;
        s *= t->shape[i];
    }
    v.base = reinterpret_cast<char*>(reinterpret_cast<uintptr_t>(t->data) + uintptr_t(t->byte_offset));
    v.elem = t->dtype.bits / 8;
    v.rows = t->shape[o];
    v.cols = t->shape[o + 1];
    v.row_stride = strides[o];
    if (o == 1) {
        v.batches = t->shape[0];
        v.batch_stride = strides[0];
    }
    return v;
}

}  // namespace opkit_blas
