// The cached forward row kernels (softmax, rms_norm, layer_norm) under other launch
// shapes: threads per row (B), packs per thread (C), the resident threads the launch
// bounds ask for (Res: 1024 = 64 registers as in the library, 1280 = 48, 1536 = 40,
// 2048 = 32), and a grid of 1, 2 or one block per row block ("256 waves", as the library
// launches the forwards since 2026-11-28). Each line is checked against the kernel the host
// launches today on the first and last four rows, and takes the exact-row body where the
// kernel has one and the rows are exact for the variant. Not part of the build;
// bench/results/h100-2026-11-24-rows-fwd/variants-occupancy.txt came from this file at
// 8 waves, 2^27 elements a shape and without the exact body (its variants-prefetch.txt at
// commit e2c26ac, with the prefetch that commit tried); -DOPK_COMPARE_SHAPES takes
// bench/gpu_compare.py's shapes (bench/results/2026-11-28-h200/); with -DOPK_FIXED_TWO_PACKS
// too, only fixed groups of two, four or eight packs a thread (rfv-two-packs-h200.txt;
// the ninth session's rfv2/rfv3 in bench/results/2026-11-28-s9/); with
// -DOPK_STREAMED_HIGH_OCCUPANCY instead, only the streamed body at 1536-2048 resident threads:
//
//   nvcc -std=c++17 -O3 -arch=sm_90 -Xptxas -v -o row_forward_variants \
//        bench/experiments/row_forward_variants.cu 2> ptxas.txt
//   ./row_forward_variants        # on the GPU machine
//   ./row_forward_variants --today   # only the library's kernels, for an A/B of two trees
#include "../../vendors/gpu/norms.cu"
#include "../../vendors/gpu/softmax.cu"
#include "dense_rows.cuh"
#include "fill_pattern.cuh"
#include "median_time.cuh"

#include <cmath>
#include <cstring>

using namespace opk;

enum { kSoftmax, kRms, kLn };

template <int Op, typename T, int B, int C, int Res>
__global__ void __launch_bounds__(B, Res / B) variant(const SoftmaxArgs sa, const NormArgs na) {
    if constexpr (Op == kSoftmax)
        opk::softmax_forward<T, 0, C>(sa);
    else if constexpr (Op == kRms)
        opk::rms_forward<T, 0, C>(na);
    else
        opk::ln_forward<T, 0, C>(na);
}

// The exact-row body alone (no general body in the kernel to share its registers), as
// a kernel of the library's own would be: rows exact for B threads of C packs. Fixed: the
// group's size a compile-time constant (G = B: RowGroup's size, the packs' offsets and the
// reduction's warp count known to the compiler, as Triton knows its BLOCK_SIZE), for a
// question of 2026-11-28: Liger's forwards execute 1.8-3.6x fewer instructions than
// opkit's at the same launch shape (ncu-fwd-16384-opkit-liger-h200.txt).
template <int Op, typename T, int B, int C, int Res, bool Fixed>
__global__ void __launch_bounds__(B, Res / B) variant_exact(const SoftmaxArgs sa, const NormArgs na) {
    constexpr int G = Fixed ? B : 0;
    __shared__ float smem[kReduceSlots];
    if constexpr (Op == kSoftmax)
        opk::softmax_forward_rows<T, G, C, true>(sa, smem);
    else if constexpr (Op == kRms)
        opk::rms_forward_rows<T, G, C, true>(na, smem);
    else
        opk::ln_forward_rows<T, G, C, true>(na, smem);
}

// Ninth session: fp32 rms_norm / layer_norm forwards written as Inductor's (bench/results/
// 2026-11-28-s9/r6): rows read twice, the first pass kept in L1/L2 (__ldca here), the
// second streamed (__ldcs) and the output written evict-first (__stcs), U packs in flight
// a thread, a fixed block of B threads, no cached row: at Res resident threads. Rows must
// be whole packs (gpu_compare's are). layer_norm's moments as the library's streamed body
// takes them (each thread's sums shifted by its first element, group_moments). Written
// and compiled (sm_90, 2048 resident threads: 32 registers, no spills but layer_norm's
// U = 2, 300-470 bytes) but not yet run: the ninth session had no device time left.
template <int Op, int B, int U, int Res>
__global__ void __launch_bounds__(B, Res / B) norm_stream_lean(const SoftmaxArgs, const NormArgs na) {
    static_assert(Op == kRms || Op == kLn, "the norms");
    __shared__ float red[kReduceSlots];
    const int64_t packs = na.n / 4;
    const float4* w = static_cast<const float4*>(na.weight);
    const float4* bias = static_cast<const float4*>(na.bias);
    for (int64_t r = blockIdx.x; r < na.rows; r += gridDim.x) {
        const float4* xr = static_cast<const float4*>(na.x.data) + r * packs;
        float4* yr = static_cast<float4*>(na.y.data) + r * packs;
        const float shift = Op == kLn ? __ldca(reinterpret_cast<const float*>(xr) + threadIdx.x * 4) : 0.0f;
        float cnt = 0.0f, s1 = 0.0f, s2 = 0.0f;
        for (int64_t c0 = threadIdx.x; c0 < packs; c0 += int64_t(B) * U) {
            float4 v[U];
#pragma unroll
            for (int u = 0; u < U; ++u) {
                const int64_t c = c0 + int64_t(u) * B;
                v[u] = c < packs ? __ldca(xr + c) : make_float4(shift, shift, shift, shift);
                if (c < packs) cnt += 4.0f;
            }
#pragma unroll
            for (int u = 0; u < U; ++u) {
                const float d[4] = {v[u].x - shift, v[u].y - shift, v[u].z - shift, v[u].w - shift};
#pragma unroll
                for (int k = 0; k < 4; ++k) {
                    s1 += d[k];
                    s2 += d[k] * d[k];
                }
            }
        }
        float mu = 0.0f, inv;
        if constexpr (Op == kRms) {
            inv = 1.0f / sqrtf(group_sum1<B>(s2, red) / float(na.n) + na.eps);
        } else {
            float mean = cnt > 0.0f ? shift + s1 / cnt : 0.0f;
            float m2 = cnt > 0.0f ? fmaxf(s2 - s1 * (s1 / cnt), 0.0f) : 0.0f;
            group_moments<B>(cnt, mean, m2, red);
            mu = mean;
            inv = 1.0f / sqrtf(m2 / float(na.n) + na.eps);
        }
        if (threadIdx.x == 0) {
            if (na.rstd.data) static_cast<float*>(na.rstd.data)[r] = inv;
            if (Op == kLn && na.mean.data) static_cast<float*>(na.mean.data)[r] = mu;
        }
        for (int64_t c0 = threadIdx.x; c0 < packs; c0 += int64_t(B) * U) {
            float4 v[U], wv[U], bv[U];
#pragma unroll
            for (int u = 0; u < U; ++u) {
                const int64_t c = c0 + int64_t(u) * B;
                if (c < packs) {
                    v[u] = __ldcs(xr + c);
                    wv[u] = __ldg(w + c);
                    bv[u] = Op == kLn && bias ? __ldg(bias + c) : make_float4(0.f, 0.f, 0.f, 0.f);
                }
            }
#pragma unroll
            for (int u = 0; u < U; ++u) {
                const int64_t c = c0 + int64_t(u) * B;
                if (c < packs)
                    __stcs(yr + c, make_float4((v[u].x - mu) * inv * wv[u].x + bv[u].x, (v[u].y - mu) * inv * wv[u].y + bv[u].y,
                                               (v[u].z - mu) * inv * wv[u].z + bv[u].z, (v[u].w - mu) * inv * wv[u].w + bv[u].w));
            }
        }
    }
}

static int sms;
// A grid of one block per row block (kRowGridWavesBalanced, the library's forwards since
// 2026-11-28): more waves than any shape here has.
constexpr int kAllWaves = 256;
static bool today_only;  // --today: only the library's kernels (A/B of two source trees)
static float to_float(float v) { return v; }
static float to_float(opk_bf16 v) { return __bfloat162float(v); }

struct Shape {
    const char* op;
    const char* dt;
    int64_t rows, n;
    SoftmaxArgs sa;
    NormArgs na;
    void* y;
    size_t esize;
    double bytes;
    std::vector<float> ref;  // first and last four rows of today's kernel
};

template <typename T>
static std::vector<float> edge_rows(const Shape& s) {
    std::vector<T> h(size_t(8 * s.n));
    const size_t row = size_t(s.n) * sizeof(T);
    cudaMemcpy(h.data(), s.y, 4 * row, cudaMemcpyDeviceToHost);
    cudaMemcpy(h.data() + 4 * s.n, static_cast<char*>(s.y) + (s.rows - 4) * row, 4 * row, cudaMemcpyDeviceToHost);
    std::vector<float> f(h.size());
    for (size_t i = 0; i < h.size(); ++i) f[i] = to_float(h[i]);
    return f;
}

template <class K>
static void time_line(Shape& s, const char* tag, K kernel, unsigned block, int waves, int per_sm) {
    const int64_t grid = std::min<int64_t>(s.rows, int64_t(sms) * per_sm * waves);
    cudaMemset(s.y, 0, size_t(s.rows * s.n) * s.esize);
    const float ms = median_ms([&] { kernel<<<grid, block>>>(s.sa, s.na); });
    std::vector<float> got = s.esize == 2 ? edge_rows<opk_bf16>(s) : edge_rows<float>(s);
    double maxd = 0.0;
    for (size_t i = 0; i < got.size(); ++i) maxd = std::max(maxd, double(std::fabs(got[i] - s.ref[i])));
    std::printf("%-8s %-5s %6lldx%-6lld %-30s %d wave%s %2d blk/SM %8.4f ms %7.0f GB/s  maxdiff %.2e\n", s.op, s.dt,
                (long long)s.rows, (long long)s.n, tag, waves, waves > 1 ? "s" : " ", per_sm, ms, s.bytes / ms / 1e6,
                maxd);
}

// A variant's tag (label, B, C, Res, its registers, SPILL) and the blocks an SM can hold.
template <class K>
static int describe(K kernel, const char* label, int B, int C, int Res, char (&tag)[64]) {
    int per_sm = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, B, 0);
    cudaFuncAttributes attr{};
    cudaFuncGetAttributes(&attr, kernel);
    std::snprintf(tag, sizeof tag, "%sB%d C%d R%d %dreg%s", label, B, C, Res, attr.numRegs,
                  attr.localSizeBytes ? " SPILL" : "");
    return per_sm;
}

template <int Op, typename T, int B, int C, int Res>
static void run_variant(Shape& s) {
    auto k = variant<Op, T, B, C, Res>;
    // The lean exact-row body where the kernel has one (softmax, layer_norm), as the host
    // would take it: rows of exactly C packs a thread.
    s.sa.exact = s.na.exact = s.n / (16 / int64_t(sizeof(T))) == int64_t(B) * C;
    char tag[64];
    const int per_sm = describe(k, "", B, C, Res, tag);
    for (int waves : {1, 2, kAllWaves}) time_line(s, tag, k, B, waves, per_sm);
}

template <int Op, typename T, int B, int C, int Res, bool Fixed>
static void run_variant_exact(Shape& s) {
    auto k = variant_exact<Op, T, B, C, Res, Fixed>;
    char tag[64];
    const int per_sm = describe(k, Fixed ? "fixed-B " : "exact-only ", B, C, Res, tag);
    time_line(s, tag, k, B, kAllWaves, per_sm);
}

template <int Op, int B, int U, int Res>
static void run_lean(Shape& s) {
    auto k = norm_stream_lean<Op, B, U, Res>;
    char tag[64];
    const int per_sm = describe(k, "lean-stream U ", B, U, Res, tag);
    for (int waves : {1, 2, kAllWaves}) time_line(s, tag, k, B, waves, per_sm);
}

// The config-1 kernel with the host's plan for it (block = packs / 4 threads rounded to
// warps, one block per row block): the reference of every line. For fp32 rows of 8192 to
// 16384 the library now launches opk_*_fwd_wide_f32 instead (the exact-only B.. C8 lines).
template <typename T>
static void run_current(Shape& s, void (*kernel)(SoftmaxArgs), void (*nkernel)(NormArgs)) {
    constexpr int P = 16 / sizeof(T);
    const int64_t packs = s.n / P, need = (packs + 3) / 4;
    const unsigned block = unsigned(std::max<int64_t>(64, (need + 31) / 32 * 32));
    const int64_t grid = std::min<int64_t>(s.rows, int64_t(sms) * std::max<int64_t>(1, 1024 / block) * kAllWaves);
    s.sa.exact = s.na.exact = packs == int64_t(block) * 4;
    cudaMemset(s.y, 0, size_t(s.rows * s.n) * s.esize);
    const float ms = median_ms([&] {
        if (kernel)
            kernel<<<grid, block>>>(s.sa);
        else
            nkernel<<<grid, block>>>(s.na);
    });
    s.ref = s.esize == 2 ? edge_rows<opk_bf16>(s) : edge_rows<float>(s);
    std::printf("%-8s %-5s %6lldx%-6lld %-30s %8.4f ms %7.0f GB/s\n", s.op, s.dt, (long long)s.rows, (long long)s.n,
                "today (c1, host plan)", ms, s.bytes / ms / 1e6);
}

template <typename T>
static Shape make_shape(const char* op, int64_t rows, int64_t n, void* x, void* y, void* w, void* b, float* stats) {
    Shape s{};
    s.op = op;
    s.dt = sizeof(T) == 2 ? "bf16" : "f32";
    s.rows = rows;
    s.n = n;
    s.y = y;
    s.esize = sizeof(T);
    s.bytes = 2.0 * double(rows * n) * sizeof(T);
    s.sa.a = rows_view(x, rows, n);
    s.sa.out = rows_view(y, rows, n);
    s.sa.rows = rows;
    s.sa.n = n;
    s.na.x = rows_view(x, rows, n);
    s.na.y = rows_view(y, rows, n);
    s.na.weight = w;
    s.na.bias = std::strcmp(op, "ln") == 0 ? b : nullptr;
    s.na.rstd = {stats, 1};
    s.na.mean = {std::strcmp(op, "ln") == 0 ? stats + rows : nullptr, 1};
    s.na.rows = rows;
    s.na.n = n;
    s.na.eps = 1e-6f;
    s.na.weight_vec = s.na.bias_vec = 1;
    return s;
}

// The (B, C) pairs that cover a row of `packs` 16-byte packs, at the resident threads
// that divide by B. Spilled variants are timed too: the tag says SPILL.
#define OPK_V(B, C, Res) run_variant<Op, T, B, C, Res>(s);
#define OPK_LEAN(B, U, Res) run_lean<Op, B, U, Res>(s);
#define OPK_VX(B, C, Res) run_variant_exact<Op, T, B, C, Res, false>(s); run_variant_exact<Op, T, B, C, Res, true>(s);

template <int Op, typename T>
static void sweep(Shape& s) {
    constexpr int P = 16 / sizeof(T);
    const int64_t packs = s.n / P;
#ifdef OPK_STREAMED_HIGH_OCCUPANCY
    // Ninth session: Inductor's fp32 rms_norm / layer_norm forwards at 32768x4096 read the
    // row twice (the second time from L2) at 24-32 registers and 93 % achieved occupancy,
    // and took 0.94-0.95x opkit's time (Nsight Compute, bench/results/2026-11-28-s9/r6).
    // The library's streamed body (C = 0) at such occupancy, against its cached kernels
    // (it spills 96-780 bytes at 32-40 registers: ptxas, sm_90), and norm_stream_lean.
    if (packs <= 2048) {
        OPK_V(256, 0, 2048) OPK_V(512, 0, 2048) OPK_V(1024, 0, 2048) OPK_V(512, 0, 1536)
    }
    if constexpr (Op != kSoftmax && sizeof(T) == 4) {
        OPK_LEAN(256, 1, 2048) OPK_LEAN(256, 2, 2048) OPK_LEAN(512, 1, 2048) OPK_LEAN(512, 2, 2048)
        OPK_LEAN(1024, 1, 2048) OPK_LEAN(1024, 2, 2048) OPK_LEAN(512, 4, 1024) OPK_LEAN(256, 4, 1024)
    }
    return;
#endif
#ifdef OPK_FIXED_TWO_PACKS  // 2026-11-28: fixed groups of two packs a thread, as Liger's
    // bf16 layer_norm forward holds a row of 4096 in 256 threads (the library's fixed
    // kernels hold four packs; their bf16 layer_norm trailed Liger 0.89x at 32768x4096)
    // Ninth session: the two-pack groups at Liger's occupancy too (1536 resident threads =
    // 40 registers, 2048 = 32: Nsight Compute showed Liger's softmax forward at 32
    // registers and 93 % achieved occupancy where the fixed kernels run 64 and 47 %).
    // And the four-pack groups at 1280 / 1536 resident threads (48 / 40 registers; Liger's
    // rms_norm forward runs 38 registers at 70 % occupancy where these run 63 at 47 %).
    if (packs == 512) {  // bf16 4096
        OPK_VX(256, 2, 1024) OPK_VX(256, 2, 1536) OPK_VX(256, 2, 2048) OPK_VX(128, 4, 1024)
        OPK_VX(128, 4, 1280) OPK_VX(128, 4, 1536)
    } else if (packs == 1024) {  // bf16 8192, f32 4096
        OPK_VX(512, 2, 1024) OPK_VX(512, 2, 1536) OPK_VX(512, 2, 2048) OPK_VX(256, 4, 1024)
        OPK_VX(256, 4, 1280) OPK_VX(256, 4, 1536)
    } else if (packs == 2048) {  // bf16 16384, f32 8192
        OPK_VX(1024, 2, 1024) OPK_VX(1024, 2, 2048) OPK_VX(512, 4, 1024) OPK_VX(256, 8, 1024)
        OPK_VX(512, 4, 1536)
    }
    return;
#endif
    if (packs == 512) {  // bf16 4096
        OPK_V(64, 8, 1024)
        OPK_V(128, 4, 1024) OPK_V(128, 4, 1280) OPK_V(128, 4, 1536) OPK_V(128, 4, 2048)
        OPK_V(256, 2, 1280) OPK_V(256, 2, 1536) OPK_V(256, 2, 2048)
        OPK_VX(128, 4, 1024) OPK_VX(64, 8, 1024)
    } else if (packs == 1024) {  // bf16 8192, f32 4096
        OPK_V(128, 8, 1024)
        OPK_V(256, 4, 1024) OPK_V(256, 4, 1280) OPK_V(256, 4, 1536) OPK_V(256, 4, 2048)
        OPK_V(512, 2, 1536) OPK_V(512, 2, 2048)
        OPK_VX(256, 4, 1024) OPK_VX(128, 8, 1024)
    } else if (packs == 2048) {  // bf16 16384, f32 8192
        OPK_V(256, 8, 1024)
        OPK_V(512, 4, 1024) OPK_V(512, 4, 1536) OPK_V(512, 4, 2048)
        OPK_V(1024, 2, 2048)
        OPK_VX(512, 4, 1024) OPK_VX(256, 8, 1024) OPK_VX(256, 8, 768) OPK_VX(256, 8, 512)
    } else if (packs == 4096) {  // f32 16384
        OPK_V(512, 8, 1024)
        OPK_V(1024, 4, 1024) OPK_V(1024, 4, 2048)
        OPK_VX(512, 8, 1024) OPK_VX(512, 8, 512) OPK_VX(1024, 4, 1024) OPK_VX(1024, 4, 2048)
    }
}

// Rows of each width: 2^27 elements (as on 2026-11-24), or with -DOPK_COMPARE_SHAPES the
// shapes of bench/gpu_compare.py (32768x4096, 8192x8192, 4096x16384).
static int64_t rows_for(int64_t elems, int64_t n) {
#ifdef OPK_COMPARE_SHAPES
    if (n == 16384) return 4096;
    if (n == 8192) return 8192;
#endif
    return elems / n;
}

template <typename T>
static void all_ops(void* x, void* y, void* w, void* b, float* stats, int64_t elems) {
    const bool bf = sizeof(T) == 2;
    fill<T>(x, elems, 3.0f, 0.0f);
    fill<T>(w, 1 << 15, 0.5f, 1.0f);
    fill<T>(b, 1 << 15, 0.1f, 0.0f);
    auto sm_k = bf ? opk_softmax_fwd_bf16_c1 : opk_softmax_fwd_f32_c1;
    auto rms_k = bf ? opk_rms_fwd_bf16_c1 : opk_rms_fwd_f32_c1;
    auto ln_k = bf ? opk_ln_fwd_bf16_c1 : opk_ln_fwd_f32_c1;
    for (int64_t n : {int64_t(4096), int64_t(8192), int64_t(16384)}) {
        Shape s = make_shape<T>("softmax", rows_for(elems, n), n, x, y, w, b, stats);
        run_current<T>(s, sm_k, nullptr);
        if (!today_only) sweep<kSoftmax, T>(s);
    }
    for (int64_t n : {int64_t(4096), int64_t(8192), int64_t(16384)}) {
        Shape s = make_shape<T>("rms_norm", rows_for(elems, n), n, x, y, w, b, stats);
        run_current<T>(s, nullptr, rms_k);
        if (!today_only) sweep<kRms, T>(s);
    }
    for (int64_t n : {int64_t(4096), int64_t(8192), int64_t(16384)}) {
        Shape s = make_shape<T>("ln", rows_for(elems, n), n, x, y, w, b, stats);
        run_current<T>(s, nullptr, ln_k);
        if (!today_only) sweep<kLn, T>(s);
    }
}

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IONBF, 0);
    today_only = argc > 1 && std::strcmp(argv[1], "--today") == 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    const int64_t elems = int64_t(32768) * 4096;  // every shape has 2^27 elements
    void *x, *y, *w, *b;
    float* stats;
    cudaMalloc(&x, elems * 4);
    cudaMalloc(&y, elems * 4);
    cudaMalloc(&w, (1 << 15) * 4);
    cudaMalloc(&b, (1 << 15) * 4);
    cudaMalloc(&stats, 2 * 32768 * 4);
    all_ops<opk_bf16>(x, y, w, b, stats, elems);
    all_ops<float>(x, y, w, b, stats, elems);
    return 0;
}
