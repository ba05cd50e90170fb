// Does the softmax backward (dx = y * (dy - sum(dy * y))) gain from Inductor's shape? Its
// kernel reads each row twice (the sum, then dx; the second pass from L1/L2) at 24
// registers and 60 warps an SM, and leads the library's exact kernel (a row held in
// registers at 40 registers, 46 warps) by 2-3 % at bf16 32768x4096 (docs/PERFORMANCE.md,
// "Nsight Compute on three of the real gaps"). The library's form could not be built below
// 40 registers without spilling (thirty-sixth session), so these kernels are written lean:
// contiguous rows of exactly B * C packs, compile-time shape, no bounds, no strides.
//   held    both rows' packs in registers, as the library's exact kernel;
//   twice   pass 1 sums, pass 2 reads the packs again (plain loads: L1 then L2);
//   twiceH  the same with Inductor's hints: pass 1 L2 evict_last, pass 2 evict_first.
// Each at R resident threads (launch bounds), one block a row ("all": the library's grid)
// or a persistent grid of the blocks that fit ("fit"). Every line is checked against the
// library's kernel (launched as ops_softmax.cpp launches it) over the whole output: maxdiff
// is the largest absolute difference. Not part of the build:
//
//   nvcc -std=c++17 -O3 -arch=sm_90 -Xptxas -v -o softmax_backward_lean \
//        bench/experiments/softmax_backward_lean.cu 2> ptxas.txt
//   ./softmax_backward_lean        # on the GPU machine
#include "../../vendors/gpu/softmax.cu"
#include "dense_rows.cuh"
#include "fill_pattern.cuh"
#include "max_diff.cuh"
#include "median_time.cuh"

#include <cmath>
#include <type_traits>

using namespace opk;

enum { kHeld, kTwice, kTwiceHints };

template <int Mode, bool Second>
__device__ __forceinline__ uint4 load_pack(const uint4* p) {
    if constexpr (Mode == kTwiceHints)
        return Second ? load16<CacheHint::last_use>(p) : load16<CacheHint::keep>(p);
    return *p;
}

template <typename T, int B, int C, int Res, int Mode>
__global__ void __launch_bounds__(B, Res / B) lean_bwd(const T* dy, const T* y, T* dx, int64_t rows) {
    constexpr int P = Pack<T>::n, W = B / 32;
    constexpr int64_t n = int64_t(B) * C * P;
    __shared__ float red[2][W];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    int parity = 0;
    for (int64_t r = blockIdx.x; r < rows; r += gridDim.x, parity ^= 1) {
        const uint4* dyr = reinterpret_cast<const uint4*>(dy + r * n) + threadIdx.x;
        const uint4* yr = reinterpret_cast<const uint4*>(y + r * n) + threadIdx.x;
        uint4* dxr = reinterpret_cast<uint4*>(dx + r * n) + threadIdx.x;
        uint4 held_dy[Mode == kHeld ? C : 1], held_y[Mode == kHeld ? C : 1];
        // Pack i of dy or y: from registers (held) or loaded again (the twice modes).
        auto pack_at = [&](const uint4* row, const uint4 (&held)[Mode == kHeld ? C : 1], int i, auto second) {
            if constexpr (Mode == kHeld)
                return held[i];
            else
                return load_pack<Mode, decltype(second)::value>(row + i * B);
        };
        float dot = 0.0f;
        if constexpr (Mode == kHeld) {
#pragma unroll
            for (int i = 0; i < C; ++i) {
                held_dy[i] = dyr[i * B];
                held_y[i] = yr[i * B];
            }
        }
#pragma unroll
        for (int i = 0; i < C; ++i) {
            float a[P], b[P];
            unpack<T, P>(pack_at(dyr, held_dy, i, std::false_type()), a);
            unpack<T, P>(pack_at(yr, held_y, i, std::false_type()), b);
#pragma unroll
            for (int k = 0; k < P; ++k) dot = fmaf(a[k], b[k], dot);
        }
#pragma unroll
        for (int s = 16; s > 0; s /= 2) dot += __shfl_xor_sync(0xffffffffu, dot, s);
        if (lane == 0) red[parity][warp] = dot;
        __syncthreads();  // red[parity] is written again two rows on, after this row's barrier
        dot = 0.0f;
#pragma unroll
        for (int w = 0; w < W; ++w) dot += red[parity][w];
#pragma unroll
        for (int i = 0; i < C; ++i) {
            float a[P], b[P], out[P];
            unpack<T, P>(pack_at(dyr, held_dy, i, std::true_type()), a);
            unpack<T, P>(pack_at(yr, held_y, i, std::true_type()), b);
#pragma unroll
            for (int k = 0; k < P; ++k) out[k] = b[k] * (a[k] - dot);
            dxr[i * B] = pack_of<T, P>(out);
        }
    }
}

static int sms;

struct Run {
    const char* dt;
    int64_t rows, n;
    void *dy, *y, *dx, *ref;
    double bytes;
};

template <typename T>
static void report(const Run& s, const char* tag, float ms, bool check) {
    const double maxd = check ? max_abs_diff<T>(s.dx, s.ref, s.rows * s.n) : 0.0;
    std::printf("softmax_bwd %-5s %6lldx%-6lld %-40s %8.4f ms %7.0f GB/s  maxdiff %.2e\n", s.dt, (long long)s.rows,
                (long long)s.n, tag, ms, s.bytes / ms / 1e6, maxd);
}

// The library's kernel as ops_softmax.cpp launches it for these rows: 2-byte rows of 2048
// packs or more at eight packs a thread (wide), others exact at two (2-byte) or four (fp32)
// packs; one block a row.
template <typename T>
static void run_library(Run& s) {
    constexpr int P = Pack<T>::n;
    const int64_t packs = s.n / P;
    const bool two = sizeof(T) == 2, wide = two && packs >= kBwdWideMinPacks;
    const int chunks = wide ? 8 : two ? 2 : 4;
    const unsigned block = unsigned(packs / chunks);
    void (*k)(SoftmaxArgs) = wide ? (void (*)(SoftmaxArgs))opk_softmax_bwd_wide_bf16
                                  : two ? (void (*)(SoftmaxArgs))opk_softmax_bwd_exact_bf16 : opk_softmax_bwd_exact_f32;
    SoftmaxArgs a{};
    a.a = rows_view(s.dy, s.rows, s.n);
    a.b = rows_view(s.y, s.rows, s.n);
    a.out = rows_view(s.ref, s.rows, s.n);
    a.rows = s.rows;
    a.n = s.n;
    a.exact = 1;
    const int64_t grid = s.rows;
    const float ms = median_ms([&] { k<<<grid, block>>>(a); });
    cudaFuncAttributes attr{};
    cudaFuncGetAttributes(&attr, k);
    char tag[64];
    std::snprintf(tag, sizeof tag, "library %s %ux%d %dreg", wide ? "wide" : "exact", block, chunks, attr.numRegs);
    report<T>(s, tag, ms, false);
}

template <typename T, int B, int C, int Res, int Mode>
static void run_lean(Run& s) {
    constexpr int P = Pack<T>::n;
    if (s.n != int64_t(B) * C * P) return;
    auto k = lean_bwd<T, B, C, Res, Mode>;
    int per_sm = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, B, 0);
    cudaFuncAttributes attr{};
    cudaFuncGetAttributes(&attr, k);
    const char* mode = Mode == kHeld ? "held" : Mode == kTwice ? "twice" : "twiceH";
    for (int fit = 0; fit < 2; ++fit) {
        const int64_t grid = fit ? std::min<int64_t>(s.rows, int64_t(sms) * std::max(per_sm, 1)) : s.rows;
        cudaMemset(s.dx, 0, size_t(s.rows * s.n) * sizeof(T));
        const T *dy = static_cast<const T*>(s.dy), *y = static_cast<const T*>(s.y);
        T* dx = static_cast<T*>(s.dx);
        const float ms = median_ms([&] { k<<<grid, B>>>(dy, y, dx, s.rows); });
        char tag[80];
        std::snprintf(tag, sizeof tag, "%-6s B%d C%d R%d %dreg%s %dblk %s", mode, B, C, Res, attr.numRegs,
                      attr.localSizeBytes ? " SPILL" : "", per_sm, fit ? "fit" : "all");
        report<T>(s, tag, ms, true);
    }
}

#define OPK_LEAN(B, C, Res)                     \
    run_lean<T, B, C, Res, kHeld>(s);           \
    run_lean<T, B, C, Res, kTwice>(s);          \
    run_lean<T, B, C, Res, kTwiceHints>(s);

template <typename T>
static void sweep(Run& s) {
    // bf16 4096 (512 packs), f32 2048 packs is 8192
    OPK_LEAN(256, 2, 1536)
    OPK_LEAN(256, 2, 2048)
    OPK_LEAN(512, 1, 2048)
    OPK_LEAN(128, 4, 2048)
    // bf16 8192, f32 4096 (1024 packs)
    OPK_LEAN(256, 4, 1024)
    OPK_LEAN(256, 4, 1536)
    OPK_LEAN(512, 2, 1536)
    OPK_LEAN(512, 2, 2048)
    OPK_LEAN(1024, 1, 2048)
    // bf16 16384, f32 8192 (2048 packs)
    OPK_LEAN(256, 8, 512)
    OPK_LEAN(512, 4, 1024)
    OPK_LEAN(512, 4, 1536)
    OPK_LEAN(1024, 2, 2048)
    // f32 16384 (4096 packs)
    OPK_LEAN(512, 8, 1024)
    OPK_LEAN(1024, 4, 1024)
}

template <typename T>
static void shapes(Run base) {
    const bool bf = sizeof(T) == 2;
    for (auto [rows, n] : {std::pair<int64_t, int64_t>{32768, 4096}, {8192, 8192}, {4096, 16384}}) {
        Run s = base;
        s.dt = bf ? "bf16" : "f32";
        s.rows = rows;
        s.n = n;
        s.bytes = 3.0 * double(rows * n) * sizeof(T);
        fill<T>(s.dy, rows * n, 1.0f, 0.0f);
        fill<T>(s.y, rows * n, 1.0f / float(n), 0.0f);
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
    cudaMalloc(&s.dy, elems * 4);
    cudaMalloc(&s.y, elems * 4);
    cudaMalloc(&s.dx, elems * 4);
    cudaMalloc(&s.ref, elems * 4);
    shapes<opk_bf16>(s);
    shapes<float>(s);
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) {
        std::fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(e));
        return 1;
    }
    return 0;
}
