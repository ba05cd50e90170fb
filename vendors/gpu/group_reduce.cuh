// Reductions over the threads of a row group, for the row kernels. A group is G threads
// of a warp (G <= warp size) or the whole block (G = 0, or G > warp size). Every thread
// gets the result, and the order of additions is fixed: results do not depend on timing.
//
// "Warp" is the target's width, OPK_WARP_SIZE: 32 on NVIDIA and RDNA, 64 on CDNA. A G-lane
// group narrower than the wavefront (G = 32 on CDNA) reduces with width-G shuffles, which
// stay inside aligned G-lane segments on both compilers (HIP __shfl_xor(v, m, 32) never
// reads the other half of a wave64), so several groups share a wavefront. A block-wide
// reduction combines blockDim / OPK_WARP_SIZE per-warp partials (G / OPK_WARP_SIZE in a
// fixed group, whose kernels the host launches with blockDim = G), so its block size must
// be a multiple of the device's width: the host rounds to the width it queries (64 on
// CDNA; a multiple of 32 alone would drop the last partial wave there).
//
// (Spreading a row held in registers over a thread-block cluster, exchanging the block
// results through distributed shared memory, was tried on an H100 and measured slower than
// one block per row for every shape of docs/PERFORMANCE.md; see docs/cuda-vendor.md. Rows
// stashed in shared memory across a cluster, which cross-entropy's forward with dlogits
// reads once that way, are stash_rows.cuh's.)
#pragma once

#include "gpu_compat.h"

namespace opk {

template <int G>
constexpr bool kBlockGroup = G == 0 || G > OPK_WARP_SIZE;

// Shared scratch of the block-wide reductions: up to 4 values from each of up to 32 warps
// (a 1024-thread block is 32 warps of 32 or 16 wavefronts of 64).
constexpr int kMaxWarps = 32;
constexpr int kReduceSlots = 4 * kMaxWarps;
static_assert(1024 / OPK_WARP_SIZE <= kMaxWarps, "reduce slots for every warp of a 1024-thread block");

// Warps in a block-wide group: a compile-time count for fixed groups of G threads.
template <int G>
OPK_DEV int block_warps() {
    return G ? G / OPK_WARP_SIZE : int(blockDim.x) / OPK_WARP_SIZE;
}

// The block-wide stage of a reduction in a fixed group (G > 0: a compile-time count of
// warps): the warps' partials of one value in shared memory, combined by every warp reading
// them one a lane and shuffling over the smallest power of 2 of lanes holding them (each
// aligned segment of that many lanes reads the same partials, so every lane gets the
// result). Block-wide groups of a run-time size (G = 0) keep the serial sum in each thread.
// Measured on the H200 (bench/results/2026-11-28-s8/, -s9/, A/B alternating twice): the
// fixed-group forwards gained (bf16 layer_norm 0.146 -> 0.141 ms at 32768x4096, softmax
// 0.075 -> 0.072 at 4096x16384); the shuffles for every block-wide reduction made the G = 0
// backwards slower (bf16 layer_norm 0.188 -> 0.201 ms at 8192x8192) and spilled two f16
// kernels of gfx900/906 past their budgets.
template <int G, class Op>
OPK_DEV float shuffle_warps(const float* partials, Op op) {
    static_assert(G > 0, "fixed groups only");
    constexpr int span = G / OPK_WARP_SIZE;  // a power of 2: G is
    const int i = int(threadIdx.x) % OPK_WARP_SIZE & (span - 1);
    float v = partials[i];
#pragma unroll
    for (int m = span / 2; m > 0; m >>= 1) v = op(v, OPK_SHFL_XOR(v, m, OPK_WARP_SIZE));
    return v;
}

// Sums K values over the threads of a row group.
// The shuffle width of a group's first stage: the whole warp, or the group itself.
template <int G>
constexpr int kShuffleWidth = kBlockGroup<G> ? OPK_WARP_SIZE : G;

// Fresh: smem is not the scratch of the group's previous reduction (a kernel that
// alternates two scratches: the barrier of the reduction in between ordered that one's
// readers before this one's writers), so the leading barrier is left out.
template <int G, int K, bool Fresh = false>
OPK_DEV void group_sum(float (&v)[K], float* smem) {
    static_assert(G >= 0 && (G & (G - 1)) == 0, "a row group is a power of 2 of lanes, or 0 = the block");
    constexpr int W = kShuffleWidth<G>;
#pragma unroll
    for (int m = W / 2; m > 0; m >>= 1)
#pragma unroll
        for (int k = 0; k < K; ++k) v[k] += OPK_SHFL_XOR(v[k], m, W);
    if constexpr (kBlockGroup<G>) {
        const int lane = threadIdx.x % OPK_WARP_SIZE, warp = threadIdx.x / OPK_WARP_SIZE;
        if (!Fresh) __syncthreads();  // the previous reduction's readers are done with smem
        if (lane == 0)
#pragma unroll
            for (int k = 0; k < K; ++k) smem[k * kMaxWarps + warp] = v[k];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < K; ++k) {
            if constexpr (G > 0) {
                v[k] = shuffle_warps<G>(smem + k * kMaxWarps, [](float a, float b) { return a + b; });
            } else {
                const int nw = block_warps<G>();
                float s = 0.0f;
                for (int w = 0; w < nw; ++w) s += smem[k * kMaxWarps + w];
                v[k] = s;
            }
        }
    }
}

template <int G>
OPK_DEV float group_sum1(float v, float* smem) {
    float a[1] = {v};
    group_sum<G, 1>(a, smem);
    return a[0];
}

// Merges (count nb, mean mb, sum of squared deviations m2b) into (n, mean, m2): the
// pairwise update of Chan, Golub and LeVeque, which loses nothing to cancellation.
OPK_DEV void merge_moments(float& n, float& mean, float& m2, float nb, float mb, float m2b) {
    const float total = n + nb, d = mb - mean, fb = total > 0.0f ? nb / total : 0.0f;
    mean += d * fb;
    m2 += m2b + d * d * n * fb;
    n = total;
}

// Combines every thread's (count, mean, squared deviations) of its part of a row into the
// row's, in a fixed order. Counts are exact in fp32 up to 2^24 elements per row.
template <int G>
OPK_DEV void group_moments(float& n, float& mean, float& m2, float* smem) {
    static_assert(G >= 0 && (G & (G - 1)) == 0, "a row group is a power of 2 of lanes, or 0 = the block");
    constexpr int W = kShuffleWidth<G>;
#pragma unroll
    for (int o = W / 2; o > 0; o >>= 1) {
        const float nb = OPK_SHFL_XOR(n, o, W), mb = OPK_SHFL_XOR(mean, o, W), m2b = OPK_SHFL_XOR(m2, o, W);
        merge_moments(n, mean, m2, nb, mb, m2b);
    }
    if constexpr (kBlockGroup<G>) {
        const int nw = block_warps<G>();
        const int lane = threadIdx.x % OPK_WARP_SIZE, warp = threadIdx.x / OPK_WARP_SIZE;
        __syncthreads();
        if (lane == 0) {
            smem[warp] = n;
            smem[kMaxWarps + warp] = mean;
            smem[2 * kMaxWarps + warp] = m2;
        }
        __syncthreads();
        n = smem[0];
        mean = smem[kMaxWarps];
        m2 = smem[2 * kMaxWarps];
        for (int w = 1; w < nw; ++w) merge_moments(n, mean, m2, smem[w], smem[kMaxWarps + w], smem[2 * kMaxWarps + w]);
    }
}

template <int G>
OPK_DEV float group_max(float v, float* smem) {
    static_assert(G >= 0 && (G & (G - 1)) == 0, "a row group is a power of 2 of lanes, or 0 = the block");
    constexpr int W = kShuffleWidth<G>;
#pragma unroll
    for (int m = W / 2; m > 0; m >>= 1) v = fmaxf(v, OPK_SHFL_XOR(v, m, W));
    if constexpr (kBlockGroup<G>) {
        const int lane = threadIdx.x % OPK_WARP_SIZE, warp = threadIdx.x / OPK_WARP_SIZE;
        __syncthreads();
        if (lane == 0) smem[warp] = v;
        __syncthreads();
        if constexpr (G > 0) {
            v = shuffle_warps<G>(smem, [](float a, float b) { return fmaxf(a, b); });
        } else {
            const int nw = block_warps<G>();
            v = smem[0];
            for (int w = 1; w < nw; ++w) v = fmaxf(v, smem[w]);
        }
    }
    return v;
}

}  // namespace opk
