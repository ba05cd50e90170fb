// The rms_norm / layer_norm forwards with the rows read through a shared-memory ring
// filled by cp.async, as the backwards' stash kernels (norm_backward_stash in
// vendors/gpu/norms.cu): a block of B threads steps over rows, S rows of x in its ring, so
// the next rows' loads are in flight while one row is reduced and written; registers hold
// only the weight (and bias) packs. Question (2026-11-29, H200): the library's forwards
// (fixed-group kernels caching the row in registers, 63 registers, 47 % occupancy) stay at
// 0.89-0.95 of the copy bandwidth, bf16 rms_norm 0.95x Liger-Kernel (70 % occupancy at 38
// registers, same instruction count); does a ring, whose bytes in flight do not take
// registers, close that? Shapes: bench/gpu_compare.py's (32768x4096, 8192x8192,
// 4096x16384), bf16 and fp32. Each line is the kernel alone (no other launch), checked
// against a float64 reference on the first and last four rows (y and rstd; mean for
// layer_norm); "today" is the kernel the library's host launches for the shape
// (fixed_group_plan, wide_forward_plan or config 1, with its grid). Not part of the build:
//
//   nvcc -std=c++17 -O3 -arch=sm_90 -Xptxas -v -o norm_forward_stash \
//        bench/experiments/norm_forward_stash.cu 2> ptxas.txt
//   ./norm_forward_stash        # on the GPU machine
// (bench/results/2026-11-29-s13/r3 came from this file at be13327, whose layer_norm body was
// its own copy of what is now the library's ln_forward_stash.)
#include "../../vendors/gpu/norms.cu"
#include "dense_rows.cuh"
#include "fill_pattern.cuh"
#include "median_time.cuh"

#include <cmath>
#include <vector>

using namespace opk;

enum { kRms, kLn };

// rms_norm's forward of the rows of a block, x read through a ring of a.stash_slots rows:
// the layer_norm body of the library's ring forwards (ln_forward_stash in norms.cu, which
// came from this file) without the bias and the mean, one reduction a row on alternating
// scratches.
template <typename T, int B, int C>
__device__ void rms_forward_stash(const NormArgs& a) {
    constexpr int P = Pack<T>::n;
    __shared__ float smem[2][kReduceSlots];
    const RowGroup<B> g;
    const Span sp = g.span(a.n, P);
    uint4* const ring = reinterpret_cast<uint4*>(norm_columns);  // [slots][packs]
    WeightRegs<T, C> weight(static_cast<const T*>(a.weight), sp, a.weight_vec, 0.0f);
    const float offset = a.weight ? a.weight_offset : 0.0f;
    const int mine = g.first_row < a.rows ? int((a.rows - g.first_row + g.row_step - 1) / g.row_step) : 0;
    auto mine_packs = [&](auto&& f) {
#pragma unroll
        for (int i = 0; i < C; ++i) f(i, int64_t(i) * B + g.lane);  // rows exactly B x C packs
    };
    auto request = [&](int j, int slot) {
        if (j < mine) {
            const T* xr = row_ptr<const T>(a.x, g.first_row + int64_t(j) * g.row_step);
            uint4* s = ring + int64_t(slot) * sp.packs;
            mine_packs([&](int, int64_t c) { copy16_async(&s[c], xr + c * P); });
        }
        async_commit();
    };
    RowRing ring_slots(a.stash_slots, request);
    const float inv_n = 1.0f / float(sp.n);
    for (int j = 0; j < mine; ++j) {
        const int64_t r = g.first_row + int64_t(j) * g.row_step;
        const uint4* slot = ring + int64_t(ring_slots.next(j, request)) * sp.packs;
#pragma unroll
        for (int i = 0; i < C; ++i) per_iteration_words(weight.packs.raw[i]);
        float ss[1] = {0.0f};
        mine_packs([&](int, int64_t c) {
            float x[P];
            unpack<T, P>(slot[c], x);
#pragma unroll
            for (int k = 0; k < P; ++k) ss[0] += x[k] * x[k];
        });
        group_sum<B, 1, true>(ss, smem[j & 1]);
        const float inv = 1.0f / sqrtf(ss[0] * inv_n + a.eps);
        T* yr = row_ptr<T>(a.y, r);
        mine_packs([&](int i, int64_t c) {
            float x[P], wv[P], out[P];
            unpack<T, P>(slot[c], x);
            unpack<T, P>(weight.packs.raw[i], wv);
#pragma unroll
            for (int k = 0; k < P; ++k) out[k] = x[k] * inv * (wv[k] + offset);
            store_pack<T, P, CacheHint::normal, true>(yr, c, sp.n, true, out);
        });
        if (g.lane == 0 && a.rstd.data) strided_set<float>(a.rstd, r, inv);
    }
    async_wait_pending<0>();
}

template <int Op, typename T, int B, int C, int M>
__global__ void __launch_bounds__(B, M) stash_variant(const NormArgs a) {
    if constexpr (Op == kLn)
        opk::ln_forward_stash<T, B, C>(a);
    else
        rms_forward_stash<T, B, C>(a);
}

static int sms;

struct Shape {
    int op;
    int64_t rows, n;
    size_t esize;
    void *x, *y, *w, *b;
    float *rstd, *mean;
};

static NormArgs args(const Shape& s, int slots) {
    NormArgs a{};
    a.x = rows_view(s.x, s.rows, s.n);
    a.y = rows_view(s.y, s.rows, s.n);
    a.weight = s.w;
    a.bias = s.op == kLn ? s.b : nullptr;
    a.weight_vec = 1;
    a.bias_vec = 1;
    a.rstd = {s.rstd, 1};
    a.mean = {s.op == kLn ? s.mean : nullptr, 1};
    a.rows = s.rows;
    a.n = s.n;
    a.eps = 1e-5f;
    a.exact = 1;
    a.stash_slots = slots;
    return a;
}

template <typename T>
static std::vector<double> host_rows(const void* dev, int64_t first, int64_t count, int64_t n) {
    std::vector<T> h(size_t(count * n));
    cudaMemcpy(h.data(), static_cast<const T*>(dev) + first * n, h.size() * sizeof(T), cudaMemcpyDeviceToHost);
    return std::vector<double>(h.begin(), h.end());
}

// Largest |got - want| / (1 + |want|) over y, rstd (and mean) of the first and last four rows.
template <typename T>
static double check(const Shape& s) {
    const std::vector<double> w = host_rows<T>(s.w, 0, 1, s.n), b = host_rows<T>(s.b, 0, 1, s.n);
    double worst = 0.0;
    for (int64_t first : {int64_t(0), s.rows - 4}) {
        const std::vector<double> x = host_rows<T>(s.x, first, 4, s.n), y = host_rows<T>(s.y, first, 4, s.n);
        const std::vector<double> rstd = host_rows<float>(s.rstd, first, 4, 1);
        const std::vector<double> mean = host_rows<float>(s.mean, first, 4, 1);
        for (int r = 0; r < 4; ++r) {
            const double* xr = &x[size_t(r * s.n)];
            double mu = 0.0, var = 0.0;
            for (int64_t k = 0; k < s.n; ++k) mu += xr[k];
            mu = s.op == kLn ? mu / double(s.n) : 0.0;
            for (int64_t k = 0; k < s.n; ++k) var += (xr[k] - mu) * (xr[k] - mu);
            const double inv = 1.0 / std::sqrt(var / double(s.n) + 1e-5);
            auto diff = [&](double got, double want) {
                worst = std::max(worst, std::fabs(got - want) / (1.0 + std::fabs(want)));
            };
            diff(rstd[size_t(r)], inv);
            if (s.op == kLn) diff(mean[size_t(r)], mu);
            for (int64_t k = 0; k < s.n; ++k)
                diff(y[size_t(r * s.n + k)], (xr[k] - mu) * inv * w[size_t(k)] + (s.op == kLn ? b[size_t(k)] : 0.0));
        }
    }
    return worst;
}

template <typename T>
static void print_line(Shape& s, const char* tag, float ms) {
    const double bytes = 2.0 * double(s.rows * s.n) * double(s.esize);
    std::printf("%-7s %-4s %6lldx%-6lld %-34s %8.4f ms %6.0f GB/s  max rel err %.2e\n",
                s.op == kRms ? "rms_fwd" : "ln_fwd", sizeof(T) == 2 ? "bf16" : "f32", (long long)s.rows,
                (long long)s.n, tag, ms, bytes / ms / 1e6,
                check<T>(s));
    cudaMemset(s.y, 0, size_t(s.rows * s.n) * s.esize);
}

// The library's kernel for the shape and its grid (vendors/gpu/host/ops_norms.cpp forward:
// fixed groups of 128/256/512 threads for 2-byte rows of 4096/8192/16384 and fp32 rows of
// 8192/16384, grid min(rows, SMs x 1024 / threads x 256); fp32 rows of 4096 config 1,
// 256 threads of four packs, the same grid).
template <typename T>
static void run_today(Shape& s) {
    constexpr bool bf = sizeof(T) == 2;
    const int64_t threads = s.n / (16 / int64_t(sizeof(T))) / (bf ? kFixedChunks16 : (s.n == 4096 ? 4 : kFixedChunks));
    void (*k)(NormArgs) = nullptr;
    const bool ln = s.op == kLn;
    if (bf)
        k = threads == 128   ? (ln ? opk_ln_fwd_fixed_bf16_g128 : opk_rms_fwd_fixed_bf16_g128)
            : threads == 256 ? (ln ? opk_ln_fwd_fixed_bf16_g256 : opk_rms_fwd_fixed_bf16_g256)
                             : (ln ? opk_ln_fwd_fixed_bf16_g512 : opk_rms_fwd_fixed_bf16_g512);
    else if (s.n == 4096)
        k = ln ? opk_ln_fwd_f32_c1 : opk_rms_fwd_f32_c1;
    else
        k = threads == 256 ? (ln ? opk_ln_fwd_fixed_f32_g256 : opk_rms_fwd_fixed_f32_g256)
                           : (ln ? opk_ln_fwd_fixed_f32_g512 : opk_rms_fwd_fixed_f32_g512);
    const int64_t grid = std::min<int64_t>(s.rows, int64_t(sms) * std::max<int64_t>(1, 1024 / threads) * 256);
    const NormArgs a = args(s, 0);
    const float ms = median_ms([&] { k<<<grid, unsigned(threads)>>>(a); });
    char tag[64];
    std::snprintf(tag, sizeof tag, "today (B%lld, %lld blocks)", (long long)threads, (long long)grid);
    print_line<T>(s, tag, ms);
}

// One line per ring size S that fits; the grid is the blocks that fit at once.
template <int Op, typename T, int B, int C, int M>
static void run_stash(Shape& s, std::initializer_list<int> ring_sizes) {
    constexpr int P = 16 / sizeof(T);
    if (s.n / P != int64_t(B) * C) return;  // rows of exactly C packs a thread
    auto k = stash_variant<Op, T, B, C, M>;
    cudaFuncAttributes attr{};
    cudaFuncGetAttributes(&attr, k);
    for (int S : ring_sizes) {
        const size_t smem = size_t(S) * size_t(s.n) * s.esize;
        if (cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)) != cudaSuccess) {
            cudaGetLastError();
            continue;
        }
        int per_sm = 0;
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, B, smem);
        if (per_sm == 0) continue;
        const int64_t grid = std::min<int64_t>(s.rows, int64_t(sms) * per_sm);
        const NormArgs a = args(s, S);
        const float ms = median_ms([&] { k<<<grid, B, smem>>>(a); });
        char tag[80];
        std::snprintf(tag, sizeof tag, "stash B%d C%d M%d S%d %dreg%s %dblk/SM", B, C, M, S, attr.numRegs,
                      attr.localSizeBytes ? " SPILL" : "", per_sm);
        print_line<T>(s, tag, ms);
    }
}

// Two-byte rows: 512 / 1024 / 2048 packs; fp32 1024 / 2048 / 4096. layer_norm holds the
// bias's packs too and spilled at 64 registers with four packs a thread: fewer blocks.
template <int Op, typename T>
static void sweep(Shape& s) {
    if constexpr (Op == kLn) {
        run_stash<Op, T, 128, 4, 4>(s, {2, 3, 4});
        run_stash<Op, T, 256, 2, 4>(s, {2, 3, 4});
        run_stash<Op, T, 256, 4, 2>(s, {2, 3});
        run_stash<Op, T, 512, 2, 2>(s, {2, 3});
        run_stash<Op, T, 128, 8, 2>(s, {2, 3});
        run_stash<Op, T, 512, 4, 1>(s, {2, 3});
        run_stash<Op, T, 1024, 2, 1>(s, {2});
        run_stash<Op, T, 256, 8, 1>(s, {2});
        run_stash<Op, T, 512, 8, 1>(s, {2});
        run_stash<Op, T, 1024, 4, 1>(s, {2});
    } else {
        run_stash<Op, T, 128, 4, 8>(s, {2, 3, 4});
        run_stash<Op, T, 256, 2, 4>(s, {2, 3, 4});
        run_stash<Op, T, 64, 8, 16>(s, {2, 3});
        run_stash<Op, T, 256, 4, 4>(s, {2, 3, 4});
        run_stash<Op, T, 512, 2, 2>(s, {2, 3});
        run_stash<Op, T, 128, 8, 8>(s, {2, 3});
        run_stash<Op, T, 512, 4, 2>(s, {2, 3});
        run_stash<Op, T, 1024, 2, 1>(s, {2});
        run_stash<Op, T, 256, 8, 2>(s, {2});
        run_stash<Op, T, 512, 8, 1>(s, {2});
        run_stash<Op, T, 1024, 4, 1>(s, {2});
    }
}

template <typename T>
static void all_shapes(void* x, void* y, void* w, void* b, float* stats) {
    constexpr int64_t elems = int64_t(8192) * 8192 * 2;  // the largest shape, 32768x4096
    fill<T>(x, elems, 3.0f, 0.5f);
    fill<T>(w, 16384, 0.5f, 1.0f);
    fill<T>(b, 16384, 0.25f, 0.0f);
    for (int op : {kRms, kLn})
        for (int64_t n : {int64_t(4096), int64_t(8192), int64_t(16384)}) {
            Shape s{op, (n == 4096 ? elems : elems / 2) / n, n, sizeof(T), x, y, w, b, stats, stats + 32768};
            run_today<T>(s);
            if (op == kRms)
                sweep<kRms, T>(s);
            else
                sweep<kLn, T>(s);
        }
}

int main() {
    std::setvbuf(stdout, nullptr, _IONBF, 0);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    cudaDeviceProp prop{};
    cudaGetDeviceProperties(&prop, 0);
    std::printf("# %s, %d SMs\n", prop.name, sms);
    const int64_t elems = int64_t(32768) * 4096;
    void *x, *y, *w, *b;
    float* stats;
    cudaMalloc(&x, elems * 4);
    cudaMalloc(&y, elems * 4);
    cudaMalloc(&w, 16384 * 4);
    cudaMalloc(&b, 16384 * 4);
    cudaMalloc(&stats, 2 * 32768 * 4);
    all_shapes<opk_bf16>(x, y, w, b, stats);
    all_shapes<float>(x, y, w, b, stats);
    return 0;
}
