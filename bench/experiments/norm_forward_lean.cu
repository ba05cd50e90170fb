// Do the norm forwards gain from one pack a thread at full occupancy? Liger-Kernel's bf16
// rms_norm forward leads the library's fixed-group kernel (128 threads of four packs, 56
// registers, 34 warps an SM) by 1.2 % at 32768x4096 under Nsight Compute (38 registers, 45
// warps; thirty-sixth session), and the fp32 rms_norm / layer_norm forwards trail
// torch.compile by 1-2 % (Inductor's kernels 58 warps at 28-32 registers against 37 at
// 45-50; thirty-second session). The library's own body at two packs a thread and fewer
// registers bought nothing (bench/experiments/rms-fwd-two-packs.patch); the softmax backward
// gained only once written lean (opk_softmax_bwd_one_pack, softmax_backward_lean.cu). So
// these kernels are: contiguous rows of exactly B * C packs, compile-time shape, no bounds,
// the row and the weight's (and layer_norm's bias) packs in registers, loaded once a block;
// rms_norm's sum of squares, or layer_norm's mean and then squared deviations about it (as
// the library's cached body), through a fixed-group stage (lean_rows.cuh) on alternating
// scratch; rstd (and mean) written a row. Each at R resident threads, one block a row or a
// persistent grid of the blocks that fit. Every line is checked against the library's
// fixed-group kernel (launched as fixed_group_plan launches it) over y, mean and rstd
// whole: maxdiff is the largest absolute difference. twiceH lines (thirty-eighth session):
// Inductor's way, which holds no row across a barrier: x read with L2 evict_last for the
// statistics (rms_norm's sum of squares; layer_norm's per-thread exact moments merged
// pairwise in one reduction), then read again (evict_first) with the weight (and bias) a
// row for y. Lines that spill say SPILL (the
// multi-pack layer_norm ones hold weight and bias too). Not part of the build:
//
//   nvcc -std=c++17 -O3 -arch=sm_90 -Xptxas -v -o norm_forward_lean \
//        bench/experiments/norm_forward_lean.cu 2> ptxas.txt
//   ./norm_forward_lean        # on the GPU machine
#include "../../vendors/gpu/norms.cu"
#include "dense_rows.cuh"
#include "fill_pattern.cuh"
#include "lean_rows.cuh"
#include "max_diff.cuh"
#include "median_time.cuh"

#include <cmath>

using namespace opk;

enum Norm { kRms, kLn };

template <typename T, int Op, int B, int C, int Res, bool Twice = false>
__global__ void __launch_bounds__(B, Res / B) lean_norm(const T* x, const T* w, const T* bias, T* y, float* mean,
                                                        float* rstd, float eps, int64_t rows) {
    constexpr int P = Pack<T>::n, W = B / 32;
    constexpr int64_t n = int64_t(B) * C * P;
    constexpr float inv_n = 1.0f / float(n);
    // [row parity][first, second sum][warp]: a scratch is written again two reductions on,
    // after the barrier of the reduction in between.
    __shared__ float red[2][2][W];
    uint4 wraw[C], braw[Op == kLn ? C : 1];
#pragma unroll
    for (int i = 0; i < C; ++i) {
        if (!Twice) wraw[i] = reinterpret_cast<const uint4*>(w)[threadIdx.x + i * B];
        if constexpr (Op == kLn && !Twice) braw[i] = reinterpret_cast<const uint4*>(bias)[threadIdx.x + i * B];
    }
    // This thread's sum of f(v) over its packs, reduced over the block.
    auto block_sum = [&](const uint4(&raw)[C], float* partials, auto f) {
        float s = packs_sum<T>(raw, f);  // the library's per-thread sum (norms.cu)
#pragma unroll
        for (int o = 16; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffffu, s, o);
        return across_warps<W>(s, partials, LeanAdd());
    };
    int parity = 0;
    for (int64_t r = blockIdx.x; r < rows; r += gridDim.x, parity ^= 1) {
        const uint4* xr = reinterpret_cast<const uint4*>(x + r * n) + threadIdx.x;
        uint4* yr = reinterpret_cast<uint4*>(y + r * n) + threadIdx.x;
        uint4 raw[C];
#pragma unroll
        for (int i = 0; i < C; ++i) raw[i] = Twice ? load16<CacheHint::keep>(xr + i * B) : xr[i * B];
        float mu = 0.0f, var;
        if constexpr (Twice && Op == kLn) {
            // Each thread's exact moments of its packs (two passes over its registers), then
            // merged pairwise (Chan et al.) over the warp and across the warps: one barrier,
            // and the row is dead before it.
            constexpr float own = float(C * P);
            float sum = 0.0f, m2 = 0.0f;
#pragma unroll
            for (int i = 0; i < C; ++i) {
                float v[P];
                unpack<T, P>(raw[i], v);
#pragma unroll
                for (int k = 0; k < P; ++k) sum += v[k];
            }
            float cnt = own, tm = sum / own;
#pragma unroll
            for (int i = 0; i < C; ++i) {
                float v[P];
                unpack<T, P>(raw[i], v);
#pragma unroll
                for (int k = 0; k < P; ++k) m2 += (v[k] - tm) * (v[k] - tm);
            }
#pragma unroll
            for (int o = 1; o < 32; o *= 2) {
                const float nb = __shfl_xor_sync(0xffffffffu, cnt, o), mb = __shfl_xor_sync(0xffffffffu, tm, o),
                            m2b = __shfl_xor_sync(0xffffffffu, m2, o);
                merge_moments(cnt, tm, m2, nb, mb, m2b);
            }
            const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
            if (lane == 0) {
                red[parity][0][warp] = tm;
                red[parity][1][warp] = m2;
            }
            __syncthreads();
            cnt = own * 32.0f;
            tm = red[parity][0][lane & (W - 1)];
            m2 = red[parity][1][lane & (W - 1)];
#pragma unroll
            for (int o = 1; o < W; o *= 2) {
                const float nb = __shfl_xor_sync(0xffffffffu, cnt, o), mb = __shfl_xor_sync(0xffffffffu, tm, o),
                            m2b = __shfl_xor_sync(0xffffffffu, m2, o);
                merge_moments(cnt, tm, m2, nb, mb, m2b);
            }
            mu = tm;
            var = m2 * inv_n;
        } else if constexpr (Op == kLn) {
            mu = block_sum(raw, red[parity][0], [](float v) { return v; }) * inv_n;
            var = block_sum(raw, red[parity][1], [mu](float v) { return (v - mu) * (v - mu); }) * inv_n;
        } else {
            var = block_sum(raw, red[parity][0], [](float v) { return v * v; }) * inv_n;
        }
        const float inv = 1.0f / sqrtf(var + eps);
        if (threadIdx.x == 0) {
            if constexpr (Op == kLn) mean[r] = mu;
            rstd[r] = inv;
        }
#pragma unroll
        for (int i = 0; i < C; ++i) {
            float v[P], wv[P];
            unpack<T, P>(Twice ? load16<CacheHint::last_use>(xr + i * B) : raw[i], v);
            // Twice: the weight too is read a row (from L1), as Inductor's kernels do, so
            // that a thread holds no row and no weight across the barrier.
            unpack<T, P>(Twice ? reinterpret_cast<const uint4*>(w)[threadIdx.x + i * B] : wraw[i], wv);
            if constexpr (Op == kLn) {
                float bv[P];
                unpack<T, P>(Twice ? reinterpret_cast<const uint4*>(bias)[threadIdx.x + i * B] : braw[i], bv);
#pragma unroll
                for (int k = 0; k < P; ++k) v[k] = fmaf((v[k] - mu) * inv, wv[k], bv[k]);
            } else {
#pragma unroll
                for (int k = 0; k < P; ++k) v[k] = v[k] * inv * wv[k];
            }
            yr[i * B] = pack_of<T, P>(v);
        }
    }
}

static int sms;

struct Run {
    const char* dt;
    int op;
    int64_t rows, n;
    void *x, *w, *b, *y, *ref, *mean, *mean_ref, *rstd, *rstd_ref;
    double bytes;
};

template <typename T>
static void report(const Run& s, const char* tag, float ms, bool check) {
    const double dy = check ? max_abs_diff<T>(s.y, s.ref, s.rows * s.n) : 0.0;
    const double dm = check && s.op == kLn ? max_abs_diff<float>(s.mean, s.mean_ref, s.rows) : 0.0;
    const double dr = check ? max_abs_diff<float>(s.rstd, s.rstd_ref, s.rows) : 0.0;
    std::printf("%s_fwd %-5s %6lldx%-6lld %-40s %8.4f ms %7.0f GB/s  maxdiff y %.2e mean %.2e rstd %.2e\n",
                s.op == kLn ? "ln" : "rms", s.dt, (long long)s.rows, (long long)s.n, tag, ms, s.bytes / ms / 1e6, dy,
                dm, dr);
}

// The library's fixed-group kernel for these rows (kernel_params.h's FixedKernel tables:
// 2-byte rows at four packs a thread; fp32 rows of 4096 at four; rms_norm's 8192 at four,
// layer_norm's at eight; 16384 at eight), launched as fixed_group_plan does: one block a row.
template <typename T>
static void run_library(Run& s) {
    constexpr int P = Pack<T>::n;
    const int64_t packs = s.n / P;
    const bool ln = s.op == kLn;
    void (*k)(NormArgs) = nullptr;
    unsigned block = 0;
    if constexpr (sizeof(T) == 2) {
        block = unsigned(packs / kFixedChunks16);
        if (ln)
            k = block == 128 ? opk_ln_fwd_fixed_bf16_g128 : block == 256 ? opk_ln_fwd_fixed_bf16_g256 : opk_ln_fwd_fixed_bf16_g512;
        else
            k = block == 128 ? opk_rms_fwd_fixed_bf16_g128 : block == 256 ? opk_rms_fwd_fixed_bf16_g256 : opk_rms_fwd_fixed_bf16_g512;
    } else if (packs == 1024) {
        block = 256;
        k = ln ? opk_ln_fwd_fixed_f32_g256x4 : opk_rms_fwd_fixed_f32_g256x4;
    } else if (!ln && packs == 2048) {
        block = 512;
        k = opk_rms_fwd_fixed_f32_g512x4;
    } else {
        block = unsigned(packs / kFixedChunks);
        k = ln ? (block == 256 ? opk_ln_fwd_fixed_f32_g256 : opk_ln_fwd_fixed_f32_g512) : opk_rms_fwd_fixed_f32_g512;
    }
    NormArgs a{};
    a.x = rows_view(s.x, s.rows, s.n);
    a.y = rows_view(s.ref, s.rows, s.n);
    a.weight = s.w;
    a.weight_vec = 1;
    if (ln) {
        a.bias = s.b;
        a.bias_vec = 1;
        a.mean.data = s.mean_ref;
        a.mean.stride = 1;
    }
    a.rstd.data = s.rstd_ref;
    a.rstd.stride = 1;
    a.rows = s.rows;
    a.n = s.n;
    a.eps = 1e-5f;
    a.exact = 1;
    const float ms = median_ms([&] { k<<<s.rows, block>>>(a); });
    cudaFuncAttributes attr{};
    cudaFuncGetAttributes(&attr, k);
    char tag[64];
    std::snprintf(tag, sizeof tag, "library fixed %ux%d %dreg", block, int(packs / block), attr.numRegs);
    report<T>(s, tag, ms, false);
}

template <typename T, int Op, int B, int C, int Res, bool Twice = false>
static void run_lean(Run& s) {
    constexpr int P = Pack<T>::n;
    if (s.op != Op || s.n != int64_t(B) * C * P) return;
    auto k = lean_norm<T, Op, B, C, Res, Twice>;
    int per_sm = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, B, 0);
    cudaFuncAttributes attr{};
    cudaFuncGetAttributes(&attr, k);
    for (int fit = 0; fit < 2; ++fit) {
        const int64_t grid = fit ? std::min<int64_t>(s.rows, int64_t(sms) * std::max(per_sm, 1)) : s.rows;
        cudaMemset(s.y, 0, size_t(s.rows * s.n) * sizeof(T));
        cudaMemset(s.mean, 0, size_t(s.rows) * sizeof(float));
        cudaMemset(s.rstd, 0, size_t(s.rows) * sizeof(float));
        const T *x = static_cast<const T*>(s.x), *w = static_cast<const T*>(s.w), *b = static_cast<const T*>(s.b);
        T* y = static_cast<T*>(s.y);
        float *mean = static_cast<float*>(s.mean), *rstd = static_cast<float*>(s.rstd);
        const float ms = median_ms([&] { k<<<grid, B>>>(x, w, b, y, mean, rstd, 1e-5f, s.rows); });
        char tag[80];
        std::snprintf(tag, sizeof tag, "%s B%d C%d R%d %dreg%s %dblk %s", Twice ? "twiceH" : "lean", B, C, Res,
                      attr.numRegs,
                      attr.localSizeBytes ? " SPILL" : "", per_sm, fit ? "fit" : "all");
        report<T>(s, tag, ms, true);
    }
}

template <typename T>
static void shapes(Run base) {
    for (int op : {int(kRms), int(kLn)})
        for (int i = 0; i < kLeanRowShapes; ++i) {
            Run s = base;
            s.dt = sizeof(T) == 2 ? "bf16" : "f32";
            s.op = op;
            s.rows = kLeanRows[i];
            s.n = kLeanCols[i];
            s.bytes = 2.0 * double(s.rows * s.n) * sizeof(T);
            fill<T>(s.x, s.rows * s.n, 2.0f, 0.5f);
            fill<T>(s.w, s.n, 0.5f, 1.0f);
            fill<T>(s.b, s.n, 0.25f, 0.0f);
            run_library<T>(s);
#define OPK_RUN_LEAN(B, C, R)            \
    run_lean<T, kRms, B, C, R>(s);       \
    run_lean<T, kRms, B, C, R, true>(s); \
    run_lean<T, kLn, B, C, R>(s);        \
    run_lean<T, kLn, B, C, R, true>(s);
            OPK_LEAN_SHAPES(OPK_RUN_LEAN)
#undef OPK_RUN_LEAN
            run_library<T>(s);  // again, after the sweep: the spread between the two is the noise
        }
}

int main() {
    std::setvbuf(stdout, nullptr, _IONBF, 0);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    const int64_t elems = int64_t(32768) * 4096;  // every shape has 2^27 elements
    Run s{};
    for (void** p : {&s.x, &s.y, &s.ref}) cudaMalloc(p, elems * 4);
    for (void** p : {&s.w, &s.b}) cudaMalloc(p, 16384 * 4);
    for (void** p : {&s.mean, &s.mean_ref, &s.rstd, &s.rstd_ref}) cudaMalloc(p, 32768 * 4);
    shapes<opk_bf16>(s);
    shapes<float>(s);
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) {
        std::fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(e));
        return 1;
    }
    return 0;
}
