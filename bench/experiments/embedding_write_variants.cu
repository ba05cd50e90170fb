// The embedding backward's last step (opk_emb_bwd_write_<dtype>: every dweight row written
// once, zeros or an id's dy row) against write-only floors and other launch shapes, timed
// side by side on one GPU: not part of the build. It compiles vendors/gpu/embedding.cu into
// the same translation unit, so "library" is the library's kernel at the library's grid
// (group_grid: at most 16 blocks of 256 threads an SM, each walking rows).
//
// The question (bench/results/2026-11-29-s19/r2/emb-bwd-*.txt): that kernel writes 3.4 TB/s
// in bf16 and f32 alike, PyTorch's zero_ of the f32 dweight 4.7 TB/s but of the bf16 one 3.4.
// Variants, all over the same owner/tag state (8192 distinct ids, each its own dy row):
//   memset:        cudaMemsetAsync of dweight (the driver's own fill);
//   fill<U,H>:     one-shot blocks of 256 threads writing U 16-byte zero packs each
//                  (H: st.global.cs) -- PyTorch's shape of fill;
//   library_grid<G>: the library's kernel with G blocks an SM instead of 16 (0: one block
//                  per row group, no walk);
//   rows2d<U,H>:   blockIdx.y walks the rows, blockIdx.x the row's packs, each thread U
//                  packs, owner and tag read once per block (as the forward's dense kernel).
// Each variant that writes dweight is compared byte for byte with the library's output.
//
//   nvcc -std=c++17 -O3 -arch=sm_90 -I vendors/gpu -o ewv bench/experiments/embedding_write_variants.cu
//   ./ewv        # on the GPU machine: V 128256 x D 4096 (bf16, f32) and V 64128 x D 4096 f32
#include "../../vendors/gpu/embedding.cu"
#include "cuda_check.cuh"
#include "median_time.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

namespace ewv {

template <bool Hint>
__device__ __forceinline__ void st16(void* p, uint4 v) {
    if constexpr (Hint)
        __stcs(reinterpret_cast<uint4*>(p), v);
    else
        *reinterpret_cast<uint4*>(p) = v;
}

template <int U, bool Hint>
__global__ void __launch_bounds__(256) fill(uint4* out, long long packs) {
    const long long base = (long long)blockIdx.x * 256 * U + threadIdx.x;
#pragma unroll
    for (int u = 0; u < U; ++u) {
        const long long c = base + u * 256;
        if (c < packs) st16<Hint>(out + c, make_uint4(0, 0, 0, 0));
    }
}

// Row v of dweight: zeros without an owner, else the owner's dy row (ids distinct here, so
// tag 0; a repeated id's accumulator row is the library kernel's concern, not timed here).
template <int U, bool Hint>
__global__ void __launch_bounds__(256) rows2d(const opk::EmbeddingArgs a, int row_packs) {
    const int c0 = blockIdx.x * 256 * U + threadIdx.x;
    for (long long v = blockIdx.y; v < a.V; v += gridDim.y) {
        const unsigned long long owner = a.owner[v];
        uint4* d = reinterpret_cast<uint4*>(static_cast<char*>(a.dweight.data) + v * (long long)row_packs * 16);
        if (owner == opk::kNoOwner) {
#pragma unroll
            for (int u = 0; u < U; ++u) {
                const int c = c0 + u * 256;
                if (c < row_packs) st16<Hint>(d + c, make_uint4(0, 0, 0, 0));
            }
        } else {
            const uint4* s =
                reinterpret_cast<const uint4*>(static_cast<const char*>(a.rows.data) + owner * (long long)row_packs * 16);
            uint4 x[U];
#pragma unroll
            for (int u = 0; u < U; ++u) {
                const int c = c0 + u * 256;
                if (c < row_packs) x[u] = s[c];
            }
#pragma unroll
            for (int u = 0; u < U; ++u) {
                const int c = c0 + u * 256;
                if (c < row_packs) st16<Hint>(d + c, x[u]);
            }
        }
    }
}

struct Case {
    const char* name;
    int es;
    long long V, D;
};

opk::RowsView flat_view(void* data, long long rows, long long stride) {
    opk::RowsView v{};
    v.data = data;
    v.size[0] = rows;
    v.stride[0] = stride;
    v.nd = 1;
    v.vec = 1;
    return v;
}

void run(const Case& c, int sms) {
    const long long V = c.V, D = c.D, count = 8192;
    const size_t wbytes = size_t(V) * D * c.es, dybytes = size_t(count) * D * c.es;
    const int row_packs = int(D * c.es / 16);
    char *dw = nullptr, *dw_ref = nullptr, *dy = nullptr;
    unsigned long long *owner = nullptr, *tag = nullptr;
    CHECK_CUDA(cudaMalloc(&dw, wbytes));
    CHECK_CUDA(cudaMalloc(&dw_ref, wbytes));
    CHECK_CUDA(cudaMalloc(&dy, dybytes));
    CHECK_CUDA(cudaMalloc(&owner, V * 8));
    CHECK_CUDA(cudaMalloc(&tag, V * 8));
    std::vector<unsigned char> host_dy(dybytes);
    std::mt19937 rng(1);
    for (auto& b : host_dy) b = (unsigned char)(rng() & 0x7f);  // finite values in every dtype
    CHECK_CUDA(cudaMemcpy(dy, host_dy.data(), dybytes, cudaMemcpyHostToDevice));
    std::vector<long long> perm(V);
    std::iota(perm.begin(), perm.end(), 0LL);
    std::shuffle(perm.begin(), perm.end(), rng);
    std::vector<unsigned long long> h_owner(V, opk::kNoOwner);
    for (long long k = 0; k < count; ++k) h_owner[perm[k]] = (unsigned long long)k;
    CHECK_CUDA(cudaMemcpy(owner, h_owner.data(), V * 8, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemset(tag, 0, V * 8));

    opk::EmbeddingArgs a{};
    a.rows = flat_view(dy, count, D);
    a.dweight = flat_view(dw, V, D);
    a.owner = owner;
    a.tag = tag;
    a.acc_is_dweight = c.es == 4;
    a.count = count;
    a.V = V;
    a.D = D;
    a.padding_idx = -1;
    auto library_kernel = [&](const opk::EmbeddingArgs& args, int grid) {
        if (c.es == 4)
            opk_emb_bwd_write_f32<<<grid, 256>>>(args);
        else
            opk_emb_bwd_write_bf16<<<grid, 256>>>(args);
    };
    // group_grid as the host computes it, with `per_sm` blocks an SM as the cap (0: none).
    auto group_grid = [&](long long per_sm) {
        long long width = 1;
        while (width < row_packs && width < 256) width <<= 1;
        const long long per_block = 256 / width, need = (V + per_block - 1) / per_block;
        return int(per_sm ? std::min<long long>(need, sms * per_sm) : need);
    };
    opk::EmbeddingArgs ref = a;
    ref.dweight.data = dw_ref;
    library_kernel(ref, group_grid(16));
    CHECK_CUDA(cudaDeviceSynchronize());
    std::vector<unsigned char> want(wbytes), got(wbytes);
    CHECK_CUDA(cudaMemcpy(want.data(), dw_ref, wbytes, cudaMemcpyDeviceToHost));

    const double copy_ms = median_ms([&] { cudaMemcpyAsync(dw_ref, dw, wbytes, cudaMemcpyDeviceToDevice); });
    std::printf("%s V %lld x D %lld: dweight %.2f GB; copy of it %.4f ms = %.0f GB/s (read + write)\n", c.name, V, D,
                wbytes / 1e9, copy_ms, 2 * wbytes / copy_ms / 1e6);
    auto report = [&](const char* name, double ms, bool check) {
        bool same = true;
        if (check) {
            CHECK_CUDA(cudaMemcpy(got.data(), dw, wbytes, cudaMemcpyDeviceToHost));
            same = std::memcmp(got.data(), want.data(), wbytes) == 0;
        }
        std::printf("  %-24s %.4f ms  %5.0f GB/s written%s\n", name, ms, wbytes / ms / 1e6,
                    check ? (same ? "  (output = library's)" : "  OUTPUT DIFFERS") : "");
    };
    report("memset", median_ms([&] { cudaMemsetAsync(dw, 0, wbytes); }), false);
    const long long packs = (long long)(wbytes / 16);
    report("fill U1", median_ms([&] { fill<1, false><<<unsigned((packs + 255) / 256), 256>>>((uint4*)dw, packs); }),
           false);
    report("fill U4", median_ms([&] { fill<4, false><<<unsigned((packs + 1023) / 1024), 256>>>((uint4*)dw, packs); }),
           false);
    report("fill U4 .cs", median_ms([&] { fill<4, true><<<unsigned((packs + 1023) / 1024), 256>>>((uint4*)dw, packs); }),
           false);
    for (int per_sm : {16, 8, 32, 64, 0}) {
        char name[40];
        std::snprintf(name, sizeof name, per_sm ? "library grid %d/SM" : "library grid all rows", per_sm);
        const int grid = group_grid(per_sm);
        report(name, median_ms([&] { library_kernel(a, grid); }), true);
    }
    const int ymax = int(std::min<long long>(V, 65535));
    report("rows2d U1", median_ms([&] { rows2d<1, false><<<dim3((row_packs + 255) / 256, ymax), 256>>>(a, row_packs); }),
           true);
    report("rows2d U2", median_ms([&] { rows2d<2, false><<<dim3((row_packs + 511) / 512, ymax), 256>>>(a, row_packs); }),
           true);
    report("rows2d U2 .cs",
           median_ms([&] { rows2d<2, true><<<dim3((row_packs + 511) / 512, ymax), 256>>>(a, row_packs); }), true);
    CHECK_CUDA(cudaFree(dw));
    CHECK_CUDA(cudaFree(dw_ref));
    CHECK_CUDA(cudaFree(dy));
    CHECK_CUDA(cudaFree(owner));
    CHECK_CUDA(cudaFree(tag));
}

}  // namespace ewv

int main() {
    int dev = 0, sms = 0;
    CHECK_CUDA(cudaGetDevice(&dev));
    CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    cudaDeviceProp prop{};
    CHECK_CUDA(cudaGetDeviceProperties(&prop, dev));
    std::printf("%s, %d SMs\n", prop.name, sms);
    for (const ewv::Case& c : {ewv::Case{"bf16", 2, 128256, 4096}, ewv::Case{"f32", 4, 128256, 4096},
                               ewv::Case{"f32", 4, 64128, 4096}})
        ewv::run(c, sms);
    return 0;
}
