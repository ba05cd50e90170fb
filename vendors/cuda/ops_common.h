// What every op wrapper shares: the exported-entry guard, launch shapes for the row
// kernels, and small conversions.
#pragma once

#include "device.h"
#include "status.h"
#include "tensor_args.h"

#include <algorithm>

namespace opkit_cuda {

inline CUstream as_stream(opkit_stream s) { return static_cast<CUstream>(s); }

// Launch shape of a row kernel family for rows of n elements.
struct RowPlan {
    int config;      // index into the family's RowConfig table / kernel names
    size_t grid;     // blocks
    unsigned block;  // threads per block
    int64_t groups;  // row groups in the grid (= partial rows for dweight/dbias)
};

// partial_arrays > 0: the kernel writes that many [groups][n] fp32 partial arrays, so
// the grid is kept to a few blocks per multiprocessor (and to 64 MiB of partials).
inline RowPlan plan_rows(const Device& d, int64_t rows, int64_t n, size_t esize,
                         const opk::RowConfig (&cfgs)[3], int partial_arrays) {
    const int64_t pack = int64_t(16 / esize), packs = (n + pack - 1) / pack;
    int c = 2;
    if (packs <= int64_t(cfgs[0].threads) * cfgs[0].chunks)
        c = 0;
    else if (packs <= int64_t(cfgs[1].threads) * cfgs[1].chunks)
        c = 1;
    const opk::RowConfig& rc = cfgs[c];
    RowPlan p;
    p.config = c;
    p.block = unsigned(rc.threads * rc.rows_per_block);
    const int64_t row_blocks = (rows + rc.rows_per_block - 1) / rc.rows_per_block;
    int64_t grid = std::min<int64_t>(row_blocks, int64_t(d.sm_count) * 32);
    if (partial_arrays > 0) {
        static const int blocks_per_sm[3] = {8, 4, 2};
        grid = std::min<int64_t>(grid, int64_t(d.sm_count) * blocks_per_sm[c]);
        const int64_t bytes_per_block = int64_t(rc.rows_per_block) * std::max<int64_t>(n, 1) * 4 * partial_arrays;
        grid = std::min<int64_t>(grid, std::max<int64_t>(1, (int64_t(64) << 20) / bytes_per_block));
    }
    p.grid = size_t(std::max<int64_t>(grid, rows > 0 ? 1 : 0));
    p.groups = int64_t(p.grid) * rc.rows_per_block;
    return p;
}

// Grid for the one-thread-per-pack kernels (256 threads a block, grid-stride loops).
inline size_t pack_grid(const Device& d, int64_t packs) {
    const int64_t blocks = (packs + 255) / 256;
    return size_t(std::min<int64_t>(blocks, int64_t(d.sm_count) * 64));
}

inline opkit_status need_float(const char* op, const opkit_tensor* t, int* type) {
    *type = float_type(t);
    if (*type < 0)
        return fail(OPKIT_ERROR_UNSUPPORTED, "%s: the cuda vendor takes f32, f16 and bf16 tensors", op);
    return OPKIT_OK;
}

}  // namespace opkit_cuda
