// The experiments' outputs brought to the host as fp32, for checking one variant against
// another (not part of the build).
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

// n elements of T (float or bfloat16) at device pointer p, as floats.
template <typename T>
static std::vector<float> host_floats(const void* p, int64_t n) {
    std::vector<T> h(static_cast<size_t>(n));
    cudaMemcpy(h.data(), p, h.size() * sizeof(T), cudaMemcpyDeviceToHost);
    std::vector<float> f(h.size());
    for (size_t i = 0; i < h.size(); ++i) {
        if constexpr (sizeof(T) == 2)
            f[i] = __bfloat162float(h[i]);
        else
            f[i] = h[i];
    }
    return f;
}
