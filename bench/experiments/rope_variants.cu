// The rope kernel with other numbers of heads in flight a thread and other register
// budgets. Nsight Compute on the H200 (bench/results/2026-11-29-s10/r2): opk_rope_bf16 at
// 4x4096x32x128 runs 127 registers, 25 % theoretical occupancy (four 128-thread blocks an
// SM, eight 16-byte loads in flight a thread), 80.6 % of DRAM peak, 65.5 us; Inductor's
// fused rope 29 registers, 100 % occupancy, 83.1 %, 63.3 us. Variants: kHeads 1, 2, 4 and
// 8 under launch bounds for 512-2048 resident threads, blocks as the host makes them
// (run_rope's geometry with that kHeads), a dense kernel of a pack pair a thread and
// Inductor's half split, each checked against the library's kernel
// (bench/results/2026-11-29-s10/r3/rope.txt); since, the half split with Inductor's L2
// hints too ("half+keep": not yet run). Not part of the build:
//
//   nvcc -std=c++17 -O3 -arch=sm_90 -Xptxas -v -o rope_variants \
//        bench/experiments/rope_variants.cu 2> ptxas.txt
//   ./rope_variants        # on the GPU machine
#include "../../vendors/gpu/rope.cu"
#include "fill_pattern.cuh"
#include "host_copy.cuh"
#include "median_time.cuh"

#include <algorithm>
#include <cmath>
#include <vector>

using namespace opk;

template <typename T, int Heads, int Res>
__global__ void __launch_bounds__(256, Res / 256) rope_variant(const RopeArgs a) {
    if (a.backward)
        rope<T, true, Heads>(a, blockIdx.x, gridDim.x);
    else
        rope<T, false, Heads>(a, blockIdx.x, gridDim.x);
}

// Dense rows only (x and y [B,T,H,D] contiguous, cos/sin [T,D], D/2 whole packs): one
// thread a pair of packs (pack c of a head's first half and of its second), as Inductor's
// kernel; 32-bit index arithmetic (the caller checks the sizes fit), U pairs a thread.
template <typename T, bool BACKWARD, int U>
OPK_DEV void rope_dense(const RopeArgs& a) {
    constexpr int P = Pack<T>::n;
    const uint32_t half = uint32_t(a.D / 2), packs = half / P, H = uint32_t(a.H), T_ = uint32_t(a.T);
    const uint32_t pairs = uint32_t(a.B * a.T * a.H) * packs;
    const uint32_t stride = gridDim.x * blockDim.x * U;
    for (uint32_t base = blockIdx.x * blockDim.x * U + threadIdx.x; base < pairs; base += stride) {
        uint4 xl[U], xh[U], cl[U], ch[U], sl[U], sh[U];
        uint32_t off[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const uint32_t i = base + u * blockDim.x;
            if (i >= pairs) continue;
            const uint32_t c = i % packs, head_row = i / packs, t = (head_row / H) % T_;
            off[u] = head_row * uint32_t(a.D) + c * P;
            const uint32_t co = t * uint32_t(a.D) + c * P;
            xl[u] = *reinterpret_cast<const uint4*>(static_cast<const T*>(a.x) + off[u]);
            xh[u] = *reinterpret_cast<const uint4*>(static_cast<const T*>(a.x) + off[u] + half);
            cl[u] = *reinterpret_cast<const uint4*>(static_cast<const T*>(a.cos) + co);
            ch[u] = *reinterpret_cast<const uint4*>(static_cast<const T*>(a.cos) + co + half);
            sl[u] = *reinterpret_cast<const uint4*>(static_cast<const T*>(a.sin) + co);
            sh[u] = *reinterpret_cast<const uint4*>(static_cast<const T*>(a.sin) + co + half);
        }
#pragma unroll
        for (int u = 0; u < U; ++u) {
            if (base + u * blockDim.x >= pairs) continue;
            uint4 ol, oh;
            rotate_raw<T, BACKWARD>(xl[u], xh[u], cl[u], ch[u], sl[u], sh[u], ol, oh);
            *reinterpret_cast<uint4*>(static_cast<T*>(a.y) + off[u]) = ol;
            *reinterpret_cast<uint4*>(static_cast<T*>(a.y) + off[u] + half) = oh;
        }
    }
}

// One thread a pack of one half (Inductor's split): it reads its own pack of x, the
// partner pack of the other half (the partner's thread reads them the other way round: the
// second read comes from L1/L2), and cos and sin at its pack (sin at the partner's in the
// backward): four 16-byte loads, one store.
// y = x * cos + sign * x_partner * sin, sign = - for the first half's forward and the
// second half's backward.
// Keep: the partner pack, cos and sin read with the L2 evict_last policy (load16's keep
// hint), as Inductor's kernel reads them (bench/results/2026-11-29-s10/r2): each is read
// by two threads, the second read then likelier an L2 hit.
template <typename T, bool BACKWARD, bool Keep = false>
OPK_DEV void rope_half(const RopeArgs& a) {
    constexpr int P = Pack<T>::n;
    const uint32_t D = uint32_t(a.D), row_packs = D / P, half_packs = row_packs / 2, H = uint32_t(a.H),
                   T_ = uint32_t(a.T);
    const uint32_t total = uint32_t(a.B * a.T * a.H) * row_packs;
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < total; i += gridDim.x * blockDim.x) {
        const uint32_t c = i % row_packs, head_row = i / row_packs, t = (head_row / H) % T_;
        const bool lo = c < half_packs;
        const uint32_t cp = lo ? c + half_packs : c - half_packs;
        const T* xr = static_cast<const T*>(a.x) + head_row * D;
        constexpr CacheHint H = Keep ? CacheHint::keep : CacheHint::normal;
        const uint4 xs = load16<CacheHint::normal>(xr + c * P);
        const uint4 xp = load16<H>(xr + cp * P);
        const uint4 cs = load16<H>(static_cast<const T*>(a.cos) + t * D + c * P);
        const uint4 sn = load16<H>(static_cast<const T*>(a.sin) + t * D + (BACKWARD ? cp : c) * P);
        const float sign = lo != BACKWARD ? -1.0f : 1.0f;
        uint4 out;
        auto word = [&](uint32_t x0, uint32_t x1, uint32_t c0, uint32_t s0) -> uint32_t {
            if constexpr (sizeof(T) == 4) {
                return __float_as_uint(__uint_as_float(x0) * __uint_as_float(c0) +
                                       sign * __uint_as_float(x1) * __uint_as_float(s0));
            } else {
                const float2 xa = word_to_f32(x0, T()), xb = word_to_f32(x1, T()), ca = word_to_f32(c0, T()),
                             sa = word_to_f32(s0, T());
                return f32_to_word(xa.x * ca.x + sign * xb.x * sa.x, xa.y * ca.y + sign * xb.y * sa.y, T());
            }
        };
        out.x = word(xs.x, xp.x, cs.x, sn.x);
        out.y = word(xs.y, xp.y, cs.y, sn.y);
        out.z = word(xs.z, xp.z, cs.z, sn.z);
        out.w = word(xs.w, xp.w, cs.w, sn.w);
        *reinterpret_cast<uint4*>(static_cast<T*>(a.y) + head_row * D + c * P) = out;
    }
}

template <typename T, int MinBlocks, bool Keep = false>
__global__ void __launch_bounds__(256, MinBlocks) rope_half_any(const RopeArgs a) {
    if (a.backward)
        rope_half<T, true, Keep>(a);
    else
        rope_half<T, false, Keep>(a);
}

template <typename T, int U, int MinBlocks = 1>
__global__ void __launch_bounds__(256, MinBlocks) rope_dense_any(const RopeArgs a) {
    if (a.backward)
        rope_dense<T, true, U>(a);
    else
        rope_dense<T, false, U>(a);
}

static int sms;

// run_rope's block geometry for `heads` heads a thread and blocks of at least min_block
// threads (the host: 128).
template <typename T>
static void setup(RopeArgs& a, int64_t heads, int min_block, int64_t* grid, unsigned* block) {
    const int64_t es = sizeof(T), packs = (a.D / 2 + 16 / es - 1) / (16 / es);
    int64_t width = 1;
    while (width < packs && width < 64) width <<= 1;
    const int64_t groups = std::min<int64_t>((a.H + heads - 1) / heads, 256 / width);
    const int64_t positions = a.B * a.T;
    const int64_t per_block =
        std::max<int64_t>(1, std::min<int64_t>(std::max<int64_t>(min_block, 1) / (width * groups), positions));
    a.width = int32_t(width);
    a.groups = int32_t(groups);
    a.per_block = int32_t(per_block);
    *block = unsigned(width * groups * per_block);
    *grid = std::min<int64_t>((positions + per_block - 1) / per_block, int64_t(sms) * 64);
}

template <typename T, class K>
static void line(const char* dt, const char* label, K k, RopeArgs a, int heads, int min_block,
                 const std::vector<float>* ref) {
    int64_t grid;
    unsigned block;
    setup<T>(a, heads, min_block, &grid, &block);
    cudaMemset(a.y, 0, size_t(a.B * a.T * a.H * a.D) * sizeof(T));
    const float ms = median_ms([&] { k<<<grid, block>>>(a); });
    double d = 0.0;
    if (ref) {
        const std::vector<float> got = host_floats<T>(a.y, a.B * a.T * a.H * a.D);
        for (size_t i = 0; i < got.size(); ++i) d = std::max(d, double(std::fabs(got[i] - (*ref)[i])));
    }
    const double bytes = 2.0 * double(a.B * a.T * a.H * a.D) * sizeof(T);
    std::printf("%-5s %s H%-3lld %-40s block %4u grid %6lld %8.4f ms %7.0f GB/s  maxdiff %.2e\n", dt,
                a.backward ? "bwd" : "fwd", (long long)a.H, label, block, (long long)grid, ms, bytes / ms / 1e6, d);
}

template <typename T, int Heads, int Res>
static void variant(const char* dt, const RopeArgs& a, int min_block, const std::vector<float>& ref) {
    auto k = rope_variant<T, Heads, Res>;
    cudaFuncAttributes attr{};
    cudaFuncGetAttributes(&attr, k);
    char label[64];
    std::snprintf(label, sizeof label, "heads %d R%-4d %3dreg%s min block %d", Heads, Res, attr.numRegs,
                  attr.localSizeBytes ? " SPILL" : "", min_block);
    line<T>(dt, label, k, a, Heads, min_block, &ref);
}

// Times a kernel of 256-thread blocks over `items` work items (all blocks, or capped at
// `waves` waves of its occupancy) and prints it against the library's output `ref`.
template <typename T, class K>
static void flat_line(const char* dt, const char* name, K k, RopeArgs a, int64_t items, int64_t waves,
                      const std::vector<float>& ref) {
    cudaFuncAttributes attr{};
    cudaFuncGetAttributes(&attr, k);
    int per_sm = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, 256, 0);
    const int64_t blocks = (items + 255) / 256;
    const int64_t grid = waves ? std::min<int64_t>(blocks, int64_t(sms) * per_sm * waves) : blocks;
    cudaMemset(a.y, 0, size_t(a.B * a.T * a.H * a.D) * sizeof(T));
    const float ms = median_ms([&] { k<<<grid, 256>>>(a); });
    const std::vector<float> got = host_floats<T>(a.y, a.B * a.T * a.H * a.D);
    double d = 0.0;
    for (size_t i = 0; i < got.size(); ++i) d = std::max(d, double(std::fabs(got[i] - ref[i])));
    const double bytes = 2.0 * double(a.B * a.T * a.H * a.D) * sizeof(T);
    std::printf("%-5s %s H%-3lld %-10s %3dreg%s %2d blk/SM %-14s     block  256 grid %6lld %8.4f ms %7.0f GB/s  maxdiff %.2e\n",
                dt, a.backward ? "bwd" : "fwd", (long long)a.H, name, attr.numRegs, attr.localSizeBytes ? " SPILL" : "",
                per_sm, waves ? "capped" : "all blocks", (long long)grid, ms, bytes / ms / 1e6, d);
}

template <typename T, int U, int MinBlocks = 1>
static void dense(const char* dt, RopeArgs a, int64_t waves, const std::vector<float>& ref) {
    char name[16];
    std::snprintf(name, sizeof name, "dense U%d", U);
    const int64_t pairs = a.B * a.T * a.H * (a.D / 2 / Pack<T>::n);
    flat_line<T>(dt, name, rope_dense_any<T, U, MinBlocks>, a, (pairs + U - 1) / U, waves, ref);
}

template <typename T, int MinBlocks, bool Keep = false>
static void half_variant(const char* dt, RopeArgs a, int64_t waves, const std::vector<float>& ref) {
    flat_line<T>(dt, Keep ? "half+keep" : "half-split", rope_half_any<T, MinBlocks, Keep>, a,
                 a.B * a.T * a.H * (a.D / Pack<T>::n), waves, ref);
}

template <typename T>
static void shape(const char* dt, void (*today)(RopeArgs), void* x, void* y, void* cs, void* sn, int64_t H,
                  bool backward) {
    RopeArgs a{};
    a.x = x;
    a.y = y;
    a.cos = cs;
    a.sin = sn;
    a.B = 4;
    a.T = 4096;
    a.H = H;
    a.D = 128;
    a.xs[0] = a.ys[0] = a.T * H * a.D;
    a.xs[1] = a.ys[1] = H * a.D;
    a.xs[2] = a.ys[2] = a.D;
    a.cs[0] = a.ss[0] = 0;
    a.cs[1] = a.ss[1] = a.D;
    a.vec = 1;
    a.backward = backward;
    line<T>(dt, "today (kRopeHeads, host geometry)", today, a, kRopeHeads, 128, nullptr);
    const std::vector<float> ref = host_floats<T>(y, a.B * a.T * H * a.D);
    variant<T, 4, 512>(dt, a, 128, ref);
    variant<T, 4, 1024>(dt, a, 128, ref);
    variant<T, 2, 1024>(dt, a, 128, ref);
    variant<T, 2, 1024>(dt, a, 256, ref);
    variant<T, 2, 1536>(dt, a, 128, ref);
    variant<T, 2, 2048>(dt, a, 128, ref);
    variant<T, 1, 1024>(dt, a, 256, ref);
    variant<T, 1, 2048>(dt, a, 256, ref);
    variant<T, 8, 512>(dt, a, 128, ref);
    for (int64_t waves : {int64_t(0), int64_t(4)}) {
        dense<T, 1>(dt, a, waves, ref);
        dense<T, 2>(dt, a, waves, ref);
        dense<T, 4>(dt, a, waves, ref);
        dense<T, 1, 8>(dt, a, waves, ref);
        half_variant<T, 1>(dt, a, waves, ref);
        half_variant<T, 8>(dt, a, waves, ref);
        half_variant<T, 8, true>(dt, a, waves, ref);
    }
}

int main() {
    std::setvbuf(stdout, nullptr, _IONBF, 0);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    const int64_t n = int64_t(4) * 4096 * 32 * 128, nc = int64_t(4096) * 128;
    void *x, *y, *cs, *sn;
    cudaMalloc(&x, n * 4);
    cudaMalloc(&y, n * 4);
    cudaMalloc(&cs, nc * 4);
    cudaMalloc(&sn, nc * 4);
    fill<opk_bf16>(x, n, 2.0f, 0.1f);
    fill<opk_bf16>(cs, nc, 1.0f, 0.0f);
    fill<opk_bf16>(sn, nc, 0.9f, 0.05f);
    for (int64_t H : {32, 8})
        for (bool bwd : {false, true}) shape<opk_bf16>("bf16", opk_rope_bf16, x, y, cs, sn, H, bwd);
    fill<float>(x, n, 2.0f, 0.1f);
    fill<float>(cs, nc, 1.0f, 0.0f);
    fill<float>(sn, nc, 0.9f, 0.05f);
    for (bool bwd : {false, true}) shape<float>("f32", opk_rope_f32, x, y, cs, sn, 32, bwd);
    return 0;
}
