// Embedding lookup and its backward (dweight zeroed, then accumulated in fp32).
#include "../error.h"
#include "convert.h"
#include "kernels.h"
#include "rows.h"
#include "vec_math.h"

#include <cinttypes>
#include <cstring>
#include <vector>

namespace opkit::cpu {
namespace {

// All ids, in the row order of y / dy, checked against [0, V) before anything is written.
opkit_status read_ids(const char* op, const opkit_tensor* ids, int64_t V, std::vector<int64_t>* out) {
    const int64_t count = numel(ids);
    const DType it = dtype_of(ids);
    out->resize(size_t(count));
    int64_t idx[kMaxDims] = {};
    for (int64_t k = 0; k < count; ++k) {
        // unravel k over ids' shape (row-major), so any ids strides work
        int64_t rem = k;
        for (int32_t d = ids->ndim - 1; d >= 0; --d) {
            idx[d] = rem % ids->shape[d];
            rem /= ids->shape[d];
        }
        const int64_t id = load_index(it, element_ptr(ids, idx));
        if (id < 0 || id >= V)
            return fail(OPKIT_ERROR_INVALID_ARGUMENT,
                        "%s: ids element %" PRId64 " is %" PRId64 ", outside [0, %" PRId64 ")", op, k,
                        id, V);
        (*out)[size_t(k)] = id;
    }
    return OPKIT_OK;
}

}  // namespace

opkit_status embedding_forward(const args::embedding_forward& args) {
    const RowView wv(args.weight), yv(args.y);
    const int64_t D = wv.n();
    std::vector<int64_t> id;
    OPKIT_TRY(read_ids("embedding_forward", args.ids, wv.rows(), &id));
    const size_t row_bytes = size_t(D) * dtype_size(wv.dtype());
    for_each_row(int64_t(id.size()), D, [&](int64_t r) {
        std::memcpy(yv.row(r), wv.row(id[size_t(r)]), row_bytes);
    });
    return OPKIT_OK;
}

opkit_status embedding_backward(const args::embedding_backward& args) {
    const RowView dyv(args.dy), wv(args.dweight);
    const int64_t V = wv.rows(), D = wv.n();
    const DType dt = wv.dtype();
    std::vector<int64_t> id;
    OPKIT_TRY(read_ids("embedding_backward", args.ids, V, &id));
    // Only the rows some id names get a gradient: each gets an fp32 accumulator row (slot),
    // every other row of dweight is zero. (A [V, D] fp32 accumulator, zeroed and then
    // converted whole, cost more than the sums themselves: 131 MB for 32000 x 1024.)
    std::vector<int32_t> slot(size_t(V), -1);
    std::vector<int64_t> rows_of_slot;
    for (int64_t v : id)
        if (v != args.padding_idx && slot[size_t(v)] < 0) {
            slot[size_t(v)] = int32_t(rows_of_slot.size());
            rows_of_slot.push_back(v);
        }
    std::vector<float> acc(rows_of_slot.size() * size_t(D), 0.0f);
    // Threads own disjoint column slices of the accumulators, so no two threads ever add
    // into the same element and the sum order per element is the id order.
    const int64_t slice = 64;
    const int64_t slices = (D + slice - 1) / slice;
    const int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(1, int64_t(id.size())));
    parallel_for(slices, grain, [&](int64_t sb, int64_t se) {
        float* row = scratch(0, slice);
        for (int64_t s = sb; s < se; ++s) {
            const int64_t c0 = s * slice, c1 = std::min(D, c0 + slice);
            for (size_t k = 0; k < id.size(); ++k) {
                if (id[k] == args.padding_idx) continue;
                load_f32(dt, dyv.row(int64_t(k)) + c0 * int64_t(dtype_size(dt)), row, c1 - c0);
                vec::add(row, acc.data() + int64_t(slot[size_t(id[k])]) * D + c0, c1 - c0);
            }
        }
    });
    const size_t row_bytes = size_t(D) * dtype_size(dt);
    for_each_row(V, D, [&](int64_t r) {
        const int32_t s = slot[size_t(r)];
        if (s < 0)
            std::memset(wv.row(r), 0, row_bytes);  // +0.0 in f32, f16 and bf16
        else
            store_f32(dt, acc.data() + int64_t(s) * D, wv.row(r), D);
    });
    return OPKIT_OK;
}

}  // namespace opkit::cpu
