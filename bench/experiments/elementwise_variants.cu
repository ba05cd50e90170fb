// Element-wise kernel variants timed side by side on one GPU: not part of the build, kept
// so that bench/results/h100-2026-11-23-elementwise/variants.txt can be reproduced and
// extended. It compiles vendors/gpu/elementwise.cu into the same translation unit and
// times, on dense 32768x4096 tensors, the row kernel ("current": opk_<op>_<dtype>, which
// was the only kernel when variants.txt was taken) under two grids, and dense variants
// with U packs per thread, capped or uncapped grids and streaming cache hints.
//
//   nvcc -std=c++17 -O3 -arch=sm_90 -o elementwise_variants bench/experiments/elementwise_variants.cu
//   ./elementwise_variants        # on the GPU machine
#include "../../vendors/gpu/elementwise.cu"
#include "median_time.cuh"

namespace opk { namespace {
template <bool Hint> OPK_DEV uint4 ld16(const void* p) {
    if constexpr (Hint) return __ldcs(reinterpret_cast<const uint4*>(p));
    else return *reinterpret_cast<const uint4*>(p);
}
template <bool Hint> OPK_DEV void st16(void* p, uint4 v) {
    if constexpr (Hint) __stcs(reinterpret_cast<uint4*>(p), v);
    else *reinterpret_cast<uint4*>(p) = v;
}
// Dense only (rows == 1, vec), U packs per thread per step, block-chunked.
template <typename T, class Op, int U, bool Hint>
__global__ void __launch_bounds__(256) ew_var(const ElementwiseArgs a) {
    constexpr int P = Pack<T>::n, NI = Op::nin, NO = Op::nout;
    const int64_t packs = a.n / P;
    const int64_t chunk = int64_t(blockDim.x) * U;
    for (int64_t base = int64_t(blockIdx.x) * chunk + threadIdx.x; base < packs; base += int64_t(gridDim.x) * chunk) {
        uint4 raw[NI][U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const int64_t c = base + int64_t(u) * blockDim.x;
            if (c < packs)
#pragma unroll
                for (int j = 0; j < NI; ++j) raw[j][u] = ld16<Hint>(static_cast<const T*>(a.t[j].data) + c * P);
        }
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const int64_t c = base + int64_t(u) * blockDim.x;
            if (c >= packs) continue;
            float in[NI][P];
#pragma unroll
            for (int j = 0; j < NI; ++j) unpack<T, P>(raw[j][u], in[j]);
            alignas(16) T o[NO][P];
#pragma unroll
            for (int k = 0; k < P; ++k) {
                float x[NI], y[NO];
#pragma unroll
                for (int j = 0; j < NI; ++j) x[j] = in[j][k];
                Op::template apply<sizeof(T) == 2>(x, y, a.alpha);
#pragma unroll
                for (int j = 0; j < NO; ++j) o[j][k] = from_f32<T>(y[j]);
            }
#pragma unroll
            for (int j = 0; j < NO; ++j) st16<Hint>(static_cast<T*>(a.t[NI + j].data) + c * P, *reinterpret_cast<uint4*>(o[j]));
        }
    }
}
__global__ void copy16(const uint4* s, uint4* d, int64_t n) {
    for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) d[i] = s[i];
}
}}
using namespace opk;

static int sms;

template <typename T, class Op, int U, bool Hint>
static float run_var(ElementwiseArgs a, int64_t packs, int cap) {
    int64_t blocks = (packs + 256 * U - 1) / (256 * U);
    if (cap) blocks = std::min<int64_t>(blocks, int64_t(sms) * cap);
    return median_ms([&] { ew_var<T, Op, U, Hint><<<blocks, 256>>>(a); });
}

template <typename T, class Op>
static void bench(const char* name, void (*cur)(ElementwiseArgs), void** bufs, int64_t n) {
    ElementwiseArgs a{};
    a.rows = 1; a.n = n;
    for (int i = 0; i < Op::nin + Op::nout; ++i) { a.t[i].data = bufs[i]; a.t[i].nd = 0; a.t[i].vec = 1; }
    const int64_t P = 16 / sizeof(T), packs = n / P;
    const double bytes = double(n) * sizeof(T) * (Op::nin + Op::nout);
    auto rep = [&](const char* v, float ms) { printf("%-14s %-5s %-22s %8.4f ms %7.0f GB/s\n", name, sizeof(T) == 2 ? "bf16" : "f32", v, ms, bytes / ms / 1e6); };
    rep("current", median_ms([&] { cur<<<(unsigned)std::min<int64_t>((packs + 255) / 256, int64_t(sms) * 64), 256>>>(a); }));
    rep("cur-uncapped", median_ms([&] { cur<<<(unsigned)((packs + 255) / 256), 256>>>(a); }));
    rep("U1 cap64", run_var<T, Op, 1, false>(a, packs, 64));
    rep("U1 nocap", run_var<T, Op, 1, false>(a, packs, 0));
    rep("U2 cap32", run_var<T, Op, 2, false>(a, packs, 32));
    rep("U2 nocap", run_var<T, Op, 2, false>(a, packs, 0));
    rep("U4 cap16", run_var<T, Op, 4, false>(a, packs, 16));
    rep("U4 nocap", run_var<T, Op, 4, false>(a, packs, 0));
    rep("U1 nocap hint", run_var<T, Op, 1, true>(a, packs, 0));
    rep("U2 nocap hint", run_var<T, Op, 2, true>(a, packs, 0));
    rep("U4 nocap hint", run_var<T, Op, 4, true>(a, packs, 0));
    rep("U2 cap8 hint", run_var<T, Op, 2, true>(a, packs, 8));
}

int main() {
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    const int64_t n = int64_t(32768) * 4096;
    void* bufs[5];
    for (auto& b : bufs) { cudaMalloc(&b, n * 4); cudaMemset(b, 0, n * 4); }
    {
        const int64_t n16 = n * 2 / 16;  // 1 GiB... use 512 MiB read + write
        float ms = median_ms([&] { copy16<<<sms * 64, 256>>>((const uint4*)bufs[0], (uint4*)bufs[1], n16); });
        printf("copy kernel 512MiB: %.4f ms %.0f GB/s\n", ms, 2.0 * n16 * 16 / ms / 1e6);
        ms = median_ms([&] { cudaMemcpyAsync(bufs[1], bufs[0], n * 2, cudaMemcpyDeviceToDevice); });
        printf("memcpy 512MiB: %.4f ms %.0f GB/s\n", ms, 2.0 * n * 2 / ms / 1e6);
    }
    bench<opk_bf16, GatedForward<Silu>>("swiglu_fwd", opk_swiglu_fwd_bf16, bufs, n);
    bench<opk_bf16, GatedBackward<Silu>>("swiglu_bwd", opk_swiglu_bwd_bf16, bufs, n);
    bench<opk_bf16, GatedBackward<GeluTanh>>("geglu_t_bwd", opk_geglu_tanh_bwd_bf16, bufs, n);
    bench<float, GatedForward<Silu>>("swiglu_fwd", opk_swiglu_fwd_f32, bufs, n);
    bench<float, GatedBackward<Silu>>("swiglu_bwd", opk_swiglu_bwd_f32, bufs, n);
    return 0;
}
