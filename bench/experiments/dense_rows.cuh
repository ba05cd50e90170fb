// A dense [rows, n] tensor as the row kernels' RowsView, 16-byte aligned rows (for the
// standalone kernel experiments in this folder, which include the kernel sources first).
#pragma once

#include "../../vendors/gpu/kernel_params.h"

static opk::RowsView rows_view(void* p, int64_t rows, int64_t n) {
    opk::RowsView v{};
    v.data = p;
    v.nd = 1;
    v.size[0] = rows;
    v.stride[0] = n;
    v.vec = 1;
    return v;
}
