// The rms_norm / layer_norm backward kernels (bf16, f32) under other launch shapes: threads
// per row (B), packs per thread (C), the resident threads the launch bounds ask for (Res:
// 1024 = 64 registers as in the library, 768 = 80, 512 = 128), with or without the
// next-row prefetch (pf), and with the weight read from global memory at each use or (sw)
// from a copy of the weight row in dynamic shared memory (kNormBwdSharedWeight). First
// question (2026-11-27): the library's bf16 backwards held one pack per thread (two
// spilled at 64 registers) and reached 0.40-0.57 of the copy bandwidth, the 16384-element
// rows streamed; would more packs per thread at fewer resident threads (more registers)
// keep more bytes in flight, and cache the long rows? Second (2026-11-28): nvcc kept the
// weight packs' fp32 values live across a row's two passes, and the four-pack shapes
// spilled at 128 registers; does reading the weight from shared memory help? One wave of
// blocks per line. Each line times the row kernel plus the column sums that finish
// dweight / dbias, as the library launches them, and is checked against the library's
// plan ("today": dx on the first and last four rows, dweight and dbias whole). Not part of
// the build:
//
//   nvcc -std=c++17 -O3 -arch=sm_90 -Xptxas -v -o norm_backward_variants \
//        bench/experiments/norm_backward_variants.cu 2> ptxas.txt
//   ./norm_backward_variants        # on the GPU machine
//
// Against a norms.cu from before the shared weight row, add -DOPK_NO_SHARED_WEIGHT (the
// sw lines are left out). Its "today" line times the library's kernels of the first
// table (the rows of 1025 to 2048 packs show the streamed config 2, not the *_bwd_long
// kernels the library takes for 2-byte types there). -DOPK_F32_EXACT_SWEEP: only the fp32
// question of 2026-11-28 (H200: layer_norm's fp32 backward, shared-memory sums in the
// library, trailed Liger-Kernel 0.69x at 8192x8192): exact-body shapes with register sums.
#include "../../vendors/gpu/norms.cu"
#include "dense_rows.cuh"
#include "fill_pattern.cuh"
#include "median_time.cuh"

#include <cmath>
#include <cstring>
#include <vector>

using namespace opk;

enum { kRms, kLn };

#ifndef OPK_NO_SHARED_WEIGHT
#define OPK_SW_ARG , Sw
#else  // built against a norms.cu from before kNormBwdSharedWeight (2026-11-28)
#define OPK_SW_ARG
#endif

// Ex: the exact-row body (kExactPath; the library took it for fp32 only before 2026-11-28,
// then for rms_norm's 2-byte four-pack kernel too): no bounds
// tests, plain 16-byte accesses. Every shape here is exact for its variant.
template <int Op, typename T, int B, int C, int Res, bool Pf, bool Sw, bool Ex>
__global__ void __launch_bounds__(B, Res / B) variant(const NormArgs a) {
    __shared__ float smem[kReduceSlots];
    if constexpr (Op == kRms)
        opk::rms_backward_rows<T, 0, C, Ex, Pf OPK_SW_ARG>(a, smem);
    else
        opk::ln_backward_rows<T, 0, C, Ex, Pf OPK_SW_ARG>(a, smem);
}

static int sms;
static float to_float(float v) { return v; }
static float to_float(opk_bf16 v) { return __bfloat162float(v); }

struct Buffers {
    void *x, *dy, *dx, *w, *dw, *db;
    float *stats, *partial;
    size_t partial_bytes;
};

struct Shape {
    int op;
    const char* dt;
    int64_t rows, n;
    size_t esize;
    double bytes;  // x, dy read, dx written
    Buffers b;
    std::vector<float> ref;  // dx edge rows, then dweight, then dbias (layer_norm)
};

template <typename T>
static void append(std::vector<float>& out, const void* dev, size_t count) {
    std::vector<T> h(count);
    cudaMemcpy(h.data(), dev, count * sizeof(T), cudaMemcpyDeviceToHost);
    for (T v : h) out.push_back(to_float(v));
}

template <typename T>
static std::vector<float> results(const Shape& s) {
    std::vector<float> f;
    const size_t row = size_t(s.n);
    append<T>(f, s.b.dx, 4 * row);
    append<T>(f, static_cast<const T*>(s.b.dx) + (s.rows - 4) * row, 4 * row);
    append<T>(f, s.b.dw, row);
    if (s.op == kLn) append<T>(f, s.b.db, row);
    return f;
}

static NormArgs args(const Shape& s, int64_t groups, bool shared_sums) {
    NormArgs a{};
    a.x = rows_view(s.b.x, s.rows, s.n);
    a.dy = rows_view(s.b.dy, s.rows, s.n);
    a.dx = rows_view(s.b.dx, s.rows, s.n);
    a.weight = s.b.w;
    a.weight_vec = 1;
    a.rstd = {s.b.stats, 1};
    a.mean = {s.op == kLn ? s.b.stats + s.rows : nullptr, 1};
    a.partial = s.b.partial;
    a.rows = s.rows;
    a.n = s.n;
    a.want_dweight = 1;
    a.want_dbias = s.op == kLn;
    a.shared_sums = shared_sums;
    if (size_t(groups) * size_t(s.n) * 4 * (s.op == kLn ? 2 : 1) > s.b.partial_bytes) {
        std::fprintf(stderr, "partial buffer too small\n");
        std::exit(1);
    }
    return a;
}

// The row kernel and the column sums, as the library's host launches them.
template <class K>
static float time_call(const Shape& s, K kernel, int64_t grid, unsigned block, size_t smem, bool shared_sums) {
    const NormArgs a = args(s, grid, shared_sums);
    auto column_sum = sizeof(float) == s.esize ? opk_column_sum_f32 : opk_column_sum_bf16;
    const unsigned col_grid = unsigned((s.n + kColumnSumColumns - 1) / kColumnSumColumns);
    const ColumnSumArgs cw{a.partial, grid, s.n, s.b.dw};
    const ColumnSumArgs cb{a.partial + grid * s.n, grid, s.n, s.b.db};
    cudaMemset(s.b.dx, 0, size_t(s.rows * s.n) * s.esize);
    return median_ms([&] {
        kernel<<<grid, block, smem>>>(a);
        column_sum<<<col_grid, kColumnSumThreads>>>(cw);
        if (s.op == kLn) column_sum<<<col_grid, kColumnSumThreads>>>(cb);
    });
}

static const char* op_name(int op) { return op == kRms ? "rms_bwd" : "ln_bwd"; }

template <typename T>
static void print_line(const Shape& s, const char* tag, float ms, bool check) {
    double maxd = 0.0;
    if (check) {
        const std::vector<float> got = results<T>(s);
        for (size_t i = 0; i < got.size(); ++i)
            maxd = std::max(maxd, double(std::fabs(got[i] - s.ref[i])) / (1.0 + std::fabs(s.ref[i])));
    }
    std::printf("%-7s %-4s %6lldx%-6lld %-36s %8.4f ms %7.0f GB/s", op_name(s.op), s.dt, (long long)s.rows,
                (long long)s.n, tag, ms, s.bytes / ms / 1e6);
    if (check) std::printf("  max rel diff %.2e", maxd);
    std::printf("\n");
}

// Sw: the weight row in dynamic shared memory (kNormBwdSharedWeight). One wave of blocks
// (two were slower in every line of the first runs).
template <int Op, typename T, int B, int C, int Res, bool Pf, bool Sw, bool Ex = false>
static void run_variant(Shape& s) {
    auto k = variant<Op, T, B, C, Res, Pf, Sw, Ex>;
    const size_t smem = Sw ? size_t(s.n) * s.esize : 0;
    int per_sm = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, B, smem);
    cudaFuncAttributes attr{};
    cudaFuncGetAttributes(&attr, k);
    char tag[96];
    std::snprintf(tag, sizeof tag, "B%d C%d R%d%s%s%s %dreg%s %dblk/SM", B, C, Res, Pf ? " pf" : "", Sw ? " sw" : "",
                  Ex ? " ex" : "", attr.numRegs, attr.localSizeBytes ? " SPILL" : "", per_sm);
    const int64_t grid = std::min<int64_t>(s.rows, int64_t(sms) * per_sm);
    const float ms = time_call(s, k, grid, B, smem, false);
    print_line<T>(s, tag, ms, true);
}

// The library's plan (vendors/gpu/host/ops_norms.cpp, plan_rows): cached rows take
// config 1 of the op's table (kRowConfigsNormBwd; layer_norm in 2-byte types
// kRowConfigsLnBwd16 since 2026-11-27), register sums, one wave; longer rows stream
// (config 2, 1024 threads, sums in shared memory when they fit).
template <typename T>
static void run_today(Shape& s) {
    constexpr int P = 16 / sizeof(T);
    const int64_t packs = s.n / P;
    const bool bf = sizeof(T) == 2;
    const RowConfig(&cfgs)[3] = s.op == kLn && bf ? kRowConfigsLnBwd16 : kRowConfigsNormBwd;
    const int chunks = chunks_for(cfgs[1], int(sizeof(T)));
    const bool cached = (packs + chunks - 1) / chunks <= max_block(cfgs[1]);
    const int resident = cfgs[1].resident ? cfgs[1].resident : 1024;
    unsigned block;
    size_t smem = 0;
    void (*k)(NormArgs);
    if (cached) {
        block = unsigned(std::max<int64_t>(64, ((packs + chunks - 1) / chunks + 31) / 32 * 32));
        k = s.op == kRms ? (bf ? opk_rms_bwd_bf16_c1 : opk_rms_bwd_f32_c1) : (bf ? opk_ln_bwd_bf16_c1 : opk_ln_bwd_f32_c1);
    } else {
        block = 1024;
        k = s.op == kRms ? (bf ? opk_rms_bwd_bf16_c2 : opk_rms_bwd_f32_c2) : (bf ? opk_ln_bwd_bf16_c2 : opk_ln_bwd_f32_c2);
    }
    // Register sums for cached rms_norm rows and cached 2-byte layer_norm rows; shared
    // memory for the others where a block may have it.
    if (!cached || (s.op == kLn && !bf)) smem = size_t(packs * P) * 4 * (s.op == kLn ? 2 : 1);
    if (smem > 227 * 1024) smem = 0;
    const bool shared_sums = smem > 0;
#ifndef OPK_NO_SHARED_WEIGHT
    if (cached && chunks >= kNormBwdSharedWeightPacks) smem += size_t(packs) * 16;  // the weight row
#endif
    if (smem) cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
    const int64_t per_sm = std::max<int64_t>(1, smem ? std::min<int64_t>(1024 / block, 228 * 1024 / int64_t(smem + 1024))
                                                      : (cached ? resident : 1024) / block);
    const int64_t grid = std::min<int64_t>(s.rows, int64_t(sms) * per_sm);
    const float ms = time_call(s, k, grid, block, smem, shared_sums);
    s.ref = results<T>(s);
    char tag[96];
    std::snprintf(tag, sizeof tag, "today (%s, B%u, 1w%s)", cached ? "c1" : "c2 streamed", block,
                  shared_sums ? ", shared sums" : "");
    print_line<T>(s, tag, ms, false);
}

#define OPK_V(B, C, Res, Pf) run_variant<Op, T, B, C, Res, Pf, false>(s);
#ifndef OPK_NO_SHARED_WEIGHT
#define OPK_VS(B, C, Res, Pf) run_variant<Op, T, B, C, Res, Pf, true>(s);
#else
#define OPK_VS(B, C, Res, Pf)
#endif

// Each line with the weight read from global memory at each use, then (sw) from shared.
#define OPK_V2(B, C, Res, Pf) OPK_V(B, C, Res, Pf) OPK_VS(B, C, Res, Pf)
// The exact-row body (2026-11-28), weight from global (0) or shared memory (1).
#define OPK_VE(B, C, Res, Pf, Sw) run_variant<Op, T, B, C, Res, Pf, Sw, true>(s);

template <int Op, typename T>
static void sweep(Shape& s) {
    constexpr int P = 16 / sizeof(T);
    const int64_t packs = s.n / P;
    if constexpr (sizeof(T) == 2) {
#if defined(OPK_F32_EXACT_SWEEP)
        return;  // the fp32 question alone
#elif defined(OPK_EXACT_SWEEP)  // only the library's shapes, general body then exact (2026-11-28)
        if (packs == 512) {  // bf16 4096
            OPK_V(512, 1, 1024, true) OPK_VE(512, 1, 1024, true, false)
            OPK_V(256, 2, 512, true) OPK_VE(256, 2, 512, true, false) OPK_VE(256, 2, 512, true, true)
            OPK_VE(256, 2, 512, false, false) OPK_VE(256, 2, 512, false, true)
            OPK_VS(128, 4, 512, false) OPK_VE(128, 4, 512, false, true)
        } else if (packs == 1024) {  // bf16 8192
            OPK_V(1024, 1, 1024, true) OPK_VE(1024, 1, 1024, true, false)
            OPK_V(512, 2, 512, true) OPK_VE(512, 2, 512, true, false) OPK_VE(512, 2, 512, true, true)
            OPK_VE(512, 2, 512, false, false) OPK_VE(512, 2, 512, false, true)
            OPK_VS(256, 4, 512, false) OPK_VE(256, 4, 512, false, true)
        } else if (packs == 2048) {  // bf16 16384
            OPK_VS(512, 4, 512, false) OPK_VE(512, 4, 512, false, true)
        }
#else
        if (packs == 512) {  // bf16 4096
            OPK_V2(512, 1, 1024, true) OPK_V2(256, 2, 512, true) OPK_V2(256, 2, 512, false)
            OPK_V2(256, 2, 1024, false) OPK_V2(128, 4, 512, false) OPK_V2(128, 4, 512, true)
        } else if (packs == 1024) {  // bf16 8192
            OPK_V2(1024, 1, 1024, true) OPK_V2(512, 2, 512, true) OPK_V2(512, 2, 512, false)
            OPK_V2(512, 2, 1024, false) OPK_V2(256, 4, 512, false) OPK_V2(256, 4, 512, true)
        } else if (packs == 2048) {  // bf16 16384
            OPK_V2(1024, 2, 1024, false) OPK_V2(1024, 2, 1024, true)
            OPK_V2(512, 4, 512, false) OPK_V2(512, 4, 512, true)
        }
#endif
    } else {
#ifdef OPK_EXACT_SWEEP
        return;  // the library takes the exact body for fp32 already
#endif
#ifdef OPK_F32_EXACT_SWEEP  // layer_norm's fp32 backward with register sums (2026-11-28, H200)
        if (packs == 1024) {  // f32 4096
            OPK_VE(512, 2, 1024, false, false) OPK_VE(512, 2, 512, false, false)
            OPK_VE(256, 4, 512, false, false) OPK_VE(256, 4, 512, false, true)
        } else if (packs == 2048) {  // f32 8192
            OPK_VE(1024, 2, 1024, false, false) OPK_VE(512, 4, 512, false, false)
            OPK_VE(512, 4, 512, false, true) OPK_VE(256, 8, 256, false, true)
        }
        return;
#endif
        if (packs == 1024) {  // f32 4096
            OPK_V2(512, 2, 1024, false) OPK_V2(512, 2, 1024, true)
        } else if (packs == 2048) {  // f32 8192
            OPK_V2(1024, 2, 1024, false)
        }
    }
}

template <typename T>
static void all_shapes(const Buffers& b, int64_t elems) {
    fill<T>(b.x, elems, 3.0f, 0.0f);
    fill<T>(b.dy, elems, 1.0f, 0.1f);
    fill<T>(b.w, 1 << 14, 0.5f, 1.0f);
    fill<float>(b.stats, 2 * 32768, 0.2f, 0.9f);  // rstd then mean: plausible values
    for (int op : {kRms, kLn})
        for (int64_t n : {int64_t(4096), int64_t(8192), int64_t(16384)}) {
            Shape s{};
            s.op = op;
            s.dt = sizeof(T) == 2 ? "bf16" : "f32";
            s.rows = elems / n;
            s.n = n;
            s.esize = sizeof(T);
            s.bytes = 3.0 * double(elems) * sizeof(T);
            s.b = b;
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
    const int64_t elems = int64_t(32768) * 4096;  // every shape has 2^27 elements
    Buffers b{};
    b.partial_bytes = size_t(256) << 20;
    cudaMalloc(&b.x, elems * 4);
    cudaMalloc(&b.dy, elems * 4);
    cudaMalloc(&b.dx, elems * 4);
    cudaMalloc(&b.w, (1 << 14) * 4);
    cudaMalloc(&b.dw, (1 << 14) * 4);
    cudaMalloc(&b.db, (1 << 14) * 4);
    cudaMalloc(&b.stats, 2 * 32768 * 4);
    cudaMalloc(&b.partial, b.partial_bytes);
    all_shapes<opk_bf16>(b, elems);
    all_shapes<float>(b, elems);
    return 0;
}
