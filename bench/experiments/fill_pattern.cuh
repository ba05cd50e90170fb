// Input data shared by the standalone kernel experiments in this folder (not part of the
// build): a deterministic pattern base + scale * sin(0.37 * (i mod 9973)), written on the
// device in the tensor's type, so that runs of different builds see the same bytes.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

__global__ void fill_pattern_bf16(__nv_bfloat16* p, int64_t n, float scale, float base) {
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
        p[i] = __float2bfloat16(base + sinf(float(i % 9973) * 0.37f) * scale);
}
__global__ void fill_pattern_f32(float* p, int64_t n, float scale, float base) {
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
        p[i] = base + sinf(float(i % 9973) * 0.37f) * scale;
}

// n elements of T (float or a 2-byte bfloat16) at p.
template <typename T>
static void fill(void* p, int64_t n, float scale, float base) {
    if constexpr (sizeof(T) == 2)
        fill_pattern_bf16<<<1024, 256>>>(static_cast<__nv_bfloat16*>(p), n, scale, base);
    else
        fill_pattern_f32<<<1024, 256>>>(static_cast<float*>(p), n, scale, base);
}
