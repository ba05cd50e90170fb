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

opkit_status id_out_of_range(const char* op, int64_t k, int64_t id, int64_t V) {
    return fail(OPKIT_ERROR_INVALID_ARGUMENT, "%s: ids element %" PRId64 " is %" PRId64 ", outside [0, %" PRId64 ")",
                op, k, id, V);
}

// Dense ids: copied and range-checked in one pass with one flag for the whole range test
// (no branch per id), the offending element looked for only when there is one.
template <class I>
opkit_status read_dense_ids(const char* op, const I* p, int64_t count, int64_t V, int64_t* out) {
    bool bad = false;
    for (int64_t k = 0; k < count; ++k) {
        const int64_t id = int64_t(p[k]);
        out[k] = id;
        bad |= uint64_t(id) >= uint64_t(V);  // negative ids wrap above V
    }
    if (bad)
        for (int64_t k = 0; k < count; ++k)
            if (uint64_t(out[k]) >= uint64_t(V)) return id_out_of_range(op, k, out[k], V);
    return OPKIT_OK;
}

// All ids, in the row order of y / dy, checked against [0, V) before anything is written.
// Strided ids are walked in row-major order with an odometer over their shape and one
// element offset: no division or stride lookup per id (for 4096 ids that had cost 95
// instructions an id, 390 K a call on the calling thread against 1.04 M for the gather
// itself; docs/PERFORMANCE.md has the count and the unchanged 16-thread time). The
// odometer skips dimensions of size 1: their stride may be anything validation accepts
// (it never moves the offset), and adding it could overflow.
opkit_status read_ids(const char* op, const opkit_tensor* ids, int64_t V, std::vector<int64_t>* out) {
    const int64_t count = numel(ids);
    const DType it = dtype_of(ids);
    const int64_t elem = int64_t(dtype_size(it));
    out->resize(size_t(count));
    int64_t all_strides[kMaxDims] = {};
    strides_of(ids, all_strides);
    const char* base = base_ptr(ids);
    // The dimensions of size > 1, outermost first, and whether they are laid out densely.
    int64_t shape[kMaxDims] = {}, stride[kMaxDims] = {}, idx[kMaxDims] = {};
    int32_t dims = 0;
    bool dense = true;
    for (int32_t d = 0; d < ids->ndim; ++d)
        if (ids->shape[d] > 1) {
            shape[dims] = ids->shape[d];
            stride[dims] = all_strides[d];
            ++dims;
        }
    int64_t want = 1;
    for (int32_t d = dims - 1; d >= 0; --d) {
        dense = dense && stride[d] == want;
        want *= shape[d];
    }
    if (dense)
        return it == DType::i64 ? read_dense_ids(op, reinterpret_cast<const int64_t*>(base), count, V, out->data())
                                : read_dense_ids(op, reinterpret_cast<const int32_t*>(base), count, V, out->data());
    int64_t off = 0;  // elements from base to ids[idx]
    for (int64_t k = 0; k < count; ++k) {
        const int64_t id = load_index(it, base + off * elem);
        if (id < 0 || id >= V) return id_out_of_range(op, k, id, V);
        (*out)[size_t(k)] = id;
        for (int32_t d = dims - 1; d >= 0; --d) {  // next index, innermost first
            off += stride[d];
            if (++idx[d] < shape[d]) break;
            off -= stride[d] * shape[d];
            idx[d] = 0;
        }
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
