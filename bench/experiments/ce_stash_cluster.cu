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

// The first form, with synchronous loads: U packs a thread loaded before any is used (as
// stream_step), each stored to the stash as it arrives; the gradient pass reads the stash.
// Otherwise the library's ce_forward_stash (cross_entropy.cu), whose cp.async form this
// replaced; it shares its helpers (stash_rows.cuh).
template <typename T, int B, int K, int U>
OPK_DEV void ce_forward_stash_sync(const CrossEntropyArgs& a) {
    constexpr int P = Pack<T>::n;
    extern __shared__ uint4 stash[];
    __shared__ float smem[kReduceSlots];
    __shared__ float exchange[2][3];
    int parity = 0;
    const int rank = K > 1 ? int(cg::this_cluster().block_rank()) : 0;
    const StashPart part = stash_part<T, B, K>(a.V, rank);
    const Span& sp = part.span;
    const int64_t first_elem = part.first * P, V = a.V;
    const float eps = a.label_smoothing, smooth = eps / float(V), hit = 1.0f - eps;
    float scale = 1.0f;
    if (a.valid_rows) scale = *a.valid_rows ? 1.0f / float(*a.valid_rows) : 0.0f;
    const bool lead = rank == 0 && sp.lane == 0;
    for (int64_t r = blockIdx.x / K, step = gridDim.x / K; r < a.rows; r += step) {
        const int64_t t = load_index(a.target, r, a.target64);
        const RowKind kind = row_kind(t, a.ignore_index, V);
        T* gr = row_ptr<T>(a.grad, r) + first_elem;
        if (kind != kValid && !a.lse.data) {
            fill_row<T>(gr, sp, a.grad.vec, kind == kIgnored ? 0.0f : NAN);
            if (lead && a.loss.data) strided_set<float>(a.loss, r, kind == kIgnored ? 0.0f : NAN);
            continue;
        }
        const T* xr = row_ptr<const T>(a.logits, r) + first_elem;
        const int64_t tp = t - first_elem;
        const bool owns = kind == kValid && tp >= 0 && tp / P < sp.packs && (tp / P) % B == sp.lane;
        const float xt = owns ? to_f32(xr[tp]) : 0.0f;
        compiler_fence();
        float m = -INFINITY, sums[2] = {0.0f, 0.0f};
        for (int64_t base = sp.lane; base < sp.packs; base += int64_t(B) * U) {
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
                    if (eps > 0.0f) add_pack_sum<P>(sums[1], c, sp.n, v);
                }
            }
        }
        const float lse = stash_row_lse<B, K>(m, sums, smem, exchange, parity);
        if (lead && a.lse.data) strided_set<float>(a.lse, r, lse);
        if (a.loss.data && (kind == kValid ? owns : lead))
            strided_set<float>(a.loss, r,
                               kind == kValid ? target_loss(lse, xt, sums[1], hit, smooth)
                                              : (kind == kIgnored ? 0.0f : NAN));
        if (kind != kValid) {
            fill_row<T>(gr, sp, a.grad.vec, kind == kIgnored ? 0.0f : NAN);
            continue;
        }
        for (int64_t c = sp.lane; c < sp.packs; c += B) {
            float v[P];
            unpack<T, P>(stash[c], v);
            grad_pack<T, P>(v, lse, smooth, scale);
            store_pack<T, P, CacheHint::last_use>(gr, c, sp.n, a.grad.vec, v);
        }
        if (owns) gr[tp] = from_f32<T>((exp_minus<T>(xt, lse) - smooth) * scale - hit * scale);
    }
    if constexpr (K > 1) cg::this_cluster().sync();
}

// The library's body at other block sizes.
template <typename T, int B, int K>
__global__ void __cluster_dims__(K, 1, 1) __launch_bounds__(B, 1) ce_stash_async_kernel(const CrossEntropyArgs a) {
    ce_forward_stash<T, K, B>(a);
}
template <typename T, int B, int K, int U>
__global__ void __cluster_dims__(K, 1, 1) __launch_bounds__(B, 1) ce_stash_kernel(const CrossEntropyArgs a) {
    ce_forward_stash_sync<T, B, K, U>(a);
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
