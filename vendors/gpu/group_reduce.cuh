// Reductions over the threads of a row group, for the row kernels. A group is G
// threads of a warp (G <= warp size), the whole block (G = 0 or G > warp size), or every
// block of a thread-block cluster (G = kClusterGroup, sm_90+). Every thread gets the
// result, and the order of additions is fixed: results do not depend on timing.
#pragma once

#include "gpu_compat.h"

#if OPK_HAVE_CLUSTERS
#include <cooperative_groups.h>
#endif

namespace opk {

constexpr int kClusterGroup = -1;

template <int G>
constexpr bool kBlockGroup = G == 0 || G == kClusterGroup || G > OPK_WARP_SIZE;

// Per-warp partials: up to 4 values from each of up to 32 warps.
constexpr int kMaxWarps = 32;
constexpr int kReduceSlots = 4 * kMaxWarps;

// The shared memory a group's reductions use, plus (clusters) which of two exchange
// slots the next reduction writes: alternating them needs one cluster barrier per
// reduction instead of two.
template <int G>
struct GroupScratch {
    float* smem;  // kReduceSlots + 2 * 4 floats
    int parity;
};
#define OPK_GROUP_SCRATCH(G, name)                                 \
    __shared__ float name##_words[opk::kReduceSlots + 8];          \
    opk::GroupScratch<G> name {                                    \
        name##_words, 0                                            \
    }

#if OPK_HAVE_CLUSTERS
OPK_DEV int cluster_blocks() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    return int(cooperative_groups::this_cluster().num_blocks());
#else
    return 1;
#endif
}
OPK_DEV int cluster_rank() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    return int(cooperative_groups::this_cluster().block_rank());
#else
    return 0;
#endif
}
OPK_DEV void cluster_sync() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    cooperative_groups::this_cluster().sync();
#endif
}
#else
OPK_DEV int cluster_blocks() { return 1; }
OPK_DEV int cluster_rank() { return 0; }
OPK_DEV void cluster_sync() {}
#endif

// Combines each block's K values (already reduced over the block) across the cluster.
template <int K, bool kMax>
OPK_DEV void cluster_combine(float (&v)[K], float* smem, int& parity) {
#if OPK_HAVE_CLUSTERS && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    namespace cg = cooperative_groups;
    cg::cluster_group cluster = cg::this_cluster();
    float* slot = smem + kReduceSlots + parity * 4;
    parity ^= 1;
    if (threadIdx.x == 0)
#pragma unroll
        for (int k = 0; k < K; ++k) slot[k] = v[k];
    cluster.sync();
    const int n = int(cluster.num_blocks());
#pragma unroll
    for (int k = 0; k < K; ++k) {
        float r = kMax ? -INFINITY : 0.0f;
        for (int b = 0; b < n; ++b) {
            const float x = cluster.map_shared_rank(slot, b)[k];
            r = kMax ? fmaxf(r, x) : r + x;
        }
        v[k] = r;
    }
#else
    (void)v;
    (void)smem;
    (void)parity;
#endif
}

// Sums K values over the threads of a row group.
template <int G, int K>
OPK_DEV void group_sum(float (&v)[K], GroupScratch<G>& sc) {
    constexpr int W = kBlockGroup<G> ? OPK_WARP_SIZE : G;
#pragma unroll
    for (int m = W / 2; m > 0; m >>= 1)
#pragma unroll
        for (int k = 0; k < K; ++k) v[k] += OPK_SHFL_XOR(v[k], m, W);
    if constexpr (kBlockGroup<G>) {
        float* smem = sc.smem;
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
        if constexpr (G == kClusterGroup) cluster_combine<K, false>(v, smem, sc.parity);
    }
}

template <int G>
OPK_DEV float group_sum1(float v, GroupScratch<G>& sc) {
    float a[1] = {v};
    group_sum<G, 1>(a, sc);
    return a[0];
}

template <int G>
OPK_DEV float group_max(float v, GroupScratch<G>& sc) {
    constexpr int W = kBlockGroup<G> ? OPK_WARP_SIZE : G;
#pragma unroll
    for (int m = W / 2; m > 0; m >>= 1) v = fmaxf(v, OPK_SHFL_XOR(v, m, W));
    if constexpr (kBlockGroup<G>) {
        float* smem = sc.smem;
        const int nw = int(blockDim.x) / OPK_WARP_SIZE;
        const int lane = threadIdx.x % OPK_WARP_SIZE, warp = threadIdx.x / OPK_WARP_SIZE;
        __syncthreads();
        if (lane == 0) smem[warp] = v;
        __syncthreads();
        v = smem[0];
        for (int w = 1; w < nw; ++w) v = fmaxf(v, smem[w]);
        if constexpr (G == kClusterGroup) {
            float a[1] = {v};
            cluster_combine<1, true>(a, smem, sc.parity);
            v = a[0];
        }
    }
    return v;
}

}  // namespace opk
