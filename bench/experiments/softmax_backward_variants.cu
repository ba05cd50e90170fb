// The softmax backward row kernel (dx = y * (dy - sum(dy * y))) under other launch shapes, at
// bench/gpu_compare.py's shapes, bf16 and f32. The question (2026-11-28, H200): the library
// caches two rows (dy, y) at two packs a thread (kRowConfigsBwd), so bf16 rows of 16384 and
// f32 rows of 8192 run as one 1024-thread block an SM and f32 rows of 16384 stream; it
// trailed Liger-Kernel there by 0.79-0.87x (bench/results/2026-11-28-h200/compare-all-h200.txt),
// as the fp32 forwards did before their eight-pack kernels. Lines:
//   today        the library's kernel and plan (config 1 or 2, one block per row block);
//   B.. C.. R..  the general body with B threads of C packs a thread, built for R resident
//                threads (R / B blocks an SM: 1024 = 64 registers);
//   exact-only   the exact-row body alone (softmax_backward_rows<..., true>);
//   fixed-B      the same with the group size a compile-time constant.
// Each line is checked against today's kernel on the first and last four rows. Not part of
// the build:
//
//   nvcc -std=c++17 -O3 -arch=sm_90 -Xptxas -v -o softmax_backward_variants \
//        bench/experiments/softmax_backward_variants.cu 2> ptxas.txt
//   ./softmax_backward_variants        # on the GPU machine
#include "../../vendors/gpu/softmax.cu"
#include "dense_rows.cuh"
#include "fill_pattern.cuh"
#include "median_time.cuh"

#include <cmath>
#include <vector>

using namespace opk;

template <typename T, int B, int C, int Res, int Body>  // Body: 0 general, 1 exact, 2 fixed-B exact
__global__ void __launch_bounds__(B, Res / B) variant(const SoftmaxArgs a) {
    __shared__ float smem[kReduceSlots];
    if constexpr (Body == 0)
        softmax_backward_rows<T, 0, C, false>(a, smem);
    else if constexpr (Body == 1)
        softmax_backward_rows<T, 0, C, true>(a, smem);
    else
        softmax_backward_rows<T, B, C, true>(a, smem);
}

static int sms;
constexpr int kAllWaves = 256;  // one block per row block, as the library launches it
static float to_float(float v) { return v; }
static float to_float(opk_bf16 v) { return __bfloat162float(v); }

struct Shape {
    const char* dt;
    int64_t rows, n;
    size_t esize;
    SoftmaxArgs a;
    double bytes;             // dy and y read, dx written
    std::vector<float> ref;  // first and last four rows of today's kernel
};

template <typename T>
static std::vector<float> edge_rows(const Shape& s) {
    std::vector<T> h(size_t(8 * s.n));
    const size_t row = size_t(s.n) * sizeof(T);
    cudaMemcpy(h.data(), s.a.out.data, 4 * row, cudaMemcpyDeviceToHost);
    cudaMemcpy(h.data() + 4 * s.n, static_cast<char*>(s.a.out.data) + (s.rows - 4) * row, 4 * row,
               cudaMemcpyDeviceToHost);
    std::vector<float> f(h.size());
    for (size_t i = 0; i < h.size(); ++i) f[i] = to_float(h[i]);
    return f;
}

template <typename T>
static std::vector<float> timed(Shape& s, const char* tag, void (*kernel)(SoftmaxArgs), unsigned block, int64_t grid,
                                int per_sm) {
    cudaMemset(s.a.out.data, 0, size_t(s.rows * s.n) * sizeof(T));
    const float ms = median_ms([&] { kernel<<<grid, block>>>(s.a); });
    std::vector<float> got = edge_rows<T>(s);
    double maxd = 0.0;
    for (size_t i = 0; i < got.size() && i < s.ref.size(); ++i)
        maxd = std::max(maxd, double(std::fabs(got[i] - s.ref[i])));
    std::printf("softmax_bwd %-5s %6lldx%-6lld %-36s %2d blk/SM %8.4f ms %7.0f GB/s  maxdiff %.2e\n", s.dt,
                (long long)s.rows, (long long)s.n, tag, per_sm, ms, s.bytes / ms / 1e6, maxd);
    return got;
}

// Today's plan: plan_rows with kRowConfigsBwd (two packs a thread, config 1, block rounded to
// warps, at least 64), or config 2 (streaming, 1024 threads) past 2048 packs.
template <typename T>
static void run_today(Shape& s, void (*c1)(SoftmaxArgs), void (*c2)(SoftmaxArgs)) {
    constexpr int P = 16 / sizeof(T);
    const int64_t packs = s.n / P, need = (packs + 1) / 2;
    const bool cached = need <= 1024;
    const unsigned block = cached ? unsigned(std::max<int64_t>(64, (need + 31) / 32 * 32)) : 1024u;
    const int64_t grid = std::min<int64_t>(s.rows, int64_t(sms) * std::max<int64_t>(1, 1024 / block) * kAllWaves);
    s.a.exact = 0;
    s.ref.clear();
    s.ref = timed<T>(s, cached ? "today (c1, host plan)" : "today (c2 streams, host plan)", cached ? c1 : c2, block,
                     grid, 1024 / int(block));
}

template <typename T, int B, int C, int Res, int Body>
static void run_variant(Shape& s) {
    constexpr int P = 16 / sizeof(T);
    const int64_t packs = s.n / P, holds = int64_t(B) * C;
    if (packs > holds || packs <= holds / 2) return;  // a shape the host would not pick for it
    if (Body != 0 && packs != holds) return;           // exact bodies need exact rows
    auto k = variant<T, B, C, Res, Body>;
    int per_sm = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, B, 0);
    cudaFuncAttributes attr{};
    cudaFuncGetAttributes(&attr, k);
    char tag[64];
    std::snprintf(tag, sizeof tag, "%sB%d C%d R%d %dreg%s", Body == 0 ? "" : Body == 1 ? "exact-only " : "fixed-B ",
                  B, C, Res, attr.numRegs, attr.localSizeBytes ? " SPILL" : "");
    const int64_t grid = std::min<int64_t>(s.rows, int64_t(sms) * std::max(per_sm, 1) * kAllWaves);
    timed<T>(s, tag, k, B, grid, per_sm);
}

// Every body at B threads of C packs.
#define OPK_VB(B, C, Res)                 \
    run_variant<T, B, C, Res, 0>(s);      \
    run_variant<T, B, C, Res, 1>(s);      \
    run_variant<T, B, C, Res, 2>(s);

template <typename T>
static void sweep(Shape& s) {
    OPK_VB(128, 4, 1024)   // bf16 4096 (512 packs)
    OPK_VB(256, 2, 1024)
    OPK_VB(256, 4, 1024)   // bf16 8192, f32 4096 (1024 packs)
    OPK_VB(512, 2, 1024)
    OPK_VB(512, 4, 1024)   // bf16 16384, f32 8192 (2048 packs)
    OPK_VB(512, 4, 512)
    OPK_VB(256, 8, 512)
    OPK_VB(1024, 2, 1024)
    OPK_VB(512, 8, 512)    // f32 16384 (4096 packs)
    OPK_VB(1024, 4, 1024)
}

template <typename T>
static void shapes(void* dy, void* y, void* dx) {
    const bool bf = sizeof(T) == 2;
    for (auto [rows, n] : {std::pair<int64_t, int64_t>{32768, 4096}, {8192, 8192}, {4096, 16384}}) {
        fill<T>(dy, rows * n, 1.0f, 0.0f);
        fill<T>(y, rows * n, 1.0f / float(n), 0.0f);
        Shape s{};
        s.dt = bf ? "bf16" : "f32";
        s.rows = rows;
        s.n = n;
        s.esize = sizeof(T);
        s.a.a = rows_view(dy, rows, n);
        s.a.b = rows_view(y, rows, n);
        s.a.out = rows_view(dx, rows, n);
        s.a.rows = rows;
        s.a.n = n;
        s.bytes = 3.0 * double(rows * n) * sizeof(T);
        run_today<T>(s, bf ? opk_softmax_bwd_bf16_c1 : opk_softmax_bwd_f32_c1,
                     bf ? opk_softmax_bwd_bf16_c2 : opk_softmax_bwd_f32_c2);
        sweep<T>(s);
    }
}

int main() {
    std::setvbuf(stdout, nullptr, _IONBF, 0);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    const int64_t elems = int64_t(32768) * 4096;  // every shape has at most 2^27 elements
    void *dy, *y, *dx;
    cudaMalloc(&dy, elems * 4);
    cudaMalloc(&y, elems * 4);
    cudaMalloc(&dx, elems * 4);
    shapes<opk_bf16>(dy, y, dx);
    shapes<float>(dy, y, dx);
    return 0;
}
