// Shared by the lean row-kernel experiments in this folder (softmax_forward_lean.cu,
// norm_forward_lean.cu; not part of the build; include after the kernel sources): the
// fixed-group stage of a block-wide reduction, and the launch shapes those programs sweep.
#pragma once

#include <cuda_runtime.h>

// Each warp's value v, already reduced over its lanes, combined over the W warps of the
// block: lane 0 of each warp writes it to partials[warp], then every warp reads the W
// partials one a lane and shuffles over them. Every thread gets the result. One barrier:
// the caller alternates partials so that a scratch is written again only after another
// reduction's barrier.
template <int W, class Op>
__device__ __forceinline__ float across_warps(float v, float* partials, Op op) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) partials[warp] = v;
    __syncthreads();
    float r = partials[lane & (W - 1)];
#pragma unroll
    for (int m = W / 2; m > 0; m /= 2) r = op(r, __shfl_xor_sync(0xffffffffu, r, m));
    return r;
}

struct LeanAdd {
    __device__ float operator()(float a, float b) const { return a + b; }
};
struct LeanMax {
    __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};

// The (threads B, packs a thread C, resident threads R) shapes the programs sweep, X(B, C, R)
// each; a program skips those whose B * C packs are not the row. Rows of 512 packs (2-byte
// 4096, fp32 2048), 1024 (2-byte 8192, fp32 4096), 2048 (2-byte 16384, fp32 8192), 4096
// (fp32 16384).
#define OPK_LEAN_SHAPES(X)                                                                   \
    X(512, 1, 2048) X(256, 2, 2048) X(256, 2, 1536) X(128, 4, 1024) X(128, 4, 2048)          \
    X(1024, 1, 2048) X(512, 2, 2048) X(512, 2, 1536) X(256, 4, 1024) X(256, 4, 2048)        \
    X(1024, 2, 2048) X(512, 4, 1024) X(512, 4, 1536) X(256, 8, 512) X(256, 8, 1024)         \
    X(1024, 4, 1024) X(512, 8, 1024)

// The row shapes of bench/gpu_compare.py's row ops: 2^27 elements each.
constexpr int kLeanRowShapes = 3;
constexpr long long kLeanRows[kLeanRowShapes] = {32768, 8192, 4096};
constexpr long long kLeanCols[kLeanRowShapes] = {4096, 8192, 16384};
