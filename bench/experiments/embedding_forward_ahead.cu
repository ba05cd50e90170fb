// The embedding forward with its ids asked for ahead of the rows they select. Not part of
// the build.
//
// Why: in the standing table (docs/PERFORMANCE.md) the bf16 embedding forward at V 128256 x
// D 4096 with 8192 ids is 0.86 of copy bandwidth, 0.94 of a memcpy of its own 134 MB. The
// eighth session's back-to-back timings of the library's kernel (bench/results/2026-11-28-s8/
// r1/efv.txt: bf16 0.0367 ms, f32 0.0698 for twice the bytes) fit a fixed 3.6 us a launch
// plus 4.05 TB/s, where a copy streams at 4.23: each block of the library's kernel
// (opk_emb_fwd_dense_*, 128 threads x 2 packs, one part of one row) first waits for its id,
// then for the row's packs, so about half of a block's life has none of its bytes in
// flight, and the first wave waits twice before a byte moves.
//
// What: each line is the same gather, timed as bench/gpu_compare.py times a call (queued
// behind a spin kernel, events around the one call, the median of 200 calls), the lines
// alternating in each of five rounds; every output compared byte for byte with the
// library kernel's:
//   library            opk_emb_fwd_dense_<dtype> at the library's launch (B128 U2, a block
//                      per part of a row)
//   rows R             a block copies its part of R consecutive rows: the R ids asked for
//                      together, then every pack, then the stores
//   loop G             G grid rows walk the ids (k += G), the next id asked for before
//                      this row's packs
//   loop2 G            the same with the next row's packs asked for before this row's
//                      stores (two rows' packs in registers)
//   words8 BB UU       the library's launch shape with 8-byte words instead of packs: B
//                      threads of U words of one row (added after the fiftieth session's
//                      call 1, not yet run)
//   memcpy             cudaMemcpyAsync reading and writing the gather's bytes (67 MB each in
//                      bf16: gpu_compare.py's same-size `copy`), and of 1 GiB (its copy
//                      bandwidth: read + write over time)
//
//   nvcc -std=c++17 -O3 -arch=sm_90 -Xptxas -v -o efa bench/experiments/embedding_forward_ahead.cu
//   ./efa        # on the GPU machine: V 128256 x D 4096, 8192 int64 ids, bf16 and f32
#include "../../vendors/gpu/embedding.cu"
#include "behind_spin.cuh"
#include "cuda_check.cuh"
#include "embedding_fixture.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace efa {

using behind_spin::kSpinCycles;

constexpr int kB = 128, kU = 2;  // the library's block and packs a thread
constexpr int kCalls = 200, kRounds = 5;

// Packs c0, c0 + B, ... of the table row of `id` (a NaN row for an id out of range, as
// the library's kernel writes).
template <typename T>
__device__ __forceinline__ void load_part(const opk::EmbeddingArgs& a, int64_t id, int64_t c0, int64_t packs,
                                          uint4 (&v)[kU]) {
    const bool bad = id < 0 || id >= a.V;
    const uint4* src =
        reinterpret_cast<const uint4*>(static_cast<const T*>(a.weight) + (bad ? 0 : id) * a.weight_stride);
#pragma unroll
    for (int u = 0; u < kU; ++u) {
        const int64_t c = c0 + int64_t(u) * kB;
        if (c < packs) v[u] = bad ? opk::nan_pack<T>() : src[c];
    }
}

template <typename T>
__device__ __forceinline__ void store_part(const opk::EmbeddingArgs& a, int64_t k, int64_t c0, int64_t packs,
                                           const uint4 (&v)[kU]) {
    uint4* dst = reinterpret_cast<uint4*>(static_cast<T*>(a.rows.data) + k * a.rows.stride[0]);
#pragma unroll
    for (int u = 0; u < kU; ++u) {
        const int64_t c = c0 + int64_t(u) * kB;
        if (c < packs) dst[c] = v[u];
    }
}

__device__ __forceinline__ int64_t id_of(const opk::EmbeddingArgs& a, int64_t k) {
    return static_cast<const int64_t*>(a.ids.data)[k * a.ids.stride[0]];
}

// R consecutive rows a block: every id first, then every pack, then the stores.
template <typename T, int R>
__global__ void __launch_bounds__(kB) rows_r(const opk::EmbeddingArgs a) {
    const int64_t packs = a.D / opk::Pack<T>::n, c0 = int64_t(blockIdx.x) * (kB * kU) + threadIdx.x;
    const int64_t k0 = int64_t(blockIdx.y) * R;
    int64_t id[R];
#pragma unroll
    for (int j = 0; j < R; ++j) id[j] = k0 + j < a.count ? id_of(a, k0 + j) : 0;
    uint4 v[R][kU];
#pragma unroll
    for (int j = 0; j < R; ++j)
        if (k0 + j < a.count) load_part<T>(a, id[j], c0, packs, v[j]);
#pragma unroll
    for (int j = 0; j < R; ++j)
        if (k0 + j < a.count) store_part<T>(a, k0 + j, c0, packs, v[j]);
}

// 8-byte words instead of 16-byte packs (the fiftieth session found them faster in the
// gated backwards, elementwise_layouts.cu): B threads of U words of one row a block, x the
// part of the row, y the row, as the library's kernel. Valid ids only (the experiment's).
template <int B, int U>
__global__ void __launch_bounds__(B) words8(const opk::EmbeddingArgs a, int64_t row_words) {
    const int64_t c0 = int64_t(blockIdx.x) * (B * U) + threadIdx.x;
    for (int64_t k = blockIdx.y; k < a.count; k += gridDim.y) {
        const uint2* src = reinterpret_cast<const uint2*>(static_cast<const char*>(a.weight)) + id_of(a, k) * row_words;
        uint2* dst = reinterpret_cast<uint2*>(a.rows.data) + k * row_words;
        uint2 v[U];
#pragma unroll
        for (int u = 0; u < U; ++u)
            if (c0 + u * B < row_words) v[u] = src[c0 + u * B];
#pragma unroll
        for (int u = 0; u < U; ++u)
            if (c0 + u * B < row_words) dst[c0 + u * B] = v[u];
    }
}

// gridDim.y rows walk the ids; the next id is asked for before this row's packs.
template <typename T>
__global__ void __launch_bounds__(kB) loop_ahead(const opk::EmbeddingArgs a) {
    const int64_t packs = a.D / opk::Pack<T>::n, c0 = int64_t(blockIdx.x) * (kB * kU) + threadIdx.x;
    const int64_t step = gridDim.y;
    int64_t k = blockIdx.y;
    if (k >= a.count) return;
    int64_t id = id_of(a, k);
    for (; k < a.count; k += step) {
        const int64_t next = k + step < a.count ? id_of(a, k + step) : 0;
        uint4 v[kU];
        load_part<T>(a, id, c0, packs, v);
        store_part<T>(a, k, c0, packs, v);
        id = next;
    }
}

// As loop_ahead, and the next row's packs are asked for before this row's stores.
template <typename T>
__global__ void __launch_bounds__(kB) loop_ahead2(const opk::EmbeddingArgs a) {
    const int64_t packs = a.D / opk::Pack<T>::n, c0 = int64_t(blockIdx.x) * (kB * kU) + threadIdx.x;
    const int64_t step = gridDim.y;
    int64_t k = blockIdx.y;
    if (k >= a.count) return;
    uint4 v[kU];
    load_part<T>(a, id_of(a, k), c0, packs, v);
    int64_t id = k + step < a.count ? id_of(a, k + step) : 0;
    for (; k < a.count; k += step) {
        const int64_t k1 = k + step;
        uint4 nv[kU];
        if (k1 < a.count) load_part<T>(a, id, c0, packs, nv);
        id = k1 + step < a.count ? id_of(a, k1 + step) : 0;
        store_part<T>(a, k, c0, packs, v);
#pragma unroll
        for (int u = 0; u < kU; ++u) v[u] = nv[u];
    }
}

struct Line {
    std::string name;
    std::function<void()> launch;
    bool writes_y;  // a gather into y (checked), not a copy
    std::vector<float> us;
};

}  // namespace efa

using namespace efa;

int main() {
    const int64_t V = 128256, D = 4096, count = 8192;
    int sms = 0;
    CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    cudaDeviceProp prop;
    CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
    const size_t big = size_t(1) << 30;  // the 1 GiB copy: gpu_compare.py's copy bandwidth
    char *big_src, *big_dst;
    CHECK_CUDA(cudaMalloc(&big_src, big));
    CHECK_CUDA(cudaMalloc(&big_dst, big));
    CHECK_CUDA(cudaMemset(big_src, 1, big));
    std::printf("# %s, %d SMs; %d calls a round behind a %lld-cycle spin, median of each round (us)\n", prop.name,
                sms, kCalls, kSpinCycles);
    for (int es : {2, 4}) {
        const int64_t row_bytes = D * es, packs = row_bytes / 16;
        const emb_fixture::Table tab(V, D, count, es);
        char *y, *yref;
        CHECK_CUDA(cudaMalloc(&y, count * row_bytes));
        CHECK_CUDA(cudaMalloc(&yref, count * row_bytes));
        const opk::EmbeddingArgs a = tab.args(y);
        opk::EmbeddingArgs aref = a;
        aref.rows.data = yref;
        const unsigned per_row = unsigned((packs + kB * kU - 1) / (kB * kU));
        const bool bf = es == 2;
        auto lib = bf ? opk_emb_fwd_dense_bf16 : opk_emb_fwd_dense_f32;
        // The reference: the library's kernel, checked against the table on the host.
        lib<<<dim3(per_row, unsigned(count)), kB>>>(aref);
        CHECK_CUDA(cudaDeviceSynchronize());
        const bool ref_ok = tab.gathered(yref);
        std::vector<char> href(count * row_bytes), h(count * row_bytes);
        CHECK_CUDA(cudaMemcpy(href.data(), yref, href.size(), cudaMemcpyDeviceToHost));
        std::printf("%s: the library kernel's rows equal the table's: %s\n", bf ? "bf16" : "f32",
                    ref_ok ? "yes" : "NO");

        std::vector<Line> lines;
        lines.push_back({"library", [&] { lib<<<dim3(per_row, unsigned(count)), kB>>>(a); }, true, {}});
        auto rows2 = bf ? rows_r<opk_bf16, 2> : rows_r<float, 2>;
        auto rows4 = bf ? rows_r<opk_bf16, 4> : rows_r<float, 4>;
        lines.push_back({"rows 2", [&] { rows2<<<dim3(per_row, unsigned((count + 1) / 2)), kB>>>(a); }, true, {}});
        lines.push_back({"rows 4", [&] { rows4<<<dim3(per_row, unsigned((count + 3) / 4)), kB>>>(a); }, true, {}});
        const int64_t words = row_bytes / 8;
        auto add_words = [&](const char* name, auto kernel, int B, int U) {
            const unsigned gx = unsigned((words + B * U - 1) / (B * U));
            lines.push_back(
                {name, [&, kernel, gx, B] { kernel<<<dim3(gx, unsigned(count)), B>>>(a, words); }, true, {}});
        };
        add_words("words8 B128 U1", words8<128, 1>, 128, 1);
        add_words("words8 B256 U1", words8<256, 1>, 256, 1);
        add_words("words8 B128 U2", words8<128, 2>, 128, 2);
        add_words("words8 B256 U2", words8<256, 2>, 256, 2);
        auto loop1 = bf ? loop_ahead<opk_bf16> : loop_ahead<float>;
        auto loop2 = bf ? loop_ahead2<opk_bf16> : loop_ahead2<float>;
        // Resident blocks: 16 of 128 threads an SM at 32 registers or fewer.
        const unsigned resident_rows = unsigned(sms * 16 / int(per_row));
        for (unsigned g : {resident_rows, 2 * resident_rows, 4096u}) {
            lines.push_back({"loop " + std::to_string(g), [&, g] { loop1<<<dim3(per_row, g), kB>>>(a); }, true, {}});
            lines.push_back({"loop2 " + std::to_string(g), [&, g] { loop2<<<dim3(per_row, g), kB>>>(a); }, true, {}});
        }
        lines.push_back({"memcpy same bytes",
                         [&] { CHECK_CUDA(cudaMemcpyAsync(big_dst, big_src, size_t(count * row_bytes),
                                                          cudaMemcpyDeviceToDevice, 0)); },
                         false, {}});
        lines.push_back(
            {"memcpy 1 GiB", [&] { CHECK_CUDA(cudaMemcpyAsync(big_dst, big_src, big, cudaMemcpyDeviceToDevice, 0)); },
             false, {}});
        int bad = 0;
        for (auto& l : lines) {  // once before timing: each gather's bytes
            if (!l.writes_y) continue;
            CHECK_CUDA(cudaMemset(y, 0, count * row_bytes));
            l.launch();
            CHECK_CUDA(cudaDeviceSynchronize());
            CHECK_CUDA(cudaMemcpy(h.data(), y, h.size(), cudaMemcpyDeviceToHost));
            const bool ok = std::memcmp(h.data(), href.data(), h.size()) == 0;
            if (!ok) std::printf("%s %s: MISMATCH\n", bf ? "bf16" : "f32", l.name.c_str());
            bad += !ok;
        }
        for (int round = 0; round < kRounds; ++round)
            for (auto& l : lines) l.us.push_back(behind_spin::median_us(l.launch, kCalls));
        const double bytes = 2.0 * count * row_bytes;
        std::vector<float> big_us = lines.back().us;
        std::sort(big_us.begin(), big_us.end());
        const double copy_gbs = 2.0 * big / (big_us[kRounds / 2] * 1e3);
        for (auto& l : lines) {
            std::vector<float> s = l.us;
            std::sort(s.begin(), s.end());
            const double med = s[kRounds / 2];
            const double gbs = (l.name == "memcpy 1 GiB" ? 2.0 * big : bytes) / (med * 1e3);
            std::printf("%-5s %-20s median %8.3f us  %7.1f GB/s  %.3f of copy  rounds", bf ? "bf16" : "f32",
                        l.name.c_str(), med, gbs, gbs / copy_gbs);
            for (float u : l.us) std::printf(" %.3f", u);
            std::printf("\n");
        }
        std::printf("%s: %d of %zu gathers differ from the library kernel's bytes\n", bf ? "bf16" : "f32", bad,
                    lines.size() - 2);
        CHECK_CUDA(cudaFree(y));
        CHECK_CUDA(cudaFree(yref));
    }
    CHECK_CUDA(cudaFree(big_src));
    CHECK_CUDA(cudaFree(big_dst));
    return 0;
}
