// Does the softmax forward gain from Liger-Kernel's shape? Its kernel takes a row a program
// with one 16-byte pack a thread for bf16 rows of 8192 (1024 threads), and read 2 % faster
// than the library's fixed-group kernel (256 threads of four packs) at 8192x8192 in every
// run of the thirty-seventh session; the softmax backward gained from the same move to one
// pack a thread at full occupancy (opk_softmax_bwd_one_pack, bench/experiments/
// softmax_backward_lean.cu). These kernels are written lean: contiguous rows of exactly
// B * C packs, compile-time shape, no bounds, the row held in registers, both reductions
// (max, then the sum of exponentials) through a fixed-group stage (warp shuffles, the warps'
// partials read one a lane and shuffled again; lean_rows.cuh) on alternating scratch. Each at R resident
// threads (launch bounds), one block a row. Every line is checked against the library's
// fixed-group kernel (launched as fixed_group_plan launches it) over the whole output:
// maxdiff is the largest absolute difference. Not part of the build:
//
//   nvcc -std=c++17 -O3 -arch=sm_90 -Xptxas -v -o softmax_forward_lean \
//        bench/experiments/softmax_forward_lean.cu 2> ptxas.txt
//   ./softmax_forward_lean        # on the GPU machine
#include "../../vendors/gpu/softmax.cu"
#include "dense_rows.cuh"
#include "fill_pattern.cuh"
#include "lean_rows.cuh"
#include "max_diff.cuh"
#include "median_time.cuh"

#include <cmath>

using namespace opk;

// Twice (thirty-eighth session): the row read twice as rms_norm's twice kernels read it
// (opk_rms_fwd_twice_*): each thread's (max, sum of exp) of its packs loaded with L2
// evict_last, merged online over the warp and across the warps in one reduction, so no
// register holds the row across the barrier; then x again (evict_first) for y.
template <typename T, int B, int C, int Res>
__global__ void __launch_bounds__(B, Res / B) twice_fwd(const T* x, T* y, int64_t rows) {
    constexpr int P = Pack<T>::n, W = B / 32;
    constexpr int64_t n = int64_t(B) * C * P;
    __shared__ float red[2][2][W];
    auto merge = [](float& m, float& s, float m2, float s2) {
        const float mn = fmaxf(m, m2), b = exp_base(mn);
        s = s * exp_minus<T>(m, b) + s2 * exp_minus<T>(m2, b);
        m = mn;
    };
    int parity = 0;
    for (int64_t r = blockIdx.x; r < rows; r += gridDim.x, parity ^= 1) {
        const T* xr = x + r * n;
        uint4 raw[C];
#pragma unroll
        for (int i = 0; i < C; ++i) raw[i] = load16<CacheHint::keep>(xr + (int64_t(i) * B + threadIdx.x) * P);
        float m = -INFINITY;
#pragma unroll
        for (int i = 0; i < C; ++i) {
            float v[P];
            unpack<T, P>(raw[i], v);
#pragma unroll
            for (int k = 0; k < P; ++k) m = fmaxf(m, v[k]);
        }
        float s = 0.0f;
        const float tb = exp_base(m);
#pragma unroll
        for (int i = 0; i < C; ++i) {
            float v[P];
            unpack<T, P>(raw[i], v);
#pragma unroll
            for (int k = 0; k < P; ++k) s += exp_minus<T>(v[k], tb);
        }
#pragma unroll
        for (int o = 1; o < 32; o *= 2)
            merge(m, s, __shfl_xor_sync(0xffffffffu, m, o), __shfl_xor_sync(0xffffffffu, s, o));
        const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
        if (lane == 0) {
            red[parity][0][warp] = m;
            red[parity][1][warp] = s;
        }
        __syncthreads();
        m = red[parity][0][lane & (W - 1)];
        s = red[parity][1][lane & (W - 1)];
#pragma unroll
        for (int o = 1; o < W; o *= 2)
            merge(m, s, __shfl_xor_sync(0xffffffffu, m, o), __shfl_xor_sync(0xffffffffu, s, o));
        const float base = exp_base(m), rs = 1.0f / s;
#pragma unroll
        for (int i = 0; i < C; ++i) {
            const int64_t c = int64_t(i) * B + threadIdx.x;
            float v[P];
            unpack<T, P>(load16<CacheHint::last_use>(xr + c * P), v);
#pragma unroll
            for (int k = 0; k < P; ++k) v[k] = exp_minus<T>(v[k], base) * rs;
            reinterpret_cast<uint4*>(y + r * n)[c] = pack_of<T, P>(v);
        }
    }
}

template <typename T, int B, int C, int Res>
__global__ void __launch_bounds__(B, Res / B) lean_fwd(const T* x, T* y, int64_t rows) {
    constexpr int P = Pack<T>::n, W = B / 32;
    constexpr int64_t n = int64_t(B) * C * P;
    // [row parity][max, sum][warp]: a scratch is written again two reductions on, after the
    // barrier of the reduction in between.
    __shared__ float red[2][2][W];
    int parity = 0;
    for (int64_t r = blockIdx.x; r < rows; r += gridDim.x, parity ^= 1) {
        const uint4* xr = reinterpret_cast<const uint4*>(x + r * n) + threadIdx.x;
        uint4* yr = reinterpret_cast<uint4*>(y + r * n) + threadIdx.x;
        uint4 raw[C];
#pragma unroll
        for (int i = 0; i < C; ++i) raw[i] = xr[i * B];
        float m = -INFINITY;
#pragma unroll
        for (int i = 0; i < C; ++i) {
            float v[P];
            unpack<T, P>(raw[i], v);
#pragma unroll
            for (int k = 0; k < P; ++k) m = fmaxf(m, v[k]);
        }
#pragma unroll
        for (int o = 16; o > 0; o /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
        m = across_warps<W>(m, red[parity][0], LeanMax());
        const float base = exp_base(m);
        float s = 0.0f;
#pragma unroll
        for (int i = 0; i < C; ++i) {
            float v[P];
            unpack<T, P>(raw[i], v);
#pragma unroll
            for (int k = 0; k < P; ++k) s += exp_minus<T>(v[k], base);
        }
#pragma unroll
        for (int o = 16; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffffu, s, o);
        s = across_warps<W>(s, red[parity][1], LeanAdd());
        const float rs = 1.0f / s;
#pragma unroll
        for (int i = 0; i < C; ++i) {
            float v[P];
            unpack<T, P>(raw[i], v);
#pragma unroll
            for (int k = 0; k < P; ++k) v[k] = exp_minus<T>(v[k], base) * rs;
            yr[i * B] = pack_of<T, P>(v);
        }
    }
}

static int sms;

struct Run {
    const char* dt;
    int64_t rows, n;
    void *x, *y, *ref;
    double bytes;
};

template <typename T>
static void report(const Run& s, const char* tag, float ms, bool check) {
    const double maxd = check ? max_abs_diff<T>(s.y, s.ref, s.rows * s.n) : 0.0;
    std::printf("softmax_fwd %-5s %6lldx%-6lld %-36s %8.4f ms %7.0f GB/s  maxdiff %.2e\n", s.dt, (long long)s.rows,
                (long long)s.n, tag, ms, s.bytes / ms / 1e6, maxd);
}

// The library's fixed-group kernel for these rows (kernel_params.h's FixedKernel tables:
// 2-byte rows at four packs a thread, fp32 rows of 4096 at 256 x 4, longer at eight packs),
// launched as fixed_group_plan does: one block a row.
template <typename T>
static void run_library(Run& s) {
    constexpr int P = Pack<T>::n;
    const int64_t packs = s.n / P;
    void (*k)(SoftmaxArgs) = nullptr;
    unsigned block = 0;
    if constexpr (sizeof(T) == 2) {
        block = unsigned(packs / kFixedChunks16);
        k = block == 128 ? opk_softmax_fwd_fixed_bf16_g128
                         : block == 256 ? opk_softmax_fwd_fixed_bf16_g256 : opk_softmax_fwd_fixed_bf16_g512;
    } else if (packs == 1024) {
        block = 256;
        k = opk_softmax_fwd_fixed_f32_g256x4;
    } else {
        block = unsigned(packs / kFixedChunks);
        k = block == 256 ? opk_softmax_fwd_fixed_f32_g256 : opk_softmax_fwd_fixed_f32_g512;
    }
    SoftmaxArgs a{};
    a.a = rows_view(s.x, s.rows, s.n);
    a.out = rows_view(s.ref, s.rows, s.n);
    a.rows = s.rows;
    a.n = s.n;
    a.exact = 1;
    const float ms = median_ms([&] { k<<<s.rows, block>>>(a); });
    cudaFuncAttributes attr{};
    cudaFuncGetAttributes(&attr, k);
    char tag[64];
    std::snprintf(tag, sizeof tag, "library fixed %ux%d %dreg", block, int(packs / block), attr.numRegs);
    report<T>(s, tag, ms, false);
}

template <typename T, int B, int C, int Res, bool Twice = false>
static void run_lean(Run& s) {
    constexpr int P = Pack<T>::n;
    if (s.n != int64_t(B) * C * P) return;
    auto k = Twice ? twice_fwd<T, B, C, Res> : lean_fwd<T, B, C, Res>;
    int per_sm = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, B, 0);
    cudaFuncAttributes attr{};
    cudaFuncGetAttributes(&attr, k);
    cudaMemset(s.y, 0, size_t(s.rows * s.n) * sizeof(T));
    const T* x = static_cast<const T*>(s.x);
    T* y = static_cast<T*>(s.y);
    const float ms = median_ms([&] { k<<<s.rows, B>>>(x, y, s.rows); });
    char tag[80];
    std::snprintf(tag, sizeof tag, "%s B%d C%d R%d %dreg%s %dblk", Twice ? "twiceH" : "lean", B, C, Res, attr.numRegs,
                  attr.localSizeBytes ? " SPILL" : "", per_sm);
    report<T>(s, tag, ms, true);
}

template <typename T>
static void shapes(Run base) {
    for (int i = 0; i < kLeanRowShapes; ++i) {
        Run s = base;
        s.dt = sizeof(T) == 2 ? "bf16" : "f32";
        s.rows = kLeanRows[i];
        s.n = kLeanCols[i];
        s.bytes = 2.0 * double(s.rows * s.n) * sizeof(T);
        fill<T>(s.x, s.rows * s.n, 6.0f, 0.0f);
        run_library<T>(s);
#define OPK_RUN_LEAN(B, C, R) \
    run_lean<T, B, C, R>(s);  \
    run_lean<T, B, C, R, true>(s);
        OPK_LEAN_SHAPES(OPK_RUN_LEAN)
#undef OPK_RUN_LEAN
        run_library<T>(s);  // again, after the sweep: the spread between the two is the noise
    }
}

int main() {
    std::setvbuf(stdout, nullptr, _IONBF, 0);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    const int64_t elems = int64_t(32768) * 4096;  // every shape has at most 2^27 elements
    Run s{};
    for (void** p : {&s.x, &s.y, &s.ref}) cudaMalloc(p, elems * 4);
    shapes<opk_bf16>(s);
    shapes<float>(s);
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) {
        std::fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(e));
        return 1;
    }
    return 0;
}
