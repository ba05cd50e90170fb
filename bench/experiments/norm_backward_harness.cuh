// The harness of the norm-backward experiments in this folder (not part of the build):
// the buffers and shapes (every shape 2^27 elements), the library's reference plan
// ("today"), and a timed call of a row kernel plus the column sums that finish dweight /
// dbias, as the library's host launches them. Include vendors/gpu/norms.cu first.
#pragma once

#include "dense_rows.cuh"
#include "fill_pattern.cuh"
#include "median_time.cuh"

#include <cmath>
#include <cstring>
#include <vector>

using namespace opk;

enum { kRms, kLn };

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

// stash_slots: the rows a stash kernel's block holds (norm_backward_stash.cu).
static NormArgs args(const Shape& s, int64_t groups, bool shared_sums, int stash_slots = 0) {
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
    a.stash_slots = stash_slots;
    if (size_t(groups) * size_t(s.n) * 4 * (s.op == kLn ? 2 : 1) > s.b.partial_bytes) {
        std::fprintf(stderr, "partial buffer too small\n");
        std::exit(1);
    }
    return a;
}

// The row kernel and the column sums, as the library's host launches them.
template <class K>
// groups: the partial rows the kernel writes (its blocks unless a cluster of blocks shares one).
static float time_call(const Shape& s, K kernel, int64_t grid, unsigned block, size_t smem, bool shared_sums,
                       int stash_slots = 0, int64_t groups = -1) {
    if (groups < 0) groups = grid;
    const NormArgs a = args(s, groups, shared_sums, stash_slots);
    auto column_sum = sizeof(float) == s.esize ? opk_column_sum_f32 : opk_column_sum_bf16;
    const unsigned col_grid = unsigned((s.n + kColumnSumColumns - 1) / kColumnSumColumns);
    // One launch for dweight and dbias, a grid row each (plain here: the library's
    // dependent launch is the driver API's, launch_dependent).
    const ColumnSumArgs c{a.partial, groups, s.n, {s.b.dw, s.op == kLn ? s.b.db : nullptr}};
    cudaMemset(s.b.dx, 0, size_t(s.rows * s.n) * s.esize);
    return median_ms([&] {
        kernel<<<grid, block, smem>>>(a);
        column_sum<<<dim3(col_grid, s.op == kLn ? 2 : 1), kColumnSumThreads>>>(c);
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

// The config tables' plan (vendors/gpu/host/ops_norms.cpp, plan_rows), as the library
// took it before its special kernels (the 2-byte exact and long backwards, fp32 register
// sums, 2026-11-28, and the stash kernels, 2026-11-29): a reference for results, and a
// baseline only for the shapes it still serves: cached rows take
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

// Every buffer at the largest size any shape needs (2^27 elements of fp32).
static Buffers alloc_buffers(int64_t elems) {
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
    return b;
}

// The inputs in T: x, dy and the weight as deterministic patterns, rstd then mean plausible.
template <typename T>
static void fill_inputs(const Buffers& b, int64_t elems) {
    fill<T>(b.x, elems, 3.0f, 0.0f);
    fill<T>(b.dy, elems, 1.0f, 0.1f);
    fill<T>(b.w, 1 << 14, 0.5f, 1.0f);
    fill<float>(b.stats, 2 * 32768, 0.2f, 0.9f);
}

// Every op and width (4096, 8192, 16384; fp32 16384 left out where skip_f32_16384) at
// `elems` elements in T: the inputs filled, the reference plan timed (run_today), then
// sweep(op, shape) for the experiment's own lines.
template <typename T, class Sweep>
static void all_shapes(const Buffers& b, int64_t elems, bool skip_f32_16384, Sweep sweep);

// The experiment's main: the device, the buffers (2^27 elements), then run(b, elems).
template <class Run>
static int experiment_main(Run run) {
    std::setvbuf(stdout, nullptr, _IONBF, 0);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    cudaDeviceProp prop{};
    cudaGetDeviceProperties(&prop, 0);
    std::printf("# %s, %d SMs\n", prop.name, sms);
    const int64_t elems = int64_t(32768) * 4096;  // every shape has 2^27 elements
    run(alloc_buffers(elems), elems);
    return 0;
}

// Shape op x [rows, n] of `elems` elements in T over the buffers.
template <typename T>
static Shape make_shape(int op, const Buffers& b, int64_t elems, int64_t n) {
    Shape s{};
    s.op = op;
    s.dt = sizeof(T) == 2 ? "bf16" : "f32";
    s.rows = elems / n;
    s.n = n;
    s.esize = sizeof(T);
    s.bytes = 3.0 * double(elems) * sizeof(T);
    s.b = b;
    return s;
}

template <typename T, class Sweep>
static void all_shapes(const Buffers& b, int64_t elems, bool skip_f32_16384, Sweep sweep) {
    fill_inputs<T>(b, elems);
    for (int op : {kRms, kLn})
        for (int64_t n : {int64_t(4096), int64_t(8192), int64_t(16384)}) {
            if (skip_f32_16384 && sizeof(T) == 4 && n == 16384) continue;
            Shape s = make_shape<T>(op, b, elems, n);
            run_today<T>(s);
            sweep(op, s);
        }
}
