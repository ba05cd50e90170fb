// Plain-data argument blocks passed by value from the host wrappers to the kernels (one
// struct per kernel family, launched through kernelParams). This header is compiled by
// both the host compiler (g++) and the device compiler (nvcc / hipcc), so it holds only
// fixed-width integers, floats and raw device pointers: the two sides must agree on the
// layout byte for byte.
#pragma once

#include <stdint.h>

// A rule both sides evaluate (the host to size a launch, a kernel at compile time); the
// device sources include gpu_compat.h, which declares __host__ / __device__, first.
#if defined(__CUDACC__) || defined(__HIPCC__)
#define OPK_PARAMS_RULE __host__ __device__
#else
#define OPK_PARAMS_RULE
#endif

namespace opk {

// Enough for any opkit tensor (ndim <= 8), before collapsing.
constexpr int kMaxDims = 8;

// A tensor seen as rows: row r starts `offset(r)` elements after `data`, and its elements
// are contiguous (opkit requires the innermost stride to be 1). The host collapses the
// outer dimensions first, so the common cases are nd = 0 (one row) and nd = 1
// (row r at r * stride[0]); the kernels only divide when nd > 1.
// Field order: what a kernel on a flat view reads (data, nd, vec, stride[0]) in the first
// 24 bytes, the sizes (only the walk over several outer dimensions reads them) last, and
// the Args structs below with their scalars before their views, so that the values the row
// kernels read sit close together in the parameter bank (by the views' sizes, 450-750
// bytes, the old order spread them over six to eight 64-byte lines). Measured on the H200
// against the old order (bench/experiments/hot-params-first.patch,
// bench/results/2026-12-02-s44/r4, three rounds bf16, two fp32): 28 rows of seven ops at
// 0.994-1.000 of the time (the rounds' means), none slower; the fixed-group kernels' SASS
// is the same but for the offsets. It costs opk_rms_bwd_long_{f16,bf16} 8-16 more bytes of
// stack and 12-21 more local accesses in their loops on sm_90 (the 2-byte rms_norm
// backward of long and of exact rows from 4096 elements where no cluster kernel takes
// them: before sm_90, and on the H200 with OPKIT_CUDA_CLUSTER_KERNELS=0). Measured there
// against the old order (bench/experiments/rows-view-old-order.patch,
// bench/results/2026-12-02-s45/r2, three rounds): bf16 rms_norm backward 2.5-3 % slower at
// rows of 4096 and 8192 (0.3 % at 16384), but f16 rms_norm 0.3-0.6 % and bf16 layer_norm
// at rows of 16384 1.8 % faster than under the old order: kernels that spill either way,
// no order better on all of them. The orders that kept those (stride[] before nd and vec,
// or after them with size[] first) spilled 48 bytes in opk_ln_bwd_stash_f16_s2_k2, an
// H200 path, instead.
struct RowsView {
    void* data;                // element 0 of row 0 (byte_offset applied)
    int32_t nd;
    int32_t vec;               // 1: every row start is 16-byte aligned (16-byte access ok)
    int64_t stride[kMaxDims];  // outer strides in elements
    int64_t size[kMaxDims];    // outer sizes, outermost first (entries [0, nd))
};

// A strided 1-D vector of statistics, targets or losses; data NULL = absent.
struct Strided {
    void* data;
    int64_t stride;  // elements
};

// Row-kernel shapes. `threads` threads share one row: a warp-sized group for short rows
// (several rows per block), or 0 = the whole block for longer ones, its size (a multiple
// of the warp size, at most 1024) chosen by the host so that each thread holds at most
// `chunks` 16-byte packs of the row. Those stay in registers in the tensor's own type,
// so the row is read from memory once; a row longer than 1024 * chunks packs streams
// (read twice, the second time mostly from L2).
struct RowConfig {
    int threads;         // threads per row; 0 = the whole block
    int rows_per_block;  // rows a block works on at once (1 when threads = 0)
    int chunks;          // 16-byte packs cached per thread (4-byte types)
    int chunks16;        // the same for 2-byte types, whose packs unpack to twice the values
    // Resident threads per SM the config's kernels are built for (their launch bounds);
    // 0 = the family's default (1024: 64 registers a thread on NVIDIA). Fewer leave more
    // registers a thread, and cap a whole-block config's block at that many threads.
    int resident = 0;
};
// The largest block a config is launched with (its launch bound).
constexpr int max_block(const RowConfig& c) {
    return c.threads ? c.threads * c.rows_per_block : (c.resident && c.resident < 1024 ? c.resident : 1024);
}
constexpr int chunks_for(const RowConfig& c, int element_size) { return element_size == 2 ? c.chunks16 : c.chunks; }

// Kernels that keep one row array (forward norms, softmax, cross-entropy): 4 packs per
// thread (16 registers) give every thread 64 bytes of loads in flight. Config 2 streams.
constexpr RowConfig kRowConfigs[3] = {{32, 4, 4, 4}, {0, 1, 4, 4}, {0, 1, 0, 0}};
// The fp32 forwards (softmax, rms_norm, layer_norm) for rows exact for eight packs a thread
// of blocks of 256 to 512 threads (kFwdWideMinPacks to kFwdWideMaxPacks packs, 8192 to
// 16384 floats in steps of 1024): kernels of their own with only the exact-row body,
// opk_{softmax,rms,ln}_fwd_wide_f32. Since the fixed-group kernels (FixedKernel, below)
// the rows of 8192 and 16384 take those, and the wide kernels the widths between. With
// config 1 above such rows took blocks of 512 to
// 1024 threads, one or two per SM, whose reductions nothing overlapped: on the H200 the
// f32 forwards at 4096x16384 reached 0.70 of the copy bandwidth, 0.72-0.78x Liger-Kernel,
// which caches the row in 512 threads. Measured there (bench/experiments/
// row_forward_variants.cu -DOPK_COMPARE_SHAPES, bench/results/2026-11-28-h200/rfv-*):
// 4096x16384 softmax 0.181 -> 0.139 ms and layer_norm 0.179 -> 0.144 with eight packs at
// 64 registers (two 512-thread blocks an SM); 8192x8192 0.146 -> 0.140 and 0.149 -> 0.144.
// rms_norm spilled there (60 bytes) and was faster with 128 registers, 512 resident
// threads an SM (kRowConfigsRmsFwdWide): 0.178 -> 0.156 and 0.146 -> 0.139. Rows of 4096
// floats were no faster with eight packs (softmax 0.266 -> 0.271 ms at 32768x4096; they
// take four, fixed, below); 2-byte rows spilled with eight packs and ran 1.1-3x slower.
constexpr RowConfig kRowConfigsFwdWide[3] = {{32, 4, 4, 4}, {0, 1, 8, 8}, {0, 1, 0, 0}};
constexpr RowConfig kRowConfigsRmsFwdWide[3] = {{32, 4, 4, 4}, {0, 1, 8, 8, 512}, {0, 1, 0, 0}};
constexpr int64_t kFwdWideMinPacks = 2048;
constexpr int64_t kFwdWideMaxPacks = 4096;
// The largest block the host gives those kernels (OPK_ROW_KERNEL_AT_MOST: AMD bounds).
constexpr int kFwdWideMaxBlock = int(kFwdWideMaxPacks / kRowConfigsFwdWide[1].chunks);
static_assert(kRowConfigsFwdWide[1].chunks == kRowConfigsRmsFwdWide[1].chunks, "one block bound for the three");
// The forwards (softmax, rms_norm, layer_norm) of rows exact for a block of 128, 256 or 512
// threads holding kFixedChunks16 packs a thread (2-byte types: 4096, 8192 or 16384
// elements) or, in fp32, kFixedChunksX4 (4096, and rms_norm's 8192) or kFixedChunks
// (softmax's and layer_norm's 8192, 16384): kernels of their own,
// opk_{softmax,rms,ln}_fwd_fixed_<dtype>_g<threads>[x4] (FixedKernel below names each with
// its group and packs), with the exact-row body alone and the
// group's size a compile-time constant (OPK_FIXED_ROW_KERNELS in rows.cuh): the packs'
// offsets are then immediates of the loads and stores. Nsight Compute counted 1.83x Liger-Kernel's instructions in the config-1 bf16
// rms_norm forward at 4096x16384 (805 distinct instructions executed against 435, most of
// the difference 64-bit address arithmetic, branches and bounds tests), and the exact body
// with a run-time group size spilled there. Measured on the H200
// (bench/experiments/row_forward_variants.cu, bench/results/2026-11-28-h200/rfv-fixed-*):
// bf16 rms_norm 32768x4096 0.1415 -> 0.1367 ms, 8192x8192 0.0790 -> 0.0723, 4096x16384
// 0.0838 -> 0.0747; layer_norm 0.1622 -> 0.1546, 0.0907 -> 0.0856, 0.0965 -> 0.0900;
// softmax 0.1352 -> 0.1328, 0.0748 -> 0.0725, 0.0800 -> 0.0774; fp32 rms_norm 4096x16384
// 0.155 (the wide kernel above) -> 0.1385. Other exact fp32 widths of 8192-16384 keep the
// wide kernels above. Two packs a thread (Liger's bf16 layer_norm shape at 4096) ran
// 1.2-1.8x slower (rfv-two-packs-h200.txt).
// The fp32 x4 kernels (fifteenth session, H200, through gpu_compare against the eight-pack
// and config-1 kernels, alternating twice: bench/results/2026-11-29-s15/r1, vD): rows of
// 4096 at 256 threads of four packs, where config 1 (the same shape with a run-time group)
// had run them: 32768x4096 rms_norm 0.2663 -> 0.2618 ms, layer_norm 0.2662 -> 0.2628,
// softmax 0.2605 -> 0.2563; rms_norm's rows of 8192 at 512 threads of four packs, two
// blocks an SM instead of four of 256 x 8: 8192x8192 0.1355 -> 0.1331. layer_norm and
// softmax measured 0.5-0.9 % slower so at 8192 and keep eight packs there.
constexpr int kFixedChunks = 8;
constexpr int kFixedChunksX4 = 4;
constexpr int kFixedChunks16 = 4;
// The fixed-group forwards ask L2 (sm_90+: one bulk prefetch by the group's first thread,
// rows.cuh prefetch_row_ahead) for the row kRowPrefetchAheadBytes of rows ahead of their
// own, so that the block that takes it finds it in L2 and the DRAM reads of later rows
// are in flight while this one is reduced. Measured on the H200 (twenty-fourth session,
// bench/results/2026-11-30-s24/r1, r2: gpu_compare --impls opkit, two or three rounds
// alternating with the library without it; time ratios): 1 MB ahead 0.970-0.995, 2 MB
// 0.943-0.996, 4 MB 0.930-0.991 at every fp32 and bf16 forward of softmax, rms_norm and
// layer_norm at 32768x4096, 8192x8192 and 4096x16384 (bf16 layer_norm 4096x16384 0.0781
// -> 0.0727 ms); a resident wave's rows ahead (8.4 MB at the bf16 shapes) 0.955-1.028 and
// 17 MB 1.22-1.39 (presumably the prefetched rows evicted before their blocks read them;
// not profiled). rope's
// 2-byte kernels prefetch as far ahead (rope.cu). Tried and not kept: the norm stash
// backwards one ring round ahead, the embedding forward's table rows, the softmax
// backward's exact rows (docs/PERFORMANCE.md, the twenty-fourth session).
constexpr int64_t kRowPrefetchAheadBytes = int64_t(4) << 20;
// The fp32 register-sum norm backwards (opk_{ln,rms}_bwd_regs_f32: 128 registers, no room
// for a next-row prefetch, so nothing is in flight while a block reduces and writes dx;
// Nsight Compute, opk_ln_bwd_regs_f32 at 8192x8192: DRAM 82 %, 0.56 eligible warps a
// scheduler, long-scoreboard stalls half the cycles) ask L2 for x's and dy's row
// kNormBwdRegsAheadBytes of rows ahead, as the forwards do. Measured on the H200
// (twenty-eighth session, bench/results/2026-11-30-s28/r3, two rounds alternating with the
// library without it; time ratios): 1 MB and 2 MB ahead fp32 layer_norm backward 8192x8192
// 0.961-0.962 (0.211 -> 0.203 ms; Nsight Compute, r6: the same DRAM bytes, the L2 hit rate
// 35 -> 48 %), rms_norm 32768x4096 0.996-0.997, the rest within 0.5 %; 4 MB 1.072 at
// layer_norm 8192x8192 (not profiled). The 2-byte layer_norm exact kernels, also without a
// next-row prefetch, measured 0.998-1.003 with it: they do not ask. The fp32 split stash
// kernels (rows of 16384 over a cluster of two) ask for their block's part of the rows
// too: rms_norm's this far ahead (4096x16384 0.973-0.989 of its time: r6 there, and
// bench/results/2026-11-30-s29/r1-r3), layer_norm's kLnSplitAheadBytes.
constexpr int64_t kNormBwdRegsAheadBytes = int64_t(1) << 20;
// layer_norm's fp32 split stash kernels ask L2 for their part of the rows this far ahead
// (8 rows of 16384 floats). Measured on the H200 (bench/results/2026-11-30-s29/r6, three
// rounds against none; time ratios at 4096x16384): 256 KB 0.996, 512 KB 0.982, 1 MB
// 1.008, 2 MB 1.013 (the twenty-eighth session's r6); other shapes do not take the kernels.
// As landed (bench/results/2026-12-01-s30/r1, three rounds): 0.986, fp32 layer_norm backward
// 0.8998 -> 0.916 of the copy bandwidth against the peers.
constexpr int64_t kLnSplitAheadBytes = int64_t(512) << 10;
// One fixed-group kernel as the host picks it (fixed_group_plan): rows of exactly
// threads * chunks packs. block_row: the kernel takes row blockIdx.x alone, with no row walk,
// so the host launches a block for every row (and passes over the kernel when the rows are
// more than such a grid can have); the others walk the rows of a grid the host caps.
struct FixedKernel {
    const char* name;
    int threads, chunks;
    bool block_row = false;
};
// The cross-entropy forwards of rows that a 512-thread block would stream
// (single_pass_plan): the streamed body at a fixed group of kCeFwdGroup threads, four
// blocks an SM. opk_ce_fwd_loss_<dtype> for the loss alone (no dlogits: the gradient code
// compiled out), opk_ce_fwd_grad_{f16,bf16} with dlogits where the rows in flight fit L2
// (ops_cross_entropy.cpp, fixed_forward_plan). Measured on the H200
// (bench/experiments/ce_loss_variants.cu, bench/results/2026-11-29-s10/r3, r4), 8192
// rows, ms: the loss alone bf16 V 32000 0.211 -> 0.143, V 128256 0.593 -> 0.495, f32
// 0.321 -> 0.253, 1.036 -> 0.948 (of that, removing the gradient code gave 3-7 %, 256
// threads instead of 512 -- four rows in flight an SM, not two -- most of the rest, and
// the compile-time group's shuffle stage 3-7 % more; 1536 or 2048 resident threads
// spilled and ran slower); with dlogits bf16 V 32000 0.363 -> 0.302 (gpu_compare: 0.355
// -> 0.306), while f32 ran 1.7 % slower at V 32000 (0.664 -> 0.675) and keeps its plans,
// and bf16 at V 128256 went 1.36 -> 1.41 in gpu_compare (r5; the experiment's other
// plan had it 1.479 -> 1.457): its rows do not fit L2 and keep the usual plan. The
// backward ran 2-6 % slower so and keeps its plans too.
constexpr int kCeFwdGroup = 256;
// The cross-entropy forward with dlogits of rows of kCeStashMinPacks packs or more, each
// row read once (stash_rows.cuh): opk_ce_fwd_stash_<dtype>_k<K>, K = 1, 2, 4 or 8 blocks
// of kCeStashBlock threads a row in a thread-block cluster (NVIDIA sm_90+), the smallest K
// whose part of a row fits kCeStashPartBytes of shared memory: three blocks an SM of the
// H200's 227 KB (ops_cross_entropy.cpp, stash_plan). For those rows they take the place of
// opk_ce_fwd_grad_* and of the two-pass config-1/2 kernels. Measured on the H200, the
// library A/B against a123759 (bench/results/2026-11-29-s11/r5, gpu_compare, 8192 rows,
// ms): bf16 V 128256 1.36 -> 1.215 (K 4), f32 2.87 -> 2.457 (K 8); V 32000 bf16 0.306 ->
// 0.282 (K 1), f32 0.657 -> 0.573 (K 2). In the experiment (bench/experiments/
// ce_stash_cluster.cu, r3) rows not 16-byte aligned (V 50257, element loads) went bf16
// 2.170 -> 1.292 (K 2), f32 1.690 -> 1.309 (K 4); 128 and 512 threads a block, larger
// parts (one or two blocks an SM) and the same kernel with synchronous loads (four packs
// in flight a thread) were slower.
constexpr int kCeStashBlock = 256;
constexpr int kCeStashMaxCluster = 8;  // the portable cluster size
constexpr int64_t kCeStashPartBytes = int64_t(64) << 10;
constexpr int64_t kCeStashMinPacks = 4000;  // bf16 V 32000: the shortest rows measured
// The norm backwards (rms_norm, layer_norm) with the rows stashed in shared memory
// (norms.cu, norm_backward_stash; NVIDIA sm_90+): blocks of `threads` threads, `chunks`
// 16-byte packs of a row a thread, a ring of kNormStashSlots rows (x and dy) a block, for
// rows of more than kNormStashMinPacks and at most 2048 packs, whole and 16-byte aligned:
// opk_{rms,ln}_bwd_stash_<dtype>_s<i> (config i; _exact where the row is exactly
// threads x chunks packs, no bounds tests); fp32 rows of at most kNormStashMaxPacks32 (rms_norm: kRmsStashMaxPacks32). Their registers hold no row, only the weight
// and dweight/dbias sums, so the bytes in flight are the ring's: the register-cached
// kernels kept 0.44-0.87 of the copy bandwidth. Measured on the H200 in
// bench/experiments/norm_backward_stash.cu (bench/results/2026-11-29-s12/r1, 2^27
// elements, ms with the column sums, against the old experiment's plan -- its config
// tables' kernels, not the special kernels the library took for some of these rows): bf16 layer_norm
// 32768x4096 0.357 -> 0.220, 16384x8192 0.370 -> 0.231, 8192x16384 0.513 -> 0.263;
// rms_norm 0.284 -> 0.207, 0.298 -> 0.206, 0.366 -> 0.239; f32 layer_norm 32768x4096 0.632
// -> 0.384, 16384x8192 0.642 -> 0.417; rms_norm 0.453 -> 0.390, 0.507 -> 0.409. Two and
// three slots measured within 1-2 % of four or six; 1024 threads of two packs spilled at
// 64 registers; the guarded (not exact) bodies 4-10 % slower in bf16. In the library
// (r2, gpu_compare A/B against ee5c790, three slots): bf16 layer_norm 0.83 / 0.83 / 0.72
// of the old times at 32768x4096 / 8192x8192 / 4096x16384, f16 0.89 / 0.86 / 0.77;
// rms_norm 1.03 / 0.86 / 0.97 bf16, 0.97 / 0.90 / 0.99 f16; fp32 rows of 4096 (against
// the register-sum kernels there) 0.97 (layer) / 0.98 (rms); fp32 rows of 8192 1.03 (layer)
// and 0.98 (rms) against the register-sum kernels (kRowConfigsNormBwdRegs32), which keep
// them: fp32 takes the stash up to kNormStashMaxPacks32 (rms_norm, measured again with two
// slots, up to kRmsStashMaxPacks32, below). Two slots, not three: rms_norm
// bf16 rows of 4096 0.227 -> 0.207 ms and fp32 0.410 -> 0.390 in the experiment, the
// others within 1.3 % either way.
// Registers (nvcc 13.0, sm_90): 80-127 a thread, no spill, except layer_norm's 2-byte s2
// kernels (four packs of weight, dweight and dbias at 128 registers: 48-84 bytes spilled;
// measured as above with it).
// Static shared memory a row kernel may declare (its reduction scratch: group_reduce.cuh's
// kReduceSlots floats, twice that in the norm stash backwards), which the host leaves
// free when it sizes dynamic shared memory (kStaticSharedReserve, device.h).
// 64 bytes more for the cluster-split stash kernels' row-sum exchange and 64 for the bulk
// ring's mbarriers (norms.cu, stash_rows.cuh).
constexpr int64_t kKernelStaticSharedMax = (int64_t(1) << 10) + 128;
struct NormStashConfig {
    int threads, chunks;
};
constexpr NormStashConfig kNormStashConfigs[3] = {{256, 2}, {512, 2}, {512, 4}};
constexpr int kNormStashSlots = 2;
// The 2-byte stash backwards of four packs a thread (config 2), on rows of exactly their
// threads x chunks packs (rows of 16384), not split over a cluster, keep one family of
// column sums in shared memory after the ring (the thread's own columns, no barrier), not
// in registers: layer_norm its dbias sums, rms_norm its dweight sums (its only ones).
// layer_norm: at the 128-register cap the register sums had spilled 40 bytes (bf16; f16
// 32), and the kernel's speed follows its spills (0.13 ms with 40 bytes at 4096x16384,
// 0.17-0.19 with 144-192, the seventeenth session); without them, on the H200 (A/B
// alternating twice, bench/results/2026-11-29-s18/r1): bf16 4096x16384 0.1310 -> 0.1223
// ms, f16 0.1331 -> 0.1269, every other 2-byte norm backward within 0.6 %. rms_norm: 126
// registers -> 96, no spill either way; one block of 512 an SM is issue-bound (Nsight
// Compute: warps waiting on each other), and the shared sums cost fewer instructions than
// they save: bf16 8192x16384 0.2209 -> 0.2117 ms (norm_backward_stash.cu, alternating
// twice, bench/results/2026-11-30-s20/r1). The same at two packs a thread (rows of 8192)
// ran 12-17 % slower, so it stays at four. The host adds n floats to the block's dynamic
// shared memory for them (stash_backward_plan).
OPK_PARAMS_RULE constexpr bool norm_stash_shared_sums(int64_t esize, int chunks, int split, bool exact) {
    return esize == 2 && chunks == 4 && split == 1 && exact;
}
// The 2-byte stash backwards that hold the thread's packs of each row in registers: every
// pack of x and dy out of the ring's slot before the first is used, and both passes (the
// row sums, then dx) from those registers instead of each reading the slot (norms.cu,
// norm_backward_stash). Nsight Compute on the H200 (thirty-first session,
// bench/results/2026-12-01-s31/r2) had the stash kernels' warps waiting on shared memory
// most of their stalls (short scoreboard 2.9 of 7.9 cycles an instruction, rms_norm bf16
// 4096x16384) with half their issue slots idle. Registers (nvcc 13.0, sm_90, no spill):
// rms_norm 80-96 -> 91-128, layer_norm 116-124 -> 121-128. Measured on the H200 (r4,
// gpu_compare A/B against cc58429's vendor, three rounds alternating; time
// ratios at 32768x4096 / 8192x8192 / 4096x16384): f16 rms_norm 1.001 / 0.989 / 0.953,
// layer_norm 0.974 / 0.964 / 0.938; bf16 layer_norm 0.991 / 0.976 / 1.016, rms_norm 1.030 /
// 1.001 / 1.011. So f16 everywhere and bf16 layer_norm at two packs a thread (rows of 4096
// and 8192); exact rows only (the guarded bodies were not measured), no cluster split.
OPK_PARAMS_RULE constexpr bool norm_stash_hold_row(int64_t esize, bool bf16, bool layer, int chunks, int split,
                                                   bool exact) {
    return esize == 2 && split == 1 && exact && (!bf16 || (layer && chunks == 2));
}
// layer_norm's 2-byte stash backwards run in clusters of kNormStashPair blocks, each
// taking its own rows, that add their column sums before writing them (norms.cu,
// merge_pair_sums): the partial rows are the grid's blocks / kNormStashPair. layer_norm
// only: measured on an H200 (twenty-second session), pairs made its bf16 backward at
// 4096x16384 5.4 % faster (two column sums a row) and rms_norm's 0-1.7 % slower at most
// shapes (one sum; the cluster barriers and a GPC's odd SM cost more than half its partial
// rows save).
constexpr int kNormStashPair = 2;
OPK_PARAMS_RULE constexpr bool norm_stash_pairs(bool layer, int64_t esize) { return layer && esize == 2; }
constexpr int64_t kNormStashMinPacks = 256;
constexpr int64_t kNormStashMaxPacks32 = 1024;
// rms_norm's fp32 rows go through the stash up to config 2 (512 threads of four packs:
// 2048 packs, rows of 8192), layer_norm's up to kNormStashMaxPacks32: measured on the H200
// (bench/results/2026-11-29-s14/r2, gpu_compare A/B alternating twice, 8192x8192) against
// the register-sum kernels, rms_norm 0.2148 / 0.2161 -> 0.2117 / 0.2123 ms, layer_norm
// 0.2155 / 0.2159 -> 0.2189 / 0.2187 (every other fp32 norm backward within 0.4 %).
constexpr int64_t kRmsStashMaxPacks32 = 2048;
// The stash backwards whose ring the Tensor Memory Accelerator fills (norms.cu,
// norm_backward_stash's Bulk; stash_rows.cuh, BulkRing): thread 0 asks for a row's x and
// dy whole (cp.async.bulk, mbarriers), in place of every thread's 16-byte cp.async copies.
// rms_norm's fp32 exact rows of config 2 (rows of 8192) only. On the H200
// (bench/experiments/norm_backward_stash.cu with -DOPK_EXP_BULK, the kernel with the column
// sums, six runs each: bench/results/2026-11-30-s27/r1, r4), ms, cp.async -> bulk: fp32
// 16384x8192 rms_norm 0.4080-0.4133 -> 0.4020-0.4068, layer_norm 0.4129-0.4150 ->
// 0.4070-0.4115 (its fp32 rows of 8192 take the register-sum kernels, kNormStashMaxPacks32,
// which its stash trails even so); fp32 rows of 4096 1-4 % slower; bf16 rows of 8192
// 7-12 % slower with two slots (with three, rms_norm's equal, layer_norm's 8 % slower), of
// 4096 and 16384 equal or slower. Through the library (r5): fp32 rms_norm 8192x8192
// 0.2099 -> 0.2051 ms.
OPK_PARAMS_RULE constexpr bool norm_stash_bulk(int64_t esize, int config, bool exact) {
    return esize == 4 && config == 2 && exact;
}
// Resident threads the stash kernels are built for: two 256-thread blocks an SM, or one
// of 512 (at most 128 registers a thread).
constexpr int kNormStashResident = 512;
// fp32 rows of more than kNormStashSplitMinPacks and at most kNormStashSplit x threads x
// chunks packs, an even count: two of them do not fit a block (x and dy of a row of 16384
// are 128 KB), so each row is split over a cluster of kNormStashSplit blocks, each holding a
// ring of its part, whose row sums the blocks add through distributed shared memory
// (opk_{rms,ln}_bwd_stash_f32_k2[_exact]). Measured on the H200 (bench/results/
// 2026-11-29-s13/r1, norm_backward_stash.cu, 8192x16384 with the column sums): rms_norm
// 0.534 -> 0.473 ms, layer_norm 0.651 -> 0.468 against the library's streamed kernels
// there; clusters of four blocks of 512 threads and two packs 0.695 / 0.678 (the grid of
// 30 clusters leaves SMs idle). In bf16, where a row fits a block, the split lost to the
// one-block configs (rows of 16384: 0.327 / 0.339 against 0.224 / 0.232).
constexpr NormStashConfig kNormStashSplitConfig = {512, 4};
constexpr int kNormStashSplit = 2;
constexpr int64_t kNormStashSplitMinPacks = 2048;
// Backward kernels keep two rows (dy and y; dy and x): half the packs per thread.
constexpr RowConfig kRowConfigsBwd[3] = {{32, 4, 2, 2}, {0, 1, 2, 2}, {0, 1, 0, 0}};
// softmax's backward of rows exact for config 1 here (four packs a thread in fp32, two in
// 2-byte types, whole aligned packs): opk_softmax_bwd_exact_<dtype>, the exact-row body
// alone. And 2-byte rows of kBwdWideMinPacks packs or more exact for eight packs a thread
// of at most 512 threads (kRowConfigsBwdWide16: 128 registers): opk_softmax_bwd_wide_<dtype>
// (but flat rows of exactly 2048 packs take opk_softmax_bwd_block_row_<dtype>_g512x4, below).
// Measured on the H200 (bench/experiments/softmax_backward_variants.cu,
// bench/results/2026-11-28-h200/sbv-*), against the general body of kRowConfigsBwd: fp32
// 32768x4096 0.386 -> 0.376 ms, 8192x8192 0.220 -> 0.191, 4096x16384 0.217 (streamed) ->
// 0.192; bf16 32768x4096 0.198 -> 0.189, 8192x8192 0.109 -> 0.104, and 4096x16384 0.120
// -> 0.100 with eight packs (0.115 with two packs in 1024 threads). A compile-time group
// size gained nothing more there (within 2 %).
constexpr RowConfig kRowConfigsBwdExact[3] = {{32, 4, 2, 2}, {0, 1, 4, 2}, {0, 1, 0, 0}};
constexpr RowConfig kRowConfigsBwdWide16[3] = {{32, 4, 2, 2}, {0, 1, 8, 8, 512}, {0, 1, 0, 0}};
constexpr int64_t kBwdWideMinPacks = 2048;
// 2-byte rows of exactly kBwdOnePackThreads packs (4096 elements) on views of at most one
// outer dimension: opk_softmax_bwd_one_pack_<dtype>, one pack of dy and y a thread in
// blocks of that many threads, kBwdOnePackResident threads an SM (32 registers), as
// Inductor's backward runs (2048 resident at 24-27 registers; Nsight Compute had it 2-3 %
// ahead of the exact kernel at 40 registers and 1536 resident). Measured on the H200
// (bench/experiments/softmax_backward_lean.cu, bench/results/2026-12-01-s37/r2): bf16
// 32768x4096 0.1917-0.1930 -> 0.1887-0.1897 ms; in the library (r3, r6: A/B, three rounds
// each) 0.997 and then, with the fixed-group sum, 0.988 more (0.1875 -> 0.1853 ms), f16
// 0.990 and 0.996; rows of 8192 at 1024 threads no faster
// (0.1001-0.1003 against 0.0984-0.1005), so rows of 4096 only. The library's own body at
// one pack and 32 registers (thirty-fourth session) was 1.3x slower: its row walk and
// bounds spill at that cap, which this kernel has neither of.
constexpr int kBwdOnePackThreads = 512;
constexpr int kBwdOnePackResident = 2048;
// 2-byte rows of exactly kBwdBlockRowThreads x kBwdBlockRowPacks packs (16384 elements) on
// views of at most one outer dimension: opk_softmax_bwd_block_row_<dtype>_g512x4, one block
// a row and a block for every row (the host launches as many blocks as rows, so the kernel
// has no row walk), four packs of dy and y a thread all in flight at once and kept raw across
// the row's barrier (refresh_pack), built for kBwdBlockRowResident threads an SM (63
// registers on sm_90, no spills): Liger-Kernel's shape there (one program a row of 16 warps,
// 49 registers, two an SM), where the eight-pack wide kernel holds 128 registers at 256
// threads. Measured on the H200 (bench/experiments/softmax-bwd-block-row.patch;
// bench/results/2026-12-01-s42/r3, r4: A/B, three rounds each): bf16 4096x16384 0.0969 ->
// 0.0965 ms (0.997) and 0.0969 -> 0.0964 (0.995), faster in every round. Measured and not
// taken: the same form for rows of 4096 (512 x 1, 28 registers; 1.002 against the one-pack
// kernel) and of 8192 (512 x 2, 40 registers, three blocks an SM; 0.999 against the exact
// kernel); rows of 16384 at 1024 x 2 (32 registers, 36 bytes of spills) 1.252; and with a
// row walk (80 registers, one block an SM) 1.035.
constexpr int kBwdBlockRowThreads = 512;
constexpr int kBwdBlockRowPacks = 4;
constexpr int kBwdBlockRowResident = 1024;
// rms_norm's forward of rows of exactly threads x chunks packs (OPK_RMS_TWICE_KERNELS,
// below) on views of at most one outer dimension: opk_rms_fwd_twice_<dtype>_g<threads>x<packs>
// (2-byte rows of 8192 and 16384: opk_rms_fwd_twice_block_row_<dtype>_g512x<packs>, below), one block a row
// that reads the row twice, as Inductor's kernels do -- the sum of squares
// over x loaded with L2's evict_last policy, then x again (evict_first) and the weight for y
// -- so that no register holds a row or the weight across the row's barrier; two packs a
// thread, built for kRmsFwdTwiceResident threads an SM (28-32 registers on sm_90, no
// spills). Measured on the H200 against the fixed-group kernels that hold the row
// (bench/experiments/norm_forward_lean.cu's twiceH lines, three runs,
// bench/results/2026-12-01-s38/r3), ms: bf16 32768x4096 0.1344-0.1363 -> 0.1324-0.1338 (256
// x 2), 8192x8192 0.0724-0.0727 -> 0.0702-0.0708 (512 x 2); fp32 32768x4096 0.2588-0.2603
// -> 0.2562-0.2580 (512 x 2). In the library (r4, gpu_compare A/B, three rounds): bf16
// 0.987 / 0.985 (rows of 4096 / 8192), f16 0.983 / 0.982, fp32 0.986 (4096). Not taken then:
// 2-byte rows of 16384 at 512 x 4 (harness 0.987, library 1.005-1.006; taken since the
// forty-eighth session with the L2 ahead, rms_fwd_twice_l2_ahead below), fp32 rows of 8192
// (harness 1.01) and 16384 (0.991); the same shapes holding the row ran no faster than the
// fixed kernels (bf16 256 x 2 at 32768x4096 0.1367 against 0.1332-0.1339; s38 r1).
// fp32 rows of 16384 at 1024 x 4 (opk_rms_fwd_twice_f32_g1024x4: Inductor's best config for
// its static 4096x16384 kernel, one program of 32 warps a row, four packs a thread; s39
// r6/best-configs.txt): library A/B against the fixed 512 x 8 kernel, three rounds, 4096x16384
// 0.1326 -> 0.1305 ms (0.985; s40 r1/ab-tw1.txt); its 512 x 4 sibling at 8192x8192 was 1.014
// slower then (before the x loads ahead, below). Inductor's cache hints on top (x L1::evict_last with L2's
// evict_last policy, then L1::evict_first) 0.982, but 1.005 slower on bf16 rows of 8192;
// rstd as rsqrtf (norm-fwd-rsqrt.patch) changed no norm forward (0.999-1.003, s40 r1/ab-rq.txt),
// nor Inductor's hints on the fp32 twice kernels alone (0.999-1.001, s40 r3/ab-h.txt); the
// second read's x all ahead of the stores did (rms_forward_twice in norms.cu). With those
// loads ahead, fp32 rows of 8192 at 512 x 4 (Inductor's config there, 16 warps) with its L1
// hints (opk_rms_fwd_twice_f32_g512x4; x L1::evict_last with L2's evict_last policy, then
// L1::evict_first; the weight L1::evict_last): A/B against the fixed 512 x 4 kernel, three
// rounds, 8192x8192 0.1310 -> 0.1303 ms (0.995; s41 r2/ab-w2.txt); the same kernel without
// the L1 hints 1.003 (r2/ab-w1.txt). One block a row with a block for every row, no row walk
// (FixedKernel::block_row; bench/experiments/rms-fwd-twice-block-row.patch, 16-24 fewer
// instructions a kernel, the same registers): A/B against the walking kernels, three
// rounds (s43 r3/ab-tb.txt), bf16 8192x8192 0.0670 -> 0.0663 ms (0.989, faster in every
// round), so 2-byte rows of 8192 take it (opk_rms_fwd_twice_block_row_<dtype>_g512x2); bf16
// rows of 4096 1.002 and 16384 (not a twice kernel) 1.002, fp32 0.999-1.001: those walk
// (the 2-byte rows of 16384 took a fixed-group kernel one row a block from 23dfc0c,
// measured 0.995 in that form: rms_fwd_block_row below; a twice kernel since the
// forty-eighth session, below).
constexpr int kRmsFwdTwiceResident = 2048;
// The 2-byte twice kernels ask L2 for x's row kRowPrefetchAheadBytes of rows ahead, as the
// fixed-group forwards do (norms.cu, twice_row_ahead), and so rows of 16384 take a twice
// kernel too (512 x 4, one block a row, 32 registers and no spill on sm_90: cuobjdump and
// scripts/check-cuda-spills.py on the build VM). Measured on the H200 (forty-eighth
// session, bench/results/2026-12-02-s48/r3/ab-fwd.txt: gpu_compare A/B against the kernels
// without it, three rounds; bench/experiments/norm-fwd-twice-l2-ahead.patch), time ratios
// at 32768x4096 / 8192x8192 / 4096x16384: bf16 0.993 / 0.995 / 0.993, f16 0.995 / 0.992 /
// 0.987 (rows of 16384 against the fixed kernel one block a row, which has the prefetch);
// fp32's twice kernels 0.998 / 1.002 / 1.000 with it, so they keep none.
OPK_PARAMS_RULE constexpr bool rms_fwd_twice_l2_ahead(int element_size) { return element_size == 2; }
// layer_norm's fp32 forward of rows of exactly 2048 packs (8192 floats) on views of at most
// one outer dimension: opk_ln_fwd_params_f32_g512x4 (OPK_LN_PARAMS_KERNELS, below; ln_forward_params
// in norms.cu), 512 threads of four packs that load their weight and bias packs beside x at
// the row's start, so the output pass waits on no load (the fixed kernel, 256 x 8, reads
// each weight and bias pack as it writes y, with nothing ahead at eight packs a thread).
// Measured on the H200 in bench/experiments/norm_forward_lean.cu, whose held lines load
// weight and bias so (bench/results/2026-12-01-s38/r1, r5): 512 x 4 at 64 registers
// 0.1329-0.1333 ms against the fixed kernel's 0.1367-0.1384 at 8192x8192 (the fixed groups'
// own body at 512 x 4 had measured 1.005 of 256 x 8 in the fifteenth session). In the
// library (r9, gpu_compare A/B, three rounds): 0.1345-0.1348 -> 0.1323-0.1325 ms (0.982);
// the other fp32 layer_norm rows, which do not take it, 1.000-1.001. AMD builds it for 512
// resident threads a CU (norms.cu says why).
// The norms' backward also adds into dweight/dbias sums: one pack per thread for 2-byte
// types keeps them within the 64 registers that 1024 resident threads per SM allow
// (measured with ptxas -v: two packs of bf16 spill).
constexpr RowConfig kRowConfigsNormBwd[3] = {{32, 4, 2, 1}, {0, 1, 2, 1}, {0, 1, 0, 0}};
// layer_norm's backward for 2-byte types: cached rows hold two packs per thread in blocks
// of at most 512 threads built for 512 resident threads (128 registers: the x and dy packs,
// the next row's, and the dweight and dbias sums, without spilling). Measured on the H100
// (bench/experiments/norm_backward_variants.cu, bench/results/2026-11-27-norm-bwd/):
// bf16 32768x4096 0.484 -> 0.394 ms, 16384x8192 0.460 -> 0.403 ms against one pack per
// thread at 64 registers; longer rows take kRowConfigsNormBwd16Long below. rms_norm's
// backward measured no faster this way and keeps kRowConfigsNormBwd.
constexpr RowConfig kRowConfigsLnBwd16[3] = {{32, 4, 2, 1}, {0, 1, 2, 2, 512}, {0, 1, 0, 0}};
// Both norm backwards for fp32 rows exact for config 1 here (four packs a thread of at
// most 512 threads) from kNormBwdRegs32MinPacks packs (4096 to 8192 floats in steps of
// 512 on NVIDIA, 1024 with 64-wide wavefronts): opk_{ln,rms}_bwd_regs_f32, the exact-row
// body with the dweight(/dbias) sums in registers and the weight row in shared memory,
// 128 registers, as Liger-Kernel's layer_norm holds a row of 8192 floats in 512 threads.
// kRowConfigsNormBwd's fp32 kernels hold two packs at 64 registers: layer_norm's sums in
// shared memory there (two arrays of register sums spilled), and both spilled anyway.
// Nsight Compute on the H200 (layer_norm, 8192x8192): the shared-sum kernel executed 5.3x
// Liger's instructions and reached 54 % of DRAM bandwidth against Liger's 81 %. Library
// A/B there against the kernels of kRowConfigsNormBwd: layer_norm 32768x4096 0.585 ->
// 0.401 ms, 8192x8192 0.316 -> 0.217; rms_norm 0.399 -> 0.395, 0.219 -> 0.216
// (bench/results/2026-11-28-h200/ab-{lnregs,rmsregs}-*). Shorter rows (1024-3584 floats
// are exact for it too) were not measured and keep kRowConfigsNormBwd.
constexpr RowConfig kRowConfigsNormBwdRegs32[3] = {{32, 4, 2, 1}, {0, 1, 4, 4, 512}, {0, 1, 0, 0}};
constexpr int64_t kNormBwdRegs32MinPacks = 1024;
// Both norm backwards, 2-byte types, for the rows that stream in their own table but fit
// four packs per thread of a 512-thread block (1025 to 2048 packs: bf16 8193 to 16384
// elements; rms_norm also for its exact rows from kRmsBwd16ExactMinPacks, below):
// config 1 here is the kernel opk_{ln,rms}_bwd_long_{f16,bf16}, without the
// next-row prefetch (with it, it spilled more and ran slower), reading the weight from
// shared memory (kNormBwdSharedWeightPacks). Measured on the H100
// (bench/experiments/norm_backward_variants.cu, bench/results/2026-11-27-norm-bwd/ and
// 2026-11-28-norm-bwd/): bf16 8192x16384 layer_norm 0.620 ms streamed -> 0.4925 with the
// weight read at each use -> 0.412 from shared memory; rms_norm 0.427 streamed -> 0.358.
constexpr RowConfig kRowConfigsNormBwd16Long[3] = {{32, 4, 2, 1}, {0, 1, 4, 4, 512}, {0, 1, 0, 0}};
// rms_norm's backward, 2-byte rows of this many packs or more (bf16 4096 elements) that are
// exact for kRowConfigsNormBwd16Long's config 1 (four whole packs a thread, 16-byte
// aligned: ExactRows) take that kernel with its exact-row body, which the rows of its own
// table do not have. Measured on the H100 (norm_backward_variants.cu -DOPK_EXACT_SWEEP,
// bench/results/2026-11-28-norm-exact/), bf16, 2^27 elements: 32768x4096 0.314 ms (one
// pack a thread, 64 registers) -> 0.305; 16384x8192 0.336 -> 0.302; and the four-pack
// kernel's own rows, 8192x16384, 0.362 -> 0.319 with the exact body (it spills 24 bytes
// instead of 120). The same body cost layer_norm's backward 1-8 % (it spills more there),
// and rows not exact keep the general body, as before. Shorter rows were not measured.
// On gfx900/906/908 the four-pack kernel has no exact body (kExactPath), so there these
// rows run its general body instead of the one-pack kernel: not measured on AMD.
constexpr int64_t kRmsBwd16ExactMinPacks = 512;
// Packs per thread from which a norm backward's block-wide config (1) reads the weight from
// a copy of the weight row in shared memory, made once per block (norms.cu, WeightPacks),
// instead of from global memory at each use. The four-pack kernels spilled less and ran
// 1.19-1.22x faster that way; the one- and two-pack kernels with the next-row prefetch ran
// 2-7 % slower (the same experiment, 2026-11-28), so they keep the global reads.
constexpr int kNormBwdSharedWeightPacks = 4;

// rms_norm / layer_norm, forward and backward.
struct NormArgs {
    int64_t rows, n;
    const void* weight;  // [n] or NULL
    const void* bias;    // [n] or NULL (layer_norm forward)
    float eps;
    float weight_offset;
    int32_t weight_vec, bias_vec;  // 1: weight / bias 16-byte aligned
    int32_t want_dweight, want_dbias;
    int32_t shared_sums;  // 1: cached rows sum dweight/dbias in dynamic shared memory
    int32_t exact;        // 1: the rows are exact for the launched config (kExactPath)
    int32_t stash_slots;  // stash backwards: rows of x and dy a block's ring holds
    Strided mean, rstd;  // fp32 [rows]
    float* partial;      // backward: [groups][n] dweight partials, then [groups][n] dbias
    RowsView x, y;    // forward: x -> y
    RowsView dy, dx;  // backward: (dy, x) -> dx
};

// softmax forward (a = x -> out = y) and backward (a = dy, b = y -> out = dx).
struct SoftmaxArgs {
    int64_t rows, n;
    int32_t exact;  // 1: the rows are exact for the launched config (kExactPath)
    RowsView a, out, b;
};

// cross-entropy forward and backward over logits [rows, V].
struct CrossEntropyArgs {
    Strided target;       // int32 or int64
    Strided lse;          // forward: output (optional); backward: input (optional)
    Strided loss;         // forward: per-row loss (output or scratch)
    Strided dloss;        // backward: [] or [rows]
    const unsigned long long* valid_rows;  // MEAN: count of non-ignored rows, else NULL
    int64_t rows, V, ignore_index;
    float label_smoothing;
    int32_t target64;
    int32_t dloss_per_row;
    RowsView logits;
    RowsView grad;        // dlogits; data NULL = not wanted (forward)
};

// Counts targets != ignore_index (MEAN needs it before any gradient is written).
struct CountValidArgs {
    Strided target;
    int64_t rows, ignore_index;
    unsigned long long* count;  // zeroed by the host
    int32_t target64;
};

// Reduces per-row losses to one fp32 scalar: sum, or sum / *divisor (MEAN), or (MEAN
// with count_targets) sum / the non-ignored targets among target[0, count), which the
// kernel counts itself (a forward without dlogits needs the count nowhere else).
struct LossSumArgs {
    const float* values;
    int64_t count;
    const unsigned long long* divisor;  // NULL = plain sum (or counted, below)
    float* out;
    Strided target;  // count_targets only
    int64_t ignore_index;
    int32_t target64, count_targets;
};

// Sums partials [groups][n] over groups into out[n] (dweight / dbias), converted to T.
// A block covers kColumnSumColumns columns with kColumnSumThreads threads: each column's
// groups are split over kColumnSumThreads / kColumnSumColumns threads. Blocks of grid row
// y sum partial array y ([2][groups][n] for layer_norm: dweight's, then dbias's) into
// out[y]; a NULL out[y] (that gradient not wanted) leaves its blocks nothing to do. One
// launch for both, after the row kernel, which it may overlap (launch_dependent).
constexpr int kColumnSumColumns = 32;
constexpr int kColumnSumThreads = 512;
// From rows of kColumnSumQuadsMinColumns (n a multiple of four, the partials 16-byte
// aligned: the vendor's own scratch) the host launches opk_column_sum4, whose lanes sum
// four adjacent columns with 16-byte loads, a block 4 x kColumnSumColumns columns: a
// quarter the blocks and the load instructions, the same additions in the same order a
// column (the same results). Measured on the H200 (bench/results/2026-11-30-s29/r1 and r2,
// three rounds each alternating with the scalar kernel; time ratios of the whole
// backward): layer_norm 4096x16384 0.979-0.986 bf16, 0.991-0.992 fp32; rms_norm 0.995-0.999.
// With quads from four columns rms_norm bf16 32768x4096 was 1.005 (one gradient's 4096
// columns are 32 blocks of quads), so narrower rows keep one column a lane.
constexpr int64_t kColumnSumQuadsMinColumns = 16384;
struct ColumnSumArgs {
    const float* partial;
    int64_t groups, n;
    void* out[2];
};

// The dense element-wise kernels' access: the bytes a thread moves of each tensor, for fp32
// and for the 2-byte types. One 16-byte pack, but 8 bytes (half a pack) for the backwards
// that measured faster so on the H200 (fiftieth session): the kernels of
// bench/experiments/elementwise_layouts.cu at 8 bytes a thread took 0.991-0.997 of the
// library's time on the gated backwards (bench/results/2026-12-02-s50/r2), and the library
// built with 8-byte dense gated kernels (bench/experiments/ew-dense-8-byte.patch; A/B three
// rounds, r3) ran the swiglu
// backward at 0.992-0.994 of its time (bf16 4096x16384 0.999) and the fp32 geglu(tanh)
// backward at 0.990-0.991, but the bf16 geglu(tanh) backward at 1.007-1.011 and every
// forward (two tensors read, one written) at 1.04-1.10. geglu's erf form keeps the pack:
// not measured (its accurate erfc and exp make more of the time arithmetic). f16 follows
// bf16 (the same kernels but for the conversion; r4, old / new: the f16 swiglu backward
// 1.005 / 1.006 / 0.999 at 32768x4096 / 8192x8192 / 4096x16384). The 2-byte geglu(tanh)
// backward joined the 8-byte kernels when their body became straight-line (fifty-first
// session, bench/experiments/ew-dense-half-straight.patch; A/B three rounds,
// bench/results/2026-12-02-s51/r3, new / old: bf16 geglu(tanh) backward 0.997 / 0.995 /
// 1.001 at 32768x4096 / 8192x8192 / 4096x16384, the bf16 swiglu backward 1.001 / 0.999 /
// 0.996, the fp32 backwards 1.000-1.003, the forwards, which kept the pack, 0.998-1.001).
struct EwDenseAccess {
    int f32, two_byte;
};
constexpr EwDenseAccess kEwDensePack{16, 16};
constexpr EwDenseAccess kSwigluBwdDense{8, 8};
constexpr EwDenseAccess kGeluTanhBwdDense{8, 8};
OPK_PARAMS_RULE constexpr int ew_dense_bytes(EwDenseAccess a, int element_size) {
    return element_size == 4 ? a.f32 : a.two_byte;
}

// Element-wise ops over up to five same-shape tensors (swiglu, geglu, axpy, scale).
struct ElementwiseArgs {
    int64_t rows, n;
    float alpha;
    RowsView t[5];  // inputs first, then outputs; see each op
};

// rope over x [B,T,H,D] with cos/sin [T,D] or [B,T,D].
struct RopeArgs {
    const void* x;
    void* y;
    const void* cos;
    const void* sin;
    int64_t B, T, H, D;
    int64_t xs[3], ys[3];  // element strides of b, t, h (d is 1)
    int64_t cs[2], ss[2];  // element strides of b (0 for [T,D]) and t
    int32_t vec;           // 1: 16-byte packs on every row and on both halves
    int32_t backward;
    // Block shape, chosen by the host: `width` threads (a power of 2) over the packs of a
    // half, `groups` of them over the heads of one position (each thread keeps that
    // position's cos/sin packs and loops over heads g, g + groups, ...), and `per_block`
    // positions per block (width * groups * per_block threads; a block of opk_rope_qk may
    // have more, which wait).
    int32_t width, groups, per_block;
};
// rope on q and k in one launch (opkit_rope_qk_*): blocks [0, q_blocks) rotate q as
// opk_rope's grid of q_blocks blocks would, the rest k likewise; the same cos/sin.
struct RopeQkArgs {
    RopeArgs q, k;
    int64_t q_blocks;
};
// Heads a rope thread loads before it computes (groups = ceil(H / kRopeHeads)). The
// device takes any H per thread; on AMD targets with a 256-entry VGPR file it loads two at
// a time (rope.cu).
constexpr int kRopeHeads = 4;
// opk_rope_dense (rope.cu, rope_dense): where x and y are dense [B,T,H,D] and a head's
// 16-byte packs are a power of two from 2 to 32 (a head's packs within a warp), one rope
// call runs kRopeDensePacks packs a thread in blocks of kRopeDenseThreads threads over
// every pack, each pack's partner half taken from its partner lane by a warp shuffle.
// Measured on the H200 (bench/results/2026-12-01-s35/r4, r5; three A/B rounds each against
// opk_rope at 4x4096x32x128): two packs a thread f32 0.981 (forward) / 0.983 (backward),
// bf16 0.990 / 0.985; four packs 0.987-0.989 f32, 1.001-1.003 bf16; one pack a thread in
// 256-thread blocks 1.028 f32, 1.046-1.049 bf16 (slower).
constexpr int kRopeDenseThreads = 128;
constexpr int kRopeDensePacks = 2;

// embedding forward (weight rows gathered into y) and backward (dy rows summed into
// dweight). The backward's maps and lists are stream-ordered scratch; see embedding.cu.
// The embedding forward's launch: blocks of this many threads, each thread copying this
// many 16-byte packs of one output row (vendors/gpu/embedding.cu).
constexpr int kEmbeddingForwardThreads = 128;
constexpr int kEmbeddingForwardUnroll = 2;

struct EmbeddingArgs {
    const void* weight;   // forward: [V, D]
    int64_t weight_stride;
    int32_t weight_vec;
    int32_t ids64;
    unsigned long long* owner;  // [V]: the first position k holding the id; ~0 = none
    unsigned long long* tag;    // [V]: 0 one position, 1 repeated, then 2 + accumulator row
    unsigned long long* counters;  // [3]: accumulator rows, owner list, others list
    unsigned long long* owners;    // [count]: positions owning a repeated id
    unsigned long long* others;    // [count]: the other positions of repeated ids
    float* acc;           // fp32 accumulator rows of repeated ids (dweight itself for f32)
    int64_t acc_stride;   // elements
    int32_t acc_vec;      // 1: accumulator rows 16-byte aligned
    int32_t acc_is_dweight;  // 1: the accumulator row of id v is dweight row v
    int64_t count, V, D;
    int64_t padding_idx;
    RowsView ids;         // one "row" per id (the id tensor flattened)
    RowsView rows;        // forward: y; backward: dy; [count, D]
    RowsView dweight;     // backward: [V, D]
};

}  // namespace opk

// Kernel names: opk_<family>_<dtype>[_c<config> | _g<threads>]. The device files paste them from these
// stems and the host spells them through the same macros, so both sides agree.
#define OPK_DTYPE_NAMES(stem) \
    { stem "_f32", stem "_f16", stem "_bf16" }
// Element-wise kernels: [0] any row layout, [1] dense tensors (opk_<op>_dense_<dtype>).
#define OPK_EW_NAMES(stem) \
    { OPK_DTYPE_NAMES(stem), OPK_DTYPE_NAMES(stem "_dense") }
#define OPK_ROW_NAMES(stem)                                         \
    {                                                               \
        {stem "_f32_c0", stem "_f32_c1", stem "_f32_c2"},           \
            {stem "_f16_c0", stem "_f16_c1", stem "_f16_c2"},       \
            {stem "_bf16_c0", stem "_bf16_c1", stem "_bf16_c2"},    \
    }
// The stash kernels of one dtype (kCeStashBlock): [i] has clusters of 2^i blocks.
#define OPK_STASH_NAMES(stem) \
    { stem "_k1", stem "_k2", stem "_k4", stem "_k8" }
// The norm stash kernels of one family (kNormStashConfigs): [dtype][config][exact].
// sfx: "_k2" where the kernels run in pairs of blocks (norm_stash_pairs), "" elsewhere. Every
// kernel that uses distributed shared memory has _k<cluster> in its name, which is what
// scripts/gpu-check.sh's racecheck step instruments: racecheck cannot leave such a kernel
// uninstrumented (docs/gpu-runs.md, 2026-11-30); scripts/check-cluster-kernel-names.py checks
// the rule on the sm_90 SASS (a kernel with the cluster barrier has the suffix, and only such).
#define OPK_NORM_STASH_TYPE(stem, dt, sfx)                                                         \
    {                                                                                              \
        {stem "_" dt "_s0" sfx, stem "_" dt "_s0" sfx "_exact"},                                   \
            {stem "_" dt "_s1" sfx, stem "_" dt "_s1" sfx "_exact"},                               \
            {stem "_" dt "_s2" sfx, stem "_" dt "_s2" sfx "_exact"},                               \
    }
// layer_norm's fp32 has no s2 kernel (kNormStashMaxPacks32), rms_norm's has
// (kRmsStashMaxPacks32); layer_norm's 2-byte kernels run in pairs (norm_stash_pairs).
#define OPK_LN_STASH_NAMES(stem)                                                                    \
    {                                                                                               \
        {{stem "_f32_s0", stem "_f32_s0_exact"}, {stem "_f32_s1", stem "_f32_s1_exact"}, {nullptr, nullptr}}, \
            OPK_NORM_STASH_TYPE(stem, "f16", "_k2"), OPK_NORM_STASH_TYPE(stem, "bf16", "_k2")       \
    }
#define OPK_RMS_STASH_NAMES(stem) \
    { OPK_NORM_STASH_TYPE(stem, "f32", ""), OPK_NORM_STASH_TYPE(stem, "f16", ""), OPK_NORM_STASH_TYPE(stem, "bf16", "") }
// The fp32 kernels split over clusters of kNormStashSplit blocks: [exact].
#define OPK_NORM_STASH_SPLIT_NAMES(stem) \
    { stem "_f32_k2", stem "_f32_k2_exact" }
static_assert(opk::kNormStashSplit == 2, "the split kernels' names say k2");
static_assert(opk::kNormStashMaxPacks32 == int64_t(opk::kNormStashConfigs[1].threads) * opk::kNormStashConfigs[1].chunks,
              "layer_norm's fp32 has the stash kernels of configs 0 and 1 only");
static_assert(opk::kRmsStashMaxPacks32 == int64_t(opk::kNormStashConfigs[2].threads) * opk::kNormStashConfigs[2].chunks,
              "rms_norm's fp32 has the stash kernels of every config");
namespace opk {
// The fixed-group forwards that take one row a block (FixedKernel::block_row in the tables
// below; their *_forward_exact bodies run the row loop with BlockRow on flat_rows_copy's
// arguments, rows.cuh), by element size and group: the same function picks the kernel's body
// and the host's launch, and each family's table macro below binds its own. With
// every fixed-group forward so (bench/experiments/fixed-forward-block-row.patch), on the
// H200 (bench/results/2026-12-02-s44/r1, three rounds, time ratios against walking):
// softmax bf16 rows of 8192 0.993, rms_norm bf16 rows of 16384 0.995, layer_norm fp32
// rows of 16384 0.997: these take it (rms_norm_forward no longer launches its 2-byte g512
// kernels: since the forty-eighth session its twice table, tried first, takes those rows,
// and passes them over only where the fixed kernels' one-row grid would be passed over
// too). The others walk: 0.997 to 1.000, or slower (softmax
// bf16 rows of 4096 1.075, whose kernel spills 12 bytes in that form; rows of 16384 1.017), and
// softmax's fp32 rows of 16384 (0.997 on the H200), whose kernel so spilled on AMD (124
// bytes of scratch a lane on gfx90a, against none walking). f16 follows bf16 (the same
// kernels but for the conversion).
OPK_PARAMS_RULE constexpr bool softmax_fwd_block_row(int element_size, int threads) {
    return element_size == 2 && threads == 256;
}
OPK_PARAMS_RULE constexpr bool rms_fwd_block_row(int element_size, int threads) { return element_size == 2 && threads == 512; }
OPK_PARAMS_RULE constexpr bool ln_fwd_block_row(int element_size, int threads) { return element_size == 4 && threads == 512; }
}  // namespace opk
// Fixed-group kernels (FixedKernel, as OPK_FIXED_ROW_KERNELS in rows.cuh builds them):
// [dtype][i]. softmax and layer_norm (OPK_FIXED_KERNELS) take fp32 rows of 4096, 8192 and
// 16384 at 256 x 4, 256 x 8 and 512 x 8; rms_norm (OPK_RMS_FIXED_KERNELS) its 8192 at 512 x 4.
// block_row(element size, threads): the family's pick above. The hosts' tables are
// OPK_SOFTMAX_FWD_FIXED_KERNELS, OPK_LN_FWD_FIXED_KERNELS and OPK_RMS_FWD_FIXED_KERNELS
// (below), which bind each family's kernel names to its own pick: a table with another
// family's pick would launch a one-row kernel on a walking kernel's capped grid.
#define OPK_FIXED_2BYTE(stem, dt, block_row)                                                             \
    {                                                                                                    \
        {stem "_" dt "_g128", 128, opk::kFixedChunks16, block_row(2, 128)},                              \
            {stem "_" dt "_g256", 256, opk::kFixedChunks16, block_row(2, 256)},                          \
            {stem "_" dt "_g512", 512, opk::kFixedChunks16, block_row(2, 512)}                           \
    }
#define OPK_FIXED_KERNELS(stem, block_row)                                                               \
    {                                                                                                    \
        {{stem "_f32_g256x4", 256, opk::kFixedChunksX4, block_row(4, 256)},                              \
         {stem "_f32_g256", 256, opk::kFixedChunks, block_row(4, 256)},                                  \
         {stem "_f32_g512", 512, opk::kFixedChunks, block_row(4, 512)}},                                 \
            OPK_FIXED_2BYTE(stem, "f16", block_row), OPK_FIXED_2BYTE(stem, "bf16", block_row)            \
    }
#define OPK_RMS_FIXED_KERNELS(stem)                                                                      \
    {                                                                                                    \
        {{stem "_f32_g256x4", 256, opk::kFixedChunksX4, opk::rms_fwd_block_row(4, 256)},                 \
         {stem "_f32_g512x4", 512, opk::kFixedChunksX4, opk::rms_fwd_block_row(4, 512)},                 \
         {stem "_f32_g512", 512, opk::kFixedChunks, opk::rms_fwd_block_row(4, 512)}},                    \
            OPK_FIXED_2BYTE(stem, "f16", opk::rms_fwd_block_row),                                        \
            OPK_FIXED_2BYTE(stem, "bf16", opk::rms_fwd_block_row)                                        \
    }
#define OPK_SOFTMAX_FWD_FIXED_KERNELS OPK_FIXED_KERNELS("opk_softmax_fwd_fixed", opk::softmax_fwd_block_row)
#define OPK_LN_FWD_FIXED_KERNELS OPK_FIXED_KERNELS("opk_ln_fwd_fixed", opk::ln_fwd_block_row)
#define OPK_RMS_FWD_FIXED_KERNELS OPK_RMS_FIXED_KERNELS("opk_rms_fwd_fixed")
// layer_norm's forward with weight and bias loaded beside x: [dtype][i] (fp32 rows of 8192).
#define OPK_LN_PARAMS_KERNELS(stem)                                                          \
    {                                                                                        \
        {{nullptr, 0, 0}, {stem "_f32_g512x4", 512, 4}, {nullptr, 0, 0}},                    \
            {{nullptr, 0, 0}, {nullptr, 0, 0}, {nullptr, 0, 0}}, {{nullptr, 0, 0}, {nullptr, 0, 0}, {nullptr, 0, 0}} \
    }
// rms_norm's forwards that read the row twice (kRmsFwdTwiceResident says where): fp32 rows
// of 4096 at 512 x 2, of 8192 at 512 x 4 (with L1 hints) and of 16384 at 1024 x 4; 2-byte
// rows of 4096, 8192 and 16384 at 256 x 2, 512 x 2 and 512 x 4, those of 8192 and 16384 one
// block a row (block_row).
#define OPK_RMS_TWICE_2BYTE(stem, dt)                                                               \
    {                                                                                               \
        {stem "_" dt "_g256x2", 256, 2}, {stem "_block_row_" dt "_g512x2", 512, 2, true},           \
            {stem "_block_row_" dt "_g512x4", 512, 4, true}                                         \
    }
#define OPK_RMS_TWICE_KERNELS(stem)                                                               \
    {                                                                                             \
        {{stem "_f32_g512x2", 512, 2}, {stem "_f32_g512x4", 512, 4}, {stem "_f32_g1024x4", 1024, 4}}, \
            OPK_RMS_TWICE_2BYTE(stem, "f16"), OPK_RMS_TWICE_2BYTE(stem, "bf16")                   \
    }
