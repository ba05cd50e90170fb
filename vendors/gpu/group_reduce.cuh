// Reductions over the threads of a row group, for the row kernels. A group is G threads
// of a warp (G <= warp size) or the whole block (G = 0, or G > warp size). Every thread
// gets the result, and the order of additions is fixed: results do not depend on timing.
//
// (Spreading a row over a thread-block cluster, exchanging the block results through
// distributed shared memory, was tried on an H100 and measured slower than one block per
// row for every shape of docs/PERFORMANCE.md; see docs/cuda-vendor.md.)
#pragma once

#include "gpu_compat.h"

namespace opk {

template <int G>
constexpr bool kBlockGroup = G == 0 || G > OPK_WARP_SIZE;

// Shared scratch of the block-wide reductions: up to 4 values from each of up to 32 warps.
constexpr int kMaxWarps = 32;
constexpr int kReduceSlots = 4 * kMaxWarps;

// Sums K values over the threads of a row group.
template <int G, int K>
OPK_DEV void group_sum(float (&v)[K], float* smem) {
    constexpr int W = kBlockGroup<G> ? OPK_WARP_SIZE : G;
#pragma unroll
    for (int m = W / 2; m > 0; m >>= 1)
#pragma unroll
        for (int k = 0; k < K; ++k) v[k] += OPK_SHFL_XOR(v[k], m, W);
    if constexpr (kBlockGroup<G>) {
        const int nw = int(blockDim.x) / OPK_WARP_SIZE;
        const int lane = threadIdx.x % OPK_WARP_SIZE, warp = threadIdx.x / OPK_WARP_SIZE;
        __syncthreads();  // the previous reduction's readers are done with smem
        if (lane == 0)
#pragma unroll
            for (int k = 0; k < K; ++k) smem[k * kMaxWarps + warp] = v[k];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < K; ++k) {
            float s = 0.0f;
            for (int w = 0; w < nw; ++w) s += smem[k * kMaxWarps + w];
            v[k] = s;
        }
    }
}

template <int G>
OPK_DEV float group_sum1(float v, float* smem) {
    float a[1] = {v};
    group_sum<G, 1>(a, smem);
    return a[0];
}

template <int G>
OPK_DEV float group_max(float v, float* smem) {
    constexpr int W = kBlockGroup<G> ? OPK_WARP_SIZE : G;
#pragma unroll
    for (int m = W / 2; m > 0; m >>= 1) v = fmaxf(v, OPK_SHFL_XOR(v, m, W));
    if constexpr (kBlockGroup<G>) {
        const int nw = int(blockDim.x) / OPK_WARP_SIZE;
        const int lane = threadIdx.x % OPK_WARP_SIZE, warp = threadIdx.x / OPK_WARP_SIZE;
        __syncthreads();
        if (lane == 0) smem[warp] = v;
        __syncthreads();
        v = smem[0];
        for (int w = 1; w < nw; ++w) v = fmaxf(v, smem[w]);
    }
    return v;
}

}  // namespace opk
