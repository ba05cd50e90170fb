// The rms_norm / layer_norm backwards with the rows stashed in shared memory
// (norm_backward_stash in vendors/gpu/norms.cu) under launch shapes the library could take:
// threads a block (B), packs a thread (C), blocks an SM the launch bounds ask for (M), and
// the rows a block's ring holds (S; the occupancy query then says how many blocks fit an
// SM). Question (2026-11-29, H200): the register-cached backwards stayed at 0.44-0.87 of
// the copy bandwidth, bounded by the rows registers keep in flight (x, dy and the fp32
// dweight/dbias sums share them); with the rows in shared memory, loaded by cp.async, do
// the bytes in flight stop bounding them? Each line times the row kernel plus the column
// sums, as the library launches them, and is checked against the library's cached or
// streamed kernels ("today": dx on the first and last four rows, dweight and dbias whole).
// Second question: rows split over a cluster of K blocks (the body's K, "cluster" lines),
// for fp32 rows of 16384 (x and dy 128 KB: one to a block without it) and against the
// one-block configs at 8192 and 16384 in bf16 (bench/results/2026-11-29-s13/r1: K 2 won
// for fp32 16384 and is the library's _k2 kernels; it lost in bf16). That run also had
// "knob" lines for two switches of the body since taken out (within 1 % either way):
// rms_norm's one-value reduction and the weight row in shared memory. Not part of the
// build:
//
//   nvcc -std=c++17 -O3 -arch=sm_90 -Xptxas -v -o norm_backward_stash \
//        bench/experiments/norm_backward_stash.cu 2> ptxas.txt
//   ./norm_backward_stash        # on the GPU machine
//
// Third question (2026-11-30): the ring filled by the Tensor Memory Accelerator, thread 0
// asking for each row's x and dy whole, against the per-thread cp.async copies (the Bulk
// switch of norm_backward_stash, a patch in the twenty-sixth session, in the library since
// the twenty-seventh for rms_norm's fp32 rows of 8192: kernel_params.h, norm_stash_bulk):
// build with -DOPK_EXP_BULK, and the sweep is the bulk lines beside the cp.async lines of
// the same launch (bench/results/2026-11-30-s27/r1, r4).
#include "../../vendors/gpu/norms.cu"
#include "norm_backward_harness.cuh"

template <int Op, typename T, int B, int C, int M, bool Ex>
__global__ void __launch_bounds__(B, M) stash_variant(const NormArgs a) {
    opk::norm_backward_stash<T, B, C, Op == kLn, Ex>(a);
}

template <int Op, typename T, int B, int C, int K>
__global__ void __cluster_dims__(K, 1, 1) __launch_bounds__(B, 1) stash_cluster_variant(const NormArgs a) {
    opk::norm_backward_stash<T, B, C, Op == kLn, true, K>(a);
}

#ifdef OPK_EXP_BULK
// The ring filled by the Tensor Memory Accelerator (norm_backward_stash's Bulk switch).
template <int Op, typename T, int B, int C, int M>
__global__ void __launch_bounds__(B, M) stash_bulk_variant(const NormArgs a) {
    opk::norm_backward_stash<T, B, C, Op == kLn, true, 1, 1, true>(a);
}
#endif

// Rows split over clusters of K blocks, each holding two slots of its part: the grid is the
// clusters that fit at once (cudaOccupancyMaxActiveClusters), at most one a row; one
// partial row a cluster.
template <int Op, typename T, int B, int C, int K>
static void run_stash_cluster(Shape& s) {
    auto k = stash_cluster_variant<Op, T, B, C, K>;
    constexpr int S = 2;
    const size_t smem = size_t(S) * 2 * size_t(s.n / K) * s.esize;
    if (cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)) != cudaSuccess) {
        cudaGetLastError();
        return;
    }
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = dim3(K);
    cfg.blockDim = dim3(B);
    cfg.dynamicSmemBytes = smem;
    int clusters = 0;
    if (cudaOccupancyMaxActiveClusters(&clusters, k, &cfg) != cudaSuccess || clusters == 0) {
        cudaGetLastError();
        return;
    }
    cudaFuncAttributes attr{};
    cudaFuncGetAttributes(&attr, k);
    char tag[96];
    std::snprintf(tag, sizeof tag, "stash cluster K%d B%d C%d S%d %dreg%s %d clusters", K, B, C, S, attr.numRegs,
                  attr.localSizeBytes ? " SPILL" : "", clusters);
    const int64_t groups = std::min<int64_t>(s.rows, clusters);
    const float ms = time_call(s, k, groups * K, B, smem, false, S, groups);
    print_line<T>(s, tag, ms, true);
}

// One line per ring size S that fits: x and dy of a row take 2 * n * sizeof(T) bytes.
// Bulk: the ring filled by the Tensor Memory Accelerator (OPK_EXP_BULK builds only).
template <int Op, typename T, int B, int C, int M, bool Ex = true, bool Bulk = false>
static void run_stash(Shape& s, std::initializer_list<int> ring_sizes) {
#ifdef OPK_EXP_BULK
    auto k = Bulk ? stash_bulk_variant<Op, T, B, C, M> : stash_variant<Op, T, B, C, M, Ex>;
#else
    static_assert(!Bulk, "build with -DOPK_EXP_BULK");
    auto k = stash_variant<Op, T, B, C, M, Ex>;
#endif
    cudaFuncAttributes attr{};
    cudaFuncGetAttributes(&attr, k);
    // The fp32 column sums that sit after the ring (norm_stash_shared_sums, kernel_params.h).
    const bool shared_sums = opk::norm_stash_shared_sums(int64_t(sizeof(T)), C, 1, Ex);
    for (int S : ring_sizes) {
        const size_t smem = size_t(S) * 2 * size_t(s.n) * s.esize + (shared_sums ? size_t(s.n) * 4 : 0);
        if (smem > size_t(attr.maxDynamicSharedSizeBytes) &&
            cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)) != cudaSuccess) {
            cudaGetLastError();
            continue;  // more than a block may have
        }
        int per_sm = 0;
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, B, smem);
        if (per_sm == 0) continue;
        char tag[96];
        std::snprintf(tag, sizeof tag, "stash%s B%d C%d M%d S%d%s%s %dreg%s %dblk/SM", Bulk ? " bulk" : "", B, C, M, S,
                      Ex ? "" : " guarded",
                      shared_sums ? " shared-sums" : "", attr.numRegs, attr.localSizeBytes ? " SPILL" : "", per_sm);
        const int64_t grid = std::min<int64_t>(s.rows, int64_t(sms) * per_sm);
        const float ms = time_call(s, k, grid, B, smem, false, S);
        print_line<T>(s, tag, ms, true);
    }
}

#ifdef OPK_EXP_BULK
// The bulk ring beside the library's own config for each width (kNormStashConfigs: 256 x 2
// at 512 packs, 512 x 2 at 1024, 512 x 4 at 2048), two to four slots (the bulk ring's
// most), and the cp.async ring of the same launch again for a same-run comparison.
template <int Op, typename T>
static void sweep(Shape& s) {
    constexpr int P = 16 / sizeof(T);
    const int64_t packs = s.n / P;
    if (packs == 512) {
        run_stash<Op, T, 256, 2, 2>(s, {2, 3, 4});
        run_stash<Op, T, 256, 2, 2, true, true>(s, {2, 3, 4});
    } else if (packs == 1024) {
        run_stash<Op, T, 512, 2, 1>(s, {2, 3});
        run_stash<Op, T, 512, 2, 1, true, true>(s, {2, 3});
    } else if (packs == 2048) {
        run_stash<Op, T, 512, 4, 1>(s, {2});
        run_stash<Op, T, 512, 4, 1, true, true>(s, {2});
    }
}
#else
template <int Op, typename T>
static void sweep(Shape& s) {
    constexpr int P = 16 / sizeof(T);
    const int64_t packs = s.n / P;
    if (packs == 1024 && sizeof(T) == 2) run_stash_cluster<Op, T, 256, 2, 2>(s);  // bf16 8192
    if (packs == 2048 && sizeof(T) == 2) {                                       // bf16 16384
        run_stash_cluster<Op, T, 512, 2, 2>(s);
        run_stash_cluster<Op, T, 256, 2, 4>(s);
    }
    if (packs == 4096) {  // f32 16384: only split rows fit two to a block
        run_stash_cluster<Op, T, 512, 4, 2>(s);
        run_stash_cluster<Op, T, 512, 2, 4>(s);
        return;
    }
    if (packs == 512) {  // bf16 4096
        run_stash<Op, T, 256, 2, 2>(s, {2, 3, 4, 6});
        run_stash<Op, T, 128, 4, 4>(s, {2, 3, 4});
        run_stash<Op, T, 512, 1, 2>(s, {2, 3, 4, 6});
        run_stash<Op, T, 256, 2, 2, false>(s, {3, 4});
    } else if (packs == 1024) {  // bf16 8192, f32 4096
        run_stash<Op, T, 512, 2, 1>(s, {2, 3, 4, 6});
        run_stash<Op, T, 256, 4, 2>(s, {2, 3});
        run_stash<Op, T, 512, 2, 2>(s, {2, 3});
        run_stash<Op, T, 512, 2, 1, false>(s, {4, 6});
    } else if (packs == 2048) {  // bf16 16384, f32 8192
        run_stash<Op, T, 512, 4, 1>(s, {2, 3});
        run_stash<Op, T, 1024, 2, 1>(s, {2, 3});
        run_stash<Op, T, 256, 8, 1>(s, {2, 3});
        run_stash<Op, T, 512, 4, 1, false>(s, {3});
    }
}

#endif

template <typename T>
static void sweep_op(int op, Shape& s) {
    if (op == kRms)
        sweep<kRms, T>(s);
    else
        sweep<kLn, T>(s);
}

int main() {
    return experiment_main([](const Buffers& b, int64_t elems) {
        all_shapes<opk_bf16>(b, elems, false, sweep_op<opk_bf16>);
        all_shapes<float>(b, elems, false, sweep_op<float>);
    });
}
