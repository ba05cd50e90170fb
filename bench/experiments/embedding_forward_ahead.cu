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
//   memcpy             cudaMemcpyAsync reading and writing the gather's bytes (67 MB each in
//                      bf16: gpu_compare.py's same-size `copy`), and of 1 GiB (its copy
//                      bandwidth: read + write over time)
//
//   nvcc -std=c++17 -O3 -arch=sm_90 -Xptxas -v -o efa bench/experiments/embedding_forward_ahead.cu
//   ./efa        # on the GPU machine: V 128256 x D 4096, 8192 int64 ids, bf16 and f32
#include "../../vendors/gpu/embedding.cu"
#include "behind_spin.cuh"
#include "cuda_check.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace efa {

using behind_spin::kSpinCycles;
using behind_spin::spin;

constexpr int kB = 128, kU = 2;  // the library's block and packs a thread
constexpr int kCalls = 200, kRounds = 5;

// Packs c0, c0 + B, ... of the table row of `id` (a NaN row for an id out of range, as
// the library's kernel writes).
template <typename T>
__device__ __forceinline__ void load_part(const opk::EmbeddingArgs& a, int64_t id, int64_t c0, int64_t packs,
                                          uint4 (&v)[kU]) {
    const bool bad = id < 0 || id >= a.V;
    const uint4* src = reinterpret_cast<const uint4*>(static_cast<const T*>(a.weight) + (bad ? 0 : id) * a.weight_stride);
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

float median_behind_spin(const std::function<void()>& launch) {
    cudaEvent_t a, b;
    CHECK_CUDA(cudaEventCreate(&a));
    CHECK_CUDA(cudaEventCreate(&b));
    std::vector<float> t;
    for (int i = 0; i < kCalls; ++i) {
        spin<<<1, 1>>>(kSpinCycles);
        CHECK_CUDA(cudaEventRecord(a, 0));
        launch();
        CHECK_CUDA(cudaEventRecord(b, 0));
        CHECK_CUDA(cudaEventSynchronize(b));
        float ms = 0;
        CHECK_CUDA(cudaEventElapsedTime(&ms, a, b));
        t.push_back(ms * 1000.0f);
    }
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaEventDestroy(a));
    CHECK_CUDA(cudaEventDestroy(b));
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
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
        char *w, *y, *yref;
        int64_t* ids;
        CHECK_CUDA(cudaMalloc(&w, V * row_bytes));
        CHECK_CUDA(cudaMalloc(&y, count * row_bytes));
        CHECK_CUDA(cudaMalloc(&yref, count * row_bytes));
        CHECK_CUDA(cudaMalloc(&ids, count * 8));
        std::vector<int64_t> hid(count);
        unsigned long long x = 88172645463325252ull;
        for (auto& v : hid) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            v = int64_t(x % uint64_t(V));
        }
        CHECK_CUDA(cudaMemcpy(ids, hid.data(), count * 8, cudaMemcpyHostToDevice));
        std::vector<unsigned> hw(V * row_bytes / 4);
        for (size_t i = 0; i < hw.size(); ++i) hw[i] = unsigned(i * 2654435761u);
        CHECK_CUDA(cudaMemcpy(w, hw.data(), V * row_bytes, cudaMemcpyHostToDevice));
        // The arguments as the library's host builds them for contiguous ids and y.
        opk::EmbeddingArgs a{};
        a.weight = w;
        a.weight_stride = D;
        a.weight_vec = 1;
        a.ids64 = 1;
        a.ids.data = ids;
        a.ids.nd = 1;
        a.ids.size[0] = count;
        a.ids.stride[0] = 1;
        a.ids.vec = 1;
        a.rows.data = y;
        a.rows.nd = 1;
        a.rows.size[0] = count;
        a.rows.stride[0] = D;
        a.rows.vec = 1;
        a.count = count;
        a.V = V;
        a.D = D;
        opk::EmbeddingArgs aref = a;
        aref.rows.data = yref;
        const unsigned per_row = unsigned((packs + kB * kU - 1) / (kB * kU));
        const bool bf = es == 2;
        auto lib = bf ? opk_emb_fwd_dense_bf16 : opk_emb_fwd_dense_f32;
        // The reference: the library's kernel, checked against the table on the host.
        lib<<<dim3(per_row, unsigned(count)), kB>>>(aref);
        CHECK_CUDA(cudaDeviceSynchronize());
        std::vector<char> href(count * row_bytes), h(count * row_bytes);
        CHECK_CUDA(cudaMemcpy(href.data(), yref, href.size(), cudaMemcpyDeviceToHost));
        bool ref_ok = true;
        for (int64_t k = 0; k < count && ref_ok; ++k)
            ref_ok = std::memcmp(href.data() + k * row_bytes,
                                 reinterpret_cast<const char*>(hw.data()) + hid[k] * row_bytes, size_t(row_bytes)) == 0;
        std::printf("%s: the library kernel's rows equal the table's: %s\n", bf ? "bf16" : "f32",
                    ref_ok ? "yes" : "NO");

        std::vector<Line> lines;
        lines.push_back({"library", [&] { lib<<<dim3(per_row, unsigned(count)), kB>>>(a); }, true, {}});
        auto rows2 = bf ? rows_r<opk_bf16, 2> : rows_r<float, 2>;
        auto rows4 = bf ? rows_r<opk_bf16, 4> : rows_r<float, 4>;
        lines.push_back({"rows 2", [&] { rows2<<<dim3(per_row, unsigned((count + 1) / 2)), kB>>>(a); }, true, {}});
        lines.push_back({"rows 4", [&] { rows4<<<dim3(per_row, unsigned((count + 3) / 4)), kB>>>(a); }, true, {}});
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
            for (auto& l : lines) l.us.push_back(median_behind_spin(l.launch));
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
        CHECK_CUDA(cudaFree(w));
        CHECK_CUDA(cudaFree(y));
        CHECK_CUDA(cudaFree(yref));
        CHECK_CUDA(cudaFree(ids));
    }
    CHECK_CUDA(cudaFree(big_src));
    CHECK_CUDA(cudaFree(big_dst));
    return 0;
}
