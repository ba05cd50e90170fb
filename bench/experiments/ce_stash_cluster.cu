// The cross-entropy forward with dlogits reading each row once: the row is stashed in
// shared memory as it streams in (the statistics pass), and the gradient pass reads the
// stash instead of global memory. A row of V = 128256 is 250 KB in bf16 and 500 KB in
// fp32, more than one block's shared memory, so K blocks of a thread-block cluster (sm_90)
// share it: block k stashes its K-th of the row's packs, and the blocks exchange their
// partial (max, sum of exp, sum of x) through distributed shared memory. The library's
// kernel reads such rows twice, the second pass partly from L2 (0.73 of the copy
// bandwidth in bf16, 0.68 in fp32 at 8192 x 128256 on the H200).
//
// Every line's dlogits (rows 0-3 and the last four), loss and lse are checked against the
// library's kernel (opk_ce_fwd_<dtype>_c2). Not part of the build:
//
//   nvcc -std=c++17 -O3 -arch=sm_90 -Xptxas -v -o ce_stash_cluster \
//        bench/experiments/ce_stash_cluster.cu 2> ptxas.txt
//   ./ce_stash_cluster        # on the GPU machine
#include "../../vendors/gpu/cross_entropy.cu"
#include "fill_pattern.cuh"
#include "host_copy.cuh"
#include "median_time.cuh"

#include <cooperative_groups.h>

#include <cmath>
#include <cstring>
#include <vector>

namespace cg = cooperative_groups;
using namespace opk;

// Packs of a row per block of a K-block cluster (the last block may hold fewer).
OPK_DEV int64_t stash_chunk(int64_t packs, int K) { return (packs + K - 1) / K; }

// U: packs a thread loads before it uses any (as stream_step).
template <typename T, int B, int K, int U>
OPK_DEV void ce_forward_stash(const CrossEntropyArgs& a) {
    constexpr int P = Pack<T>::n;
    extern __shared__ uint4 stash[];
    __shared__ float smem[kReduceSlots];
    __shared__ float exchange[2][3];  // this block's (m, s, sx), alternating by row
    const int rank = K > 1 ? int(cg::this_cluster().block_rank()) : 0;
    const int lane = int(threadIdx.x);
    const int64_t V = a.V, packs = (V + P - 1) / P, chunk = stash_chunk(packs, K);
    const int64_t lo = min(packs, int64_t(rank) * chunk), hi = min(packs, lo + chunk);
    // This block's part of a row as a row of its own: n elements from element lo * P.
    const Span sp{V - lo * P > 0 ? V - lo * P : 0, hi - lo, lane, B};
    const float eps = a.label_smoothing, smooth = eps / float(V), hit = 1.0f - eps;
    float scale = 1.0f;
    if (a.valid_rows) scale = *a.valid_rows ? 1.0f / float(*a.valid_rows) : 0.0f;
    const int64_t first = blockIdx.x / K, step = gridDim.x / K;
    int parity = 0;
    for (int64_t r = first; r < a.rows; r += step) {
        const int64_t t = load_index(a.target, r, a.target64);
        const RowKind kind = row_kind(t, a.ignore_index, V);
        T* gr = row_ptr<T>(a.grad, r) + lo * P;
        if (kind != kValid && !a.lse.data) {
            fill_row<T>(gr, sp, a.grad.vec, kind == kIgnored ? 0.0f : NAN);
            if (rank == 0 && lane == 0 && a.loss.data) strided_set<float>(a.loss, r, kind == kIgnored ? 0.0f : NAN);
            continue;
        }
        const T* xr = row_ptr<const T>(a.logits, r) + lo * P;
        const int64_t tl = t - lo * P;  // the target's place in this block's part
        const bool owns = kind == kValid && tl >= 0 && tl < sp.n && (tl / P) < sp.packs && (tl / P) % B == lane;
        const float xt = owns ? to_f32(xr[tl]) : 0.0f;
        compiler_fence();
        float m = -INFINITY, sums[2] = {0.0f, 0.0f};
        for (int64_t base = lane; base < sp.packs; base += int64_t(B) * U) {
            uint4 raw[U];
#pragma unroll
            for (int u = 0; u < U; ++u) {
                const int64_t c = base + int64_t(u) * B;
                if (c < sp.packs) load_raw<T, P, CacheHint::last_use>(xr, c, sp.n, a.logits.vec, raw[u], -INFINITY);
            }
#pragma unroll
            for (int u = 0; u < U; ++u) {
                const int64_t c = base + int64_t(u) * B;
                if (c < sp.packs) {
                    stash[c] = raw[u];
                    float v[P];
                    unpack<T, P>(raw[u], v);
                    online_add<T, P>(m, sums[0], v);
                    if (eps > 0.0f)
#pragma unroll
                        for (int k = 0; k < P; ++k)
                            if (c * P + k < sp.n) sums[1] += v[k];
                }
            }
        }
        const float bm = group_max<B>(m, smem);
        sums[0] *= exp_shifted(m, bm);
        group_sum<B, 2>(sums, smem);
        // The cluster's row statistics: every block combines the K partials in rank order,
        // so all of them hold the same lse.
        float gm = bm, s = sums[0], sx = sums[1];
        if constexpr (K > 1) {
            cg::cluster_group cluster = cg::this_cluster();
            if (lane == 0) {
                exchange[parity][0] = bm;
                exchange[parity][1] = sums[0];
                exchange[parity][2] = sums[1];
            }
            cluster.sync();
            float pm[K], ps[K], px[K];
#pragma unroll
            for (int j = 0; j < K; ++j) {
                const float* e = cluster.map_shared_rank(&exchange[parity][0], j);
                pm[j] = e[0];
                ps[j] = e[1];
                px[j] = e[2];
            }
            gm = pm[0];
#pragma unroll
            for (int j = 1; j < K; ++j) gm = fmaxf(gm, pm[j]);
            s = 0.0f;
            sx = 0.0f;
#pragma unroll
            for (int j = 0; j < K; ++j) {
                s += ps[j] * exp_shifted(pm[j], gm);
                sx += px[j];
            }
            parity ^= 1;  // only rows that exchange flip the slots (a skipped row has no barrier)
        }
        const float lse = gm + logf(s);
        if (rank == 0 && lane == 0 && a.lse.data) strided_set<float>(a.lse, r, lse);
        if (a.loss.data && (kind == kValid ? owns : rank == 0 && lane == 0))
            strided_set<float>(a.loss, r,
                               kind == kValid ? lse - hit * xt - (eps > 0.0f ? smooth * sx : 0.0f)
                                              : (kind == kIgnored ? 0.0f : NAN));
        if (kind != kValid) {
            fill_row<T>(gr, sp, a.grad.vec, kind == kIgnored ? 0.0f : NAN);
            continue;
        }
        const float target_grad = (exp_minus<T>(xt, lse) - smooth) * scale - hit * scale;
        for (int64_t c = lane; c < sp.packs; c += B) {
            float v[P];
            unpack<T, P>(stash[c], v);
            grad_pack<T, P>(v, lse, smooth, scale);
            store_pack<T, P, CacheHint::last_use>(gr, c, sp.n, a.grad.vec, v);
        }
        if (owns) gr[tl] = from_f32<T>(target_grad);
    }
    // No block may leave while another can still read its exchange slots.
    if constexpr (K > 1) cg::this_cluster().sync();
}

// 16 bytes from global to shared memory without passing through registers (sm_80+).
OPK_DEV void copy16_async(uint4* dst, const void* src) {
    const unsigned d = unsigned(__cvta_generic_to_shared(dst));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(d), "l"(src) : "memory");
}
OPK_DEV void async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
OPK_DEV void async_wait_all() { asm volatile("cp.async.wait_all;\n" ::: "memory"); }

// Pack c of a block's part of a row into its stash slot: asynchronously when whole and
// aligned, else through registers (the row's last, partial pack; unaligned rows).
template <typename T>
OPK_DEV void stash_pack(uint4* slot, const T* xr, int64_t c, const Span& sp, bool vec) {
    constexpr int P = Pack<T>::n;
    if (vec && (c + 1) * P <= sp.n) {
        copy16_async(slot, xr + c * P);
    } else {
        uint4 raw;
        load_raw<T, P>(xr, c, sp.n, vec, raw, -INFINITY);
        *slot = raw;
    }
}

// The same forward with the row's loads issued asynchronously: every pack of a block's
// part at once, and the next row's pack c as soon as the gradient pass has read slot c,
// so the next row streams in while this one's gradient goes out.
template <typename T, int B, int K>
OPK_DEV void ce_forward_stash_async(const CrossEntropyArgs& a) {
    constexpr int P = Pack<T>::n;
    extern __shared__ uint4 stash[];
    __shared__ float smem[kReduceSlots];
    __shared__ float exchange[2][3];
    const int rank = K > 1 ? int(cg::this_cluster().block_rank()) : 0;
    const int lane = int(threadIdx.x);
    const int64_t V = a.V, packs = (V + P - 1) / P, chunk = stash_chunk(packs, K);
    const int64_t lo = min(packs, int64_t(rank) * chunk), hi = min(packs, lo + chunk);
    const Span sp{V - lo * P > 0 ? V - lo * P : 0, hi - lo, lane, B};
    const float eps = a.label_smoothing, smooth = eps / float(V), hit = 1.0f - eps;
    float scale = 1.0f;
    if (a.valid_rows) scale = *a.valid_rows ? 1.0f / float(*a.valid_rows) : 0.0f;
    const int64_t first = blockIdx.x / K, step = gridDim.x / K;
    if (first < a.rows) {
        const T* xr = row_ptr<const T>(a.logits, first) + lo * P;
        for (int64_t c = lane; c < sp.packs; c += B) stash_pack<T>(&stash[c], xr, c, sp, a.logits.vec);
        async_commit();
    }
    int parity = 0;
    for (int64_t r = first; r < a.rows; r += step) {
        const int64_t t = load_index(a.target, r, a.target64);
        const RowKind kind = row_kind(t, a.ignore_index, V);
        T* gr = row_ptr<T>(a.grad, r) + lo * P;
        const T* xr = row_ptr<const T>(a.logits, r) + lo * P;
        const bool has_next = r + step < a.rows;
        const T* xn = has_next ? row_ptr<const T>(a.logits, r + step) + lo * P : nullptr;
        const int64_t tl = t - lo * P;
        const bool owns = kind == kValid && tl >= 0 && tl / P < sp.packs && (tl / P) % B == lane;
        const float xt = owns ? to_f32(xr[tl]) : 0.0f;
        async_wait_all();  // this thread's slots hold row r
        float lse = 0.0f;
        if (kind == kValid || a.lse.data) {
            float m = -INFINITY, sums[2] = {0.0f, 0.0f};
            for (int64_t c = lane; c < sp.packs; c += B) {
                float v[P];
                unpack<T, P>(stash[c], v);
                online_add<T, P>(m, sums[0], v);
                if (eps > 0.0f)
#pragma unroll
                    for (int k = 0; k < P; ++k)
                        if (c * P + k < sp.n) sums[1] += v[k];
            }
            const float bm = group_max<B>(m, smem);
            sums[0] *= exp_shifted(m, bm);
            group_sum<B, 2>(sums, smem);
            float gm = bm, s = sums[0], sx = sums[1];
            if constexpr (K > 1) {
                cg::cluster_group cluster = cg::this_cluster();
                if (lane == 0) {
                    exchange[parity][0] = bm;
                    exchange[parity][1] = sums[0];
                    exchange[parity][2] = sums[1];
                }
                cluster.sync();
                float pm[K], ps[K], px[K];
#pragma unroll
                for (int j = 0; j < K; ++j) {
                    const float* e = cluster.map_shared_rank(&exchange[parity][0], j);
                    pm[j] = e[0];
                    ps[j] = e[1];
                    px[j] = e[2];
                }
                gm = pm[0];
#pragma unroll
                for (int j = 1; j < K; ++j) gm = fmaxf(gm, pm[j]);
                s = 0.0f;
                sx = 0.0f;
#pragma unroll
                for (int j = 0; j < K; ++j) {
                    s += ps[j] * exp_shifted(pm[j], gm);
                    sx += px[j];
                }
                parity ^= 1;
            }
            lse = gm + logf(s);
            if (rank == 0 && lane == 0 && a.lse.data) strided_set<float>(a.lse, r, lse);
            if (a.loss.data && kind == kValid && owns)
                strided_set<float>(a.loss, r, lse - hit * xt - (eps > 0.0f ? smooth * sx : 0.0f));
        }
        if (a.loss.data && kind != kValid && rank == 0 && lane == 0)
            strided_set<float>(a.loss, r, kind == kIgnored ? 0.0f : NAN);
        const float fill = kind == kIgnored ? 0.0f : NAN;
        for (int64_t c = lane; c < sp.packs; c += B) {
            float v[P];
            if (kind == kValid) {
                unpack<T, P>(stash[c], v);
                grad_pack<T, P>(v, lse, smooth, scale);
            } else {
#pragma unroll
                for (int k = 0; k < P; ++k) v[k] = fill;
            }
            if (xn) stash_pack<T>(&stash[c], xn, c, sp, a.logits.vec);
            store_pack<T, P, CacheHint::last_use>(gr, c, sp.n, a.grad.vec, v);
        }
        async_commit();
        if (owns) gr[tl] = from_f32<T>((exp_minus<T>(xt, lse) - smooth) * scale - hit * scale);
    }
    if constexpr (K > 1) cg::this_cluster().sync();
}

template <typename T, int B, int K>
__global__ void __cluster_dims__(K, 1, 1) __launch_bounds__(B, 1) ce_stash_async_kernel(const CrossEntropyArgs a) {
    ce_forward_stash_async<T, B, K>(a);
}

template <typename T, int B, int K, int U>
__global__ void __cluster_dims__(K, 1, 1) __launch_bounds__(B, 1) ce_stash_kernel(const CrossEntropyArgs a) {
    ce_forward_stash<T, B, K, U>(a);
}

static int sms;

struct Buffers {
    void *logits, *grad;
    int64_t* target;
    float *loss, *lse;
};

// vec: 16-byte packs only where every row starts 16-byte aligned (V = 50257 does not).
static CrossEntropyArgs args_for(const Buffers& b, int64_t rows, int64_t V, float eps, size_t es) {
    CrossEntropyArgs a{};
    a.logits.data = b.logits;
    a.logits.nd = 1;
    a.logits.size[0] = rows;
    a.logits.stride[0] = V;
    a.logits.vec = (V * int64_t(es)) % 16 == 0;
    a.grad = a.logits;
    a.grad.data = b.grad;
    a.target = {b.target, 1};
    a.lse = {b.lse, 1};
    a.loss = {b.loss, 1};
    a.rows = rows;
    a.V = V;
    a.ignore_index = -100;
    a.target64 = 1;
    a.label_smoothing = eps;
    return a;
}

static double max_diff(const std::vector<float>& a, const std::vector<float>& b) {
    double d = 0.0;
    for (size_t i = 0; i < a.size(); ++i) {
        if (std::isnan(a[i]) != std::isnan(b[i])) return INFINITY;
        if (!std::isnan(a[i])) d = std::max(d, double(std::fabs(a[i] - b[i])));
    }
    return d;
}

// What a line's outputs are checked on: rows 0-3 and the last four of dlogits, every
// loss and lse.
struct Outputs {
    std::vector<float> head, tail, loss, lse;
};

template <typename T>
static Outputs outputs(const Buffers& b, int64_t rows, int64_t V) {
    return {host_floats<T>(b.grad, 4 * V),
            host_floats<T>(static_cast<const T*>(b.grad) + (rows - 4) * V, 4 * V), host_floats<float>(b.loss, rows),
            host_floats<float>(b.lse, rows)};
}

template <typename T, class Launch>
static Outputs line(const char* dt, const char* label, Launch launch, const Buffers& b, int64_t rows, int64_t V,
                    const Outputs* ref) {
    cudaMemset(b.grad, 0xff, size_t(rows * V) * sizeof(T));
    cudaMemset(b.loss, 0, size_t(rows) * 4);
    cudaMemset(b.lse, 0, size_t(rows) * 4);
    const float ms = median_ms(launch);
    Outputs o = outputs<T>(b, rows, V);
    std::printf("%-5s %5lldx%-7lld %-40s %8.4f ms %7.0f GB/s", dt, (long long)rows, (long long)V, label, ms,
                2.0 * double(rows * V) * sizeof(T) / ms / 1e6);
    if (ref)
        std::printf("  maxdiff grad %.2e / %.2e loss %.2e lse %.2e", max_diff(o.head, ref->head),
                    max_diff(o.tail, ref->tail), max_diff(o.loss, ref->loss), max_diff(o.lse, ref->lse));
    std::printf("\n");
    return o;
}

template <typename T, int B, int K, class Kernel>
static void run_stash(const char* dt, const char* name, Kernel k, const Buffers& b, int64_t rows, int64_t V,
                      float eps, const Outputs& ref) {
    constexpr int P = Pack<T>::n;
    const int64_t chunk = (((V + P - 1) / P) + K - 1) / K;
    const size_t smem = size_t(chunk) * 16;
    if (smem > 227 * 1024) return;
    cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
    cudaFuncAttributes attr{};
    cudaFuncGetAttributes(&attr, k);
    int per_sm = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, B, smem);
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = dim3(unsigned(rows * K));
    cfg.blockDim = dim3(B);
    cfg.dynamicSmemBytes = smem;
    int clusters = 0;
    cudaOccupancyMaxActiveClusters(&clusters, k, &cfg);
    const CrossEntropyArgs a = args_for(b, rows, V, eps, sizeof(T));
    for (int waves : {0, 1, 2}) {  // 0: a cluster a row
        const int64_t grid = waves ? std::min<int64_t>(rows, int64_t(clusters) * waves) * K : rows * K;
        if (grid == 0) continue;
        char label[96];
        std::snprintf(label, sizeof label, "%s B%d K%d %dreg%s %dKB %d/SM %dcl %s", name, B, K, attr.numRegs,
                      attr.localSizeBytes ? " SPILL" : "", int(smem / 1024), per_sm, clusters,
                      waves == 0 ? "all" : waves == 1 ? "1w" : "2w");
        line<T>(dt, label, [&] { k<<<unsigned(grid), B, smem>>>(a); }, b, rows, V, &ref);
    }
}

template <typename T, int B, int K, int U>
static void stash_variant(const char* dt, const Buffers& b, int64_t rows, int64_t V, float eps, const Outputs& ref) {
    char name[32];
    std::snprintf(name, sizeof name, "stash U%d", U);
    run_stash<T, B, K>(dt, name, ce_stash_kernel<T, B, K, U>, b, rows, V, eps, ref);
}

template <typename T, int B, int K>
static void async_variant(const char* dt, const Buffers& b, int64_t rows, int64_t V, float eps, const Outputs& ref) {
    run_stash<T, B, K>(dt, "async", ce_stash_async_kernel<T, B, K>, b, rows, V, eps, ref);
}

template <typename T>
static void shape(const char* dt, void (*today)(CrossEntropyArgs), void (*fixed)(CrossEntropyArgs), const Buffers& b,
                  int64_t rows, int64_t V, float eps) {
    fill<T>(b.logits, rows * V, 4.0f, 0.0f);
    const CrossEntropyArgs a = args_for(b, rows, V, eps, sizeof(T));
    char label[64];
    std::snprintf(label, sizeof label, "today c2 B1024 8w eps %.1f", eps);
    const int64_t grid = std::min<int64_t>(rows, int64_t(sms) * 8);
    const Outputs ref = line<T>(dt, label, [&] { today<<<unsigned(grid), 1024>>>(a); }, b, rows, V, nullptr);
    if (fixed) {
        const int64_t g4 = std::min<int64_t>(rows, int64_t(sms) * 4 * 8);
        line<T>(dt, "fixed G256 (V 32000's kernel)", [&] { fixed<<<unsigned(g4), 256>>>(a); }, b, rows, V, &ref);
    }
    stash_variant<T, 256, 1, 4>(dt, b, rows, V, eps, ref);
    stash_variant<T, 256, 2, 4>(dt, b, rows, V, eps, ref);
    stash_variant<T, 256, 4, 4>(dt, b, rows, V, eps, ref);
    stash_variant<T, 256, 8, 4>(dt, b, rows, V, eps, ref);
    async_variant<T, 256, 1>(dt, b, rows, V, eps, ref);
    async_variant<T, 512, 1>(dt, b, rows, V, eps, ref);
    async_variant<T, 128, 2>(dt, b, rows, V, eps, ref);
    async_variant<T, 256, 2>(dt, b, rows, V, eps, ref);
    async_variant<T, 512, 2>(dt, b, rows, V, eps, ref);
    async_variant<T, 128, 4>(dt, b, rows, V, eps, ref);
    async_variant<T, 256, 4>(dt, b, rows, V, eps, ref);
    async_variant<T, 512, 4>(dt, b, rows, V, eps, ref);
    async_variant<T, 128, 8>(dt, b, rows, V, eps, ref);
    async_variant<T, 256, 8>(dt, b, rows, V, eps, ref);
}

__global__ void fill_targets(int64_t* t, int64_t rows, int64_t V) {
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < rows; i += int64_t(gridDim.x) * blockDim.x)
        t[i] = i % 97 == 0 ? -100 : i % 89 == 1 ? V + 5 : (i * 7919) % V;  // ignored and bad rows
}

int main() {
    std::setvbuf(stdout, nullptr, _IONBF, 0);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    const int64_t rows = 8192, Vmax = 128256;
    Buffers b{};
    cudaMalloc(&b.logits, size_t(rows * Vmax) * 4);
    cudaMalloc(&b.grad, size_t(rows * Vmax) * 4);
    cudaMalloc(&b.target, size_t(rows) * 8);
    cudaMalloc(&b.loss, size_t(rows) * 4);
    cudaMalloc(&b.lse, size_t(rows) * 4);
    for (int64_t V : {Vmax, int64_t(32000), int64_t(50257)}) {
        fill_targets<<<64, 256>>>(b.target, rows, V);
        shape<opk_bf16>("bf16", opk_ce_fwd_bf16_c2, V == 32000 ? opk_ce_fwd_grad_bf16 : nullptr, b, rows, V, 0.0f);
        shape<float>("f32", opk_ce_fwd_f32_c2, nullptr, b, rows, V, 0.0f);
    }
    // Label smoothing: one shape, checked against the library's kernel.
    fill_targets<<<64, 256>>>(b.target, rows, Vmax);
    shape<opk_bf16>("bf16", opk_ce_fwd_bf16_c2, nullptr, b, rows, Vmax, 0.1f);
    return 0;
}
