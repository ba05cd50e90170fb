// Does the layer_norm forward gain from one pack a thread at full occupancy? The fp32
// forward trails torch.compile and Liger-Kernel by about 1 % at 32768x4096 and 8192x8192 in
// every round of the standing table (Inductor's kernel runs 58 warps an SM at 28-32
// registers, the library's fixed-group kernel 37 at 45-50; thirty-second session). As
// bench/experiments/rms_forward_lean.cu for rms_norm: contiguous rows of exactly B * C packs,
// compile-time shape, no bounds, the row and the weight's and bias's packs in registers, the
// mean and then the squared deviations about it (two sums, as the library's cached body)
// through a fixed-group stage on alternating scratch, mean and rstd written a row. Each at R
// resident threads, one block a row or a persistent grid. Every line is checked against the
// library's fixed-group kernel (launched as fixed_group_plan launches it) over the whole
// output, mean and rstd: maxdiff is the largest absolute difference. Not part of the build:
//
//   nvcc -std=c++17 -O3 -arch=sm_90 -Xptxas -v -o ln_forward_lean \
//        bench/experiments/ln_forward_lean.cu 2> ptxas.txt
//   ./ln_forward_lean        # on the GPU machine
#include "../../vendors/gpu/norms.cu"
#include "dense_rows.cuh"
#include "fill_pattern.cuh"
#include "max_diff.cuh"
#include "median_time.cuh"

#include <cmath>

using namespace opk;

template <int W>
__device__ __forceinline__ float sum_across_warps(float v, float* partials) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) partials[warp] = v;
    __syncthreads();
    float r = partials[lane & (W - 1)];
#pragma unroll
    for (int m = W / 2; m > 0; m /= 2) r += __shfl_xor_sync(0xffffffffu, r, m);
    return r;
}

template <typename T, int B, int C, int Res>
__global__ void __launch_bounds__(B, Res / B) lean_ln(const T* x, const T* w, const T* bias, T* y, float* mean,
                                                      float* rstd, float eps, int64_t rows) {
    constexpr int P = Pack<T>::n, W = B / 32;
    constexpr int64_t n = int64_t(B) * C * P;
    // [row parity][sum, squares][warp]: a scratch is written again two reductions on, after
    // the barrier of the reduction in between.
    __shared__ float red[2][2][W];
    uint4 wraw[C], braw[C];
#pragma unroll
    for (int i = 0; i < C; ++i) {
        wraw[i] = reinterpret_cast<const uint4*>(w)[threadIdx.x + i * B];
        braw[i] = reinterpret_cast<const uint4*>(bias)[threadIdx.x + i * B];
    }
    int parity = 0;
    for (int64_t r = blockIdx.x; r < rows; r += gridDim.x, parity ^= 1) {
        const uint4* xr = reinterpret_cast<const uint4*>(x + r * n) + threadIdx.x;
        uint4* yr = reinterpret_cast<uint4*>(y + r * n) + threadIdx.x;
        uint4 raw[C];
#pragma unroll
        for (int i = 0; i < C; ++i) raw[i] = xr[i * B];
        float s = 0.0f;
#pragma unroll
        for (int i = 0; i < C; ++i) {
            float v[P];
            unpack<T, P>(raw[i], v);
#pragma unroll
            for (int k = 0; k < P; ++k) s += v[k];
        }
#pragma unroll
        for (int o = 16; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffffu, s, o);
        const float mu = sum_across_warps<W>(s, red[parity][0]) * (1.0f / float(n));
        float q = 0.0f;
#pragma unroll
        for (int i = 0; i < C; ++i) {
            float v[P];
            unpack<T, P>(raw[i], v);
#pragma unroll
            for (int k = 0; k < P; ++k) q += (v[k] - mu) * (v[k] - mu);
        }
#pragma unroll
        for (int o = 16; o > 0; o /= 2) q += __shfl_xor_sync(0xffffffffu, q, o);
        const float var = sum_across_warps<W>(q, red[parity][1]) * (1.0f / float(n));
        const float inv = 1.0f / sqrtf(var + eps);
        if (threadIdx.x == 0) {
            mean[r] = mu;
            rstd[r] = inv;
        }
#pragma unroll
        for (int i = 0; i < C; ++i) {
            float v[P], wv[P], bv[P];
            unpack<T, P>(raw[i], v);
            unpack<T, P>(wraw[i], wv);
            unpack<T, P>(braw[i], bv);
#pragma unroll
            for (int k = 0; k < P; ++k) v[k] = fmaf((v[k] - mu) * inv, wv[k], bv[k]);
            yr[i * B] = pack_of<T, P>(v);
        }
    }
}

static int sms;

struct Run {
    const char* dt;
    int64_t rows, n;
    void *x, *w, *b, *y, *ref, *mean, *mean_ref, *rstd, *rstd_ref;
    double bytes;
};

template <typename T>
static void report(const Run& s, const char* tag, float ms, bool check) {
    const double dy = check ? max_abs_diff<T>(s.y, s.ref, s.rows * s.n) : 0.0;
    const double dm = check ? max_abs_diff<float>(s.mean, s.mean_ref, s.rows) : 0.0;
    const double dr = check ? max_abs_diff<float>(s.rstd, s.rstd_ref, s.rows) : 0.0;
    std::printf("ln_fwd %-5s %6lldx%-6lld %-40s %8.4f ms %7.0f GB/s  maxdiff y %.2e mean %.2e rstd %.2e\n", s.dt,
                (long long)s.rows, (long long)s.n, tag, ms, s.bytes / ms / 1e6, dy, dm, dr);
}

// The library's fixed-group kernel for these rows (OPK_FIXED_KERNELS in kernel_params.h:
// 2-byte rows at four packs a thread; fp32 rows of 4096 at four, 8192 and 16384 at eight),
// launched as fixed_group_plan does: one block a row.
template <typename T>
static void run_library(Run& s) {
    constexpr int P = Pack<T>::n;
    const int64_t packs = s.n / P;
    void (*k)(NormArgs) = nullptr;
    unsigned block = 0;
    if constexpr (sizeof(T) == 2) {
        block = unsigned(packs / kFixedChunks16);
        k = block == 128 ? opk_ln_fwd_fixed_bf16_g128 : block == 256 ? opk_ln_fwd_fixed_bf16_g256 : opk_ln_fwd_fixed_bf16_g512;
    } else if (packs == 1024) {
        block = 256;
        k = opk_ln_fwd_fixed_f32_g256x4;
    } else {
        block = unsigned(packs / kFixedChunks);
        k = block == 256 ? opk_ln_fwd_fixed_f32_g256 : opk_ln_fwd_fixed_f32_g512;
    }
    NormArgs a{};
    a.x = rows_view(s.x, s.rows, s.n);
    a.y = rows_view(s.ref, s.rows, s.n);
    a.weight = s.w;
    a.weight_vec = 1;
    a.bias = s.b;
    a.bias_vec = 1;
    a.mean.data = s.mean_ref;
    a.mean.stride = 1;
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

template <typename T, int B, int C, int Res>
static void run_lean(Run& s) {
    constexpr int P = Pack<T>::n;
    if (s.n != int64_t(B) * C * P) return;
    auto k = lean_ln<T, B, C, Res>;
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
        std::snprintf(tag, sizeof tag, "lean B%d C%d R%d %dreg%s %dblk %s", B, C, Res, attr.numRegs,
                      attr.localSizeBytes ? " SPILL" : "", per_sm, fit ? "fit" : "all");
        report<T>(s, tag, ms, true);
    }
}

template <typename T>
static void sweep(Run& s) {
    // 2-byte 4096 (512 packs); fp32 2048
    run_lean<T, 512, 1, 2048>(s);
    run_lean<T, 256, 2, 2048>(s);
    run_lean<T, 256, 2, 1536>(s);
    run_lean<T, 128, 4, 1024>(s);
    // 2-byte 8192, fp32 4096 (1024 packs)
    run_lean<T, 1024, 1, 2048>(s);
    run_lean<T, 512, 2, 2048>(s);
    run_lean<T, 512, 2, 1536>(s);
    run_lean<T, 256, 4, 1024>(s);
    // 2-byte 16384, fp32 8192 (2048 packs)
    run_lean<T, 1024, 2, 2048>(s);
    run_lean<T, 512, 4, 1024>(s);
    run_lean<T, 512, 4, 1536>(s);
    // fp32 16384 (4096 packs)
    run_lean<T, 1024, 4, 1024>(s);
    run_lean<T, 512, 8, 1024>(s);
}

template <typename T>
static void shapes(Run base) {
    const bool bf = sizeof(T) == 2;
    for (auto [rows, n] : {std::pair<int64_t, int64_t>{32768, 4096}, {8192, 8192}, {4096, 16384}}) {
        Run s = base;
        s.dt = bf ? "bf16" : "f32";
        s.rows = rows;
        s.n = n;
        s.bytes = 2.0 * double(rows * n) * sizeof(T);
        fill<T>(s.x, rows * n, 2.0f, 0.5f);
        fill<T>(s.w, n, 0.5f, 1.0f);
        fill<T>(s.b, n, 0.25f, 0.0f);
        run_library<T>(s);
        sweep<T>(s);
        run_library<T>(s);  // again, after the sweep: the spread between the two is the noise
    }
}

int main() {
    std::setvbuf(stdout, nullptr, _IONBF, 0);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    const int64_t elems = int64_t(32768) * 4096;  // every shape has at most 2^27 elements
    Run s{};
    cudaMalloc(&s.x, elems * 4);
    cudaMalloc(&s.y, elems * 4);
    cudaMalloc(&s.ref, elems * 4);
    cudaMalloc(&s.w, 16384 * 4);
    cudaMalloc(&s.b, 16384 * 4);
    cudaMalloc(&s.mean, 32768 * 4);
    cudaMalloc(&s.mean_ref, 32768 * 4);
    cudaMalloc(&s.rstd, 32768 * 4);
    cudaMalloc(&s.rstd_ref, 32768 * 4);
    shapes<opk_bf16>(s);
    shapes<float>(s);
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) {
        std::fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(e));
        return 1;
    }
    return 0;
}
