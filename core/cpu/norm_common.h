// Pieces shared by the rms_norm and layer_norm kernels: loading an optional [N]
// parameter once per call, and cross-row reductions into dweight/dbias.
#pragma once

#include "convert.h"
#include "rows.h"

#include <algorithm>
#include <vector>

namespace opkit::cpu {

// The optional [N] parameter as fp32 plus `offset`, or `fill` everywhere when absent.
inline std::vector<float> load_param(const opkit_tensor* p, int64_t n, float offset, float fill) {
    std::vector<float> out(size_t(n), fill);
    if (p) {
        load_f32(dtype_of(p), base_ptr(p), out.data(), n);  // 1-D params are contiguous [N]
        if (offset != 0.0f)
            for (float& v : out) v += offset;
    }
    return out;
}

// Sums per-row contributions into `outputs` ([N] each, fp32 partials per chunk, added in
// chunk order so the result does not depend on timing). contribute(r, partials) adds row
// r's contribution to each partial buffer.
template <int K, class Contribute>
void reduce_rows(int64_t rows, int64_t n, opkit_tensor* const (&outputs)[K], Contribute&& contribute) {
    const int64_t chunks = std::max<int64_t>(1, std::min<int64_t>(num_threads() * 2, rows));
    std::vector<float> partial(size_t(chunks * K * n), 0.0f);
    parallel_for(chunks, 1, [&](int64_t cb, int64_t ce) {
        for (int64_t c = cb; c < ce; ++c) {
            float* p[K];
            for (int k = 0; k < K; ++k) p[k] = partial.data() + (c * K + k) * n;
            for (int64_t r = rows * c / chunks; r < rows * (c + 1) / chunks; ++r) contribute(r, p);
        }
    });
    for (int k = 0; k < K; ++k) {
        if (!outputs[k]) continue;
        float* total = partial.data() + k * n;
        for (int64_t c = 1; c < chunks; ++c) {
            const float* p = partial.data() + (c * K + k) * n;
            for (int64_t i = 0; i < n; ++i) total[i] += p[i];
        }
        store_f32(dtype_of(outputs[k]), total, base_ptr(outputs[k]), n);
    }
}

}  // namespace opkit::cpu
