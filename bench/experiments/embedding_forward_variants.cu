// Embedding forward (a row gather) variants timed side by side on one GPU: not part of the
// build. It compiles vendors/gpu/embedding.cu into the same translation unit, so "current"
// is the library's kernel (opk_emb_fwd_<dtype>: rows2d's B128 U2 below; the launches it had
// before are described at its timing), and times it against:
//   rows2d<B,U>:  blockIdx.y walks the ids, blockIdx.x the row's packs: each thread copies
//                 U packs of one row (all loads before the stores), with no division;
//   rows2d_cs:    the same with streaming hints (__ldg for the table, __stcs for y);
//   bulk<S>:      one thread per block moves whole rows with the Hopper bulk-copy engine
//                 (cp.async.bulk global -> shared -> global, S rows staged, mbarriers).
// Each variant's output is compared byte for byte with the current kernel's. Timing: the
// median of 11 batches of 20 launches queued back to back between two events (the launch
// gaps of one call are not in it, as in bench/gpu_compare.py's queued timing).
//
//   nvcc -std=c++17 -O3 -arch=sm_90 -I vendors/gpu -o efv bench/experiments/embedding_forward_variants.cu
//   ./efv        # on the GPU machine: V 128256 x D 4096, 8192 int64 ids, bf16 and f32
#include "../../vendors/gpu/embedding.cu"
#include "cuda_check.cuh"
#include "embedding_fixture.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace efv {

template <bool Hint>
__device__ __forceinline__ uint4 ld16(const void* p) {
    if constexpr (Hint) return __ldg(reinterpret_cast<const uint4*>(p));
    else return *reinterpret_cast<const uint4*>(p);
}
template <bool Hint>
__device__ __forceinline__ void st16(void* p, uint4 v) {
    if constexpr (Hint) __stcs(reinterpret_cast<uint4*>(p), v);
    else *reinterpret_cast<uint4*>(p) = v;
}

// Dense rows of `packs` 16-byte packs; ids valid (the experiment's ids are).
template <int U, bool Hint>
__global__ void rows2d(const char* weight, const long long* ids, char* y, int packs, long long count) {
    for (long long k = blockIdx.y; k < count; k += gridDim.y) {
        const long long id = ids[k];
        const char* src = weight + id * (long long)packs * 16;
        char* dst = y + k * (long long)packs * 16;
        const int c0 = blockIdx.x * blockDim.x * U + threadIdx.x;
        uint4 v[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const int c = c0 + u * blockDim.x;
            if (c < packs) v[u] = ld16<Hint>(src + c * 16);
        }
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const int c = c0 + u * blockDim.x;
            if (c < packs) st16<Hint>(dst + c * 16, v[u]);
        }
    }
}

__device__ __forceinline__ unsigned smem_addr(const void* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// One thread moves rows blockIdx.x, + gridDim.x, ... through S shared-memory stages of
// row_bytes: the load of row j is issued before row j-1 is stored, so a load and a store
// are in flight at once per block.
template <int S>
__global__ void __launch_bounds__(32) bulk(const char* weight, const long long* ids, char* y, unsigned row_bytes,
                                           long long count) {
    extern __shared__ __align__(128) unsigned char stage[];
    __shared__ __align__(8) unsigned long long bar[S];
    if (threadIdx.x != 0) return;
    for (int s = 0; s < S; ++s)
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(&bar[s])));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    unsigned phase = 0;  // bit s: the parity to wait for on bar[s]
    long long j = 0, prev_k = -1;
    for (long long k = blockIdx.x; k < count; k += gridDim.x, ++j) {
        const int s = int(j % S);
        // The store that last read stage s (row j - S, with S - 2 stores issued since) must
        // have read it.
        asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(S - 2) : "memory");
        const unsigned b = smem_addr(&bar[s]), dst = smem_addr(stage + size_t(s) * row_bytes);
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"(row_bytes) : "memory");
        const char* src = weight + ids[k] * (long long)row_bytes;
        asm volatile(
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst),
            "l"(src), "r"(row_bytes), "r"(b)
            : "memory");
        if (prev_k >= 0) {  // store the previous row
            const int ps = int((j - 1) % S);
            const unsigned pb = smem_addr(&bar[ps]);
            const unsigned par = (phase >> ps) & 1u;
            asm volatile(
                "{ .reg .pred p; W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1; @!p bra W; }" ::"r"(pb),
                "r"(par)
                : "memory");
            phase ^= 1u << ps;
            asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
            asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(y + prev_k * row_bytes),
                         "r"(smem_addr(stage + size_t(ps) * row_bytes)), "r"(row_bytes)
                         : "memory");
            asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        }
        prev_k = k;
    }
    if (prev_k >= 0) {
        const int ps = int((j - 1) % S);
        const unsigned par = (phase >> ps) & 1u;
        asm volatile(
            "{ .reg .pred p; W2: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1; @!p bra W2; }" ::"r"(
                smem_addr(&bar[ps])),
            "r"(par)
            : "memory");
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(y + prev_k * row_bytes),
                     "r"(smem_addr(stage + size_t(ps) * row_bytes)), "r"(row_bytes)
                     : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    }
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

template <class F>
float batch_median_ms(F f) {
    cudaEvent_t a, b;
    CHECK_CUDA(cudaEventCreate(&a));
    CHECK_CUDA(cudaEventCreate(&b));
    for (int i = 0; i < 5; ++i) f();
    std::vector<float> t;
    for (int rep = 0; rep < 11; ++rep) {
        CHECK_CUDA(cudaEventRecord(a));
        for (int i = 0; i < 20; ++i) f();
        CHECK_CUDA(cudaEventRecord(b));
        CHECK_CUDA(cudaEventSynchronize(b));
        float ms = 0;
        CHECK_CUDA(cudaEventElapsedTime(&ms, a, b));
        t.push_back(ms / 20);
    }
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

}  // namespace efv

using namespace efv;

int main() {
    const long long V = 128256, D = 4096, count = 8192;
    int sms = 0;
    CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    for (int es : {2, 4}) {
        const long long row_bytes = D * es, packs = row_bytes / 16;
        const emb_fixture::Table tab(V, D, count, es);
        const char* w = tab.w;
        const long long* ids = reinterpret_cast<const long long*>(tab.ids);
        char *y, *yref;
        CHECK_CUDA(cudaMalloc(&y, count * row_bytes));
        CHECK_CUDA(cudaMalloc(&yref, count * row_bytes));
        const opk::EmbeddingArgs a = tab.args(yref);
        auto cur = es == 2 ? opk_emb_fwd_dense_bf16 : opk_emb_fwd_dense_f32;  // what the host picks here
        auto general = es == 2 ? opk_emb_fwd_bf16 : opk_emb_fwd_f32;          // any layout
        const char* name = es == 2 ? "bf16" : "f32";
        const double bytes = 2.0 * count * row_bytes;
        auto report = [&](const char* what, float ms, bool ok) {
            std::printf("%-5s %-26s %8.4f ms  %7.1f GB/s  %s\n", name, what, ms, bytes / ms / 1e6,
                        ok ? "same bytes" : "MISMATCH");
        };
        // The library's kernel with the library's launch (ops_embedding.cpp: x the part of
        // a row, y the row). Until f9f8e7e that kernel was one thread per pack on a grid
        // capped at 64 blocks of 256 per SM (efv-f9f8e7e-h200.txt: 0.0430 / 0.0803 ms);
        // then rows2d's B128 U2 on a 1-D grid, a block finding its row with one division
        // (efv-division-h200.txt: 0.0402 / 0.0763); now rows2d itself (the dense kernel
        // the host picks for this layout; "general" is the one for any layout). It is also launched
        // on 2048 grid rows (its loop over rows runs four times) and with twice the blocks
        // in x (blocks with nothing to copy).
        const long long span = opk::kEmbeddingForwardThreads * opk::kEmbeddingForwardUnroll;
        const unsigned per_row = unsigned((packs + span - 1) / span);
        const dim3 lib(per_row, unsigned(std::min<long long>(count, 65535)));
        const float t_lib = batch_median_ms([&] { cur<<<lib, opk::kEmbeddingForwardThreads>>>(a); });
        const bool lib_ok = tab.gathered(yref);  // the reference itself, against the table on the host
        report("library launch", t_lib, lib_ok);
        opk::EmbeddingArgs af = a;
        af.rows.data = y;
        auto same = [&] {
            std::vector<char> h1(count * row_bytes), h2(count * row_bytes);
            CHECK_CUDA(cudaMemcpy(h1.data(), y, h1.size(), cudaMemcpyDeviceToHost));
            CHECK_CUDA(cudaMemcpy(h2.data(), yref, h2.size(), cudaMemcpyDeviceToHost));
            const bool ok = std::memcmp(h1.data(), h2.data(), h1.size()) == 0;
            CHECK_CUDA(cudaMemset(y, 0, count * row_bytes));
            return ok;
        };
        const float t_cur =
            batch_median_ms([&] { cur<<<dim3(per_row, 2048), opk::kEmbeddingForwardThreads>>>(af); });
        report("lib kernel, 2048 grid rows", t_cur, same());
        const float t_full =
            batch_median_ms([&] { cur<<<dim3(2 * per_row, lib.y), opk::kEmbeddingForwardThreads>>>(af); });
        report("lib kernel, 2x grid x", t_full, same());
        const float t_gen = batch_median_ms([&] { general<<<lib, opk::kEmbeddingForwardThreads>>>(af); });
        report("lib general kernel", t_gen, same());
        auto run2d = [&](const char* what, auto kernel, int B, int U) {
            const unsigned gx = unsigned((packs + B * U - 1) / (B * U));
            const unsigned gy = unsigned(std::min<long long>(count, 65535));
            const float t = batch_median_ms([&] { kernel<<<dim3(gx, gy), B>>>(w, ids, y, int(packs), count); });
            char label[64];
            std::snprintf(label, sizeof label, "%s B%d U%d", what, B, U);
            report(label, t, same());
        };
        for (int B : {128, 256, 512}) {
            run2d("rows2d", rows2d<1, false>, B, 1);
            run2d("rows2d", rows2d<2, false>, B, 2);
            run2d("rows2d", rows2d<4, false>, B, 4);
            run2d("rows2d_cs", rows2d<1, true>, B, 1);
            run2d("rows2d_cs", rows2d<2, true>, B, 2);
        }
        auto runbulk = [&](const char* what, auto kernel, int S, int per_sm) {
            const size_t smem = size_t(S) * row_bytes;
            CHECK_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
            const unsigned grid = unsigned(std::min<long long>(count, (long long)sms * per_sm));
            const float t = batch_median_ms([&] { kernel<<<grid, 32, smem>>>(w, ids, y, unsigned(row_bytes), count); });
            char label[64];
            std::snprintf(label, sizeof label, "%s S%d %d/SM", what, S, per_sm);
            report(label, t, same());
        };
        for (int per_sm : {4, 8, 16}) {
            if (2 * row_bytes * per_sm <= 200 * 1024) runbulk("bulk", bulk<2>, 2, per_sm);
            if (3 * row_bytes * per_sm <= 200 * 1024) runbulk("bulk", bulk<3>, 3, per_sm);
        }
        runbulk("bulk", bulk<2>, 2, 64);  // as many blocks as fit
        CHECK_CUDA(cudaFree(y));
        CHECK_CUDA(cudaFree(yref));
    }
    return 0;
}
