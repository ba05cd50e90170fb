// Shared plumbing of the row-wise CPU kernels: per-thread fp32 scratch rows and a
// parallel loop over rows sized so that small tensors stay on one thread.
#pragma once

#include "../tensor.h"
#include "parallel.h"

#include <cstdint>
#include <vector>

namespace opkit::cpu {

// A thread-local fp32 buffer of at least n floats; `slot` tells apart several buffers
// a kernel needs at once. Valid until the same thread asks for the same slot again.
float* scratch(int slot, int64_t n);

// Calls fn(row) for every row in [0, rows), in parallel chunks of at least ~32K elements.
template <class Fn>
void for_each_row(int64_t rows, int64_t n, Fn&& fn) {
    const int64_t grain = n >= 32768 ? 1 : (32768 + n - 1) / (n > 0 ? n : 1);
    parallel_for(rows, grain, [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) fn(r);
    });
}

// Address of element i of a 1-D (possibly strided) tensor.
inline char* vec_elem(const opkit_tensor* t, int64_t i) {
    return base_ptr(t) + i * stride_of(t, 0) * int64_t(dtype_size(dtype_of(t)));
}

}  // namespace opkit::cpu
