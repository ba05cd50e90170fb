// What every op's host function shares: launch shapes for the row kernels, and small
// conversions.
#pragma once

#include "device.h"
#include "host_ops.h"
#include "status.h"
#include "tensor_args.h"

#include <algorithm>
#include <initializer_list>
#include <vector>

namespace opkit_gpu {

// Launch shape of a row kernel family for rows of n elements.
struct RowPlan {
    int config;      // index into the family's RowConfig table / kernel names
    size_t grid;     // blocks
    unsigned block;  // threads per block
    int64_t groups;  // row groups in the grid (= partial rows for dweight/dbias)
    size_t smem;     // dynamic shared memory per block (bytes)
};

// Threads of a block that streams its row (config 2). One such block per SM keeps the
// rows in flight small enough (132 x 256 KiB for a bf16 row of 128K on an H100) that the
// second pass, which starts from the end of the row, mostly reads L2.
// (Measured against 512 at V = 128256: 2.58 against 2.64 ms bf16, 4.34 against 4.56 f32.)
constexpr unsigned kStreamBlock = 1024;

// Row kernels are built for 1024 resident threads per SM (64 registers each).
constexpr int64_t kResidentThreads = 1024;

// Threads a block of config 1 (a whole row per block) needs for rows of `packs` packs,
// and whether the config takes them at all (otherwise they stream, config 2).
inline int64_t block_threads(const opk::RowConfig (&cfgs)[3], int64_t packs, size_t esize) {
    const int64_t chunks = opk::chunks_for(cfgs[1], int(esize));
    return (packs + chunks - 1) / chunks;
}
inline bool block_caches(const opk::RowConfig (&cfgs)[3], int64_t packs, size_t esize) {
    return block_threads(cfgs, packs, esize) <= opk::max_block(cfgs[1]);
}

// Waves of resident blocks a row kernel's grid may have (kernels without partial sums):
// a few by default, each block then taking several rows through its grid-stride loop.
constexpr int64_t kRowGridWaves = 8;
// Enough for one block per row block at any usual size: the hardware then hands rows to
// SMs as they free up, and the grid-stride loops run once; with 8 waves each block took
// 3-4 rows, and the SMs whose blocks drew four finished last. The norm forwards and
// softmax take it. Measured on the H100 against 8 waves (bench/results/2026-11-28-norm-exact/,
// waves-* and ab-*): softmax backward f32 4096x16384 0.302 -> 0.270 ms, the f32 forwards and
// softmax passes at 32768 and 8192 rows 2-4 % faster, bf16 rms_norm forward and softmax
// 1-3 %, layer_norm forward within 0.002 ms either way; 32 waves measured the same as no
// cap. Cross-entropy keeps 8: its backward lost 8 % (bf16 V 32000) and the forward with
// dlogits 4 % (bf16 V 128256).
constexpr int64_t kRowGridWavesBalanced = 256;

// shared_per_group: dynamic shared memory each row group needs (the norm backward's
// dweight/dbias sums); shared_cached: what a block of config 1 needs besides (the norm
// backward's copy of the weight row). partial_arrays > 0: the kernel writes that many
// [groups][n] fp32 partial arrays, so the grid is one resident wave (and 64 MiB of
// partials at most); other kernels get up to `waves` waves of blocks.
inline RowPlan plan_rows(const Device& d, int64_t rows, int64_t n, size_t esize,
                         const opk::RowConfig (&cfgs)[3], int partial_arrays, size_t shared_per_group = 0,
                         size_t shared_cached = 0, int64_t waves = kRowGridWaves) {
    const int64_t pack = int64_t(16 / esize), packs = (n + pack - 1) / pack;
    RowPlan p{};
    int64_t rows_per_block = 1;
    const int chunks0 = opk::chunks_for(cfgs[0], int(esize));
    if (packs <= int64_t(cfgs[0].threads) * chunks0) {
        p.config = 0;
        rows_per_block = cfgs[0].rows_per_block;
        p.block = unsigned(cfgs[0].threads * cfgs[0].rows_per_block);
    } else if (block_caches(cfgs, packs, esize)) {
        const int64_t need = block_threads(cfgs, packs, esize);
        // Whole warps (the kernels' block reductions count blockDim / warp size of them),
        // at least two: on NVIDIA multiples of 32 from 64, on wave64 multiples of 64 from 128.
        const int64_t w = d.warp_size;
        p.config = 1;
        p.block = unsigned(std::max<int64_t>(2 * w, (need + w - 1) / w * w));
    } else {
        p.config = 2;
        p.block = kStreamBlock;
    }
    p.smem = size_t(rows_per_block) * shared_per_group + (p.config == 1 ? shared_cached : 0);
    const opk::RowConfig& cfg = cfgs[p.config];
    int64_t resident = std::max<int64_t>(1, (cfg.resident ? cfg.resident : kResidentThreads) / p.block);
    if (p.smem)
        resident = std::max<int64_t>(1, std::min<int64_t>(resident, int64_t(d.shared_per_sm) / int64_t(p.smem + 1024)));
    const int64_t row_blocks = (rows + rows_per_block - 1) / rows_per_block;
    int64_t grid = std::min<int64_t>(row_blocks, int64_t(d.sm_count) * resident * waves);
    if (partial_arrays > 0) {
        grid = std::min<int64_t>(row_blocks, int64_t(d.sm_count) * resident);
        const int64_t bytes_per_block = rows_per_block * std::max<int64_t>(n, 1) * 4 * partial_arrays;
        grid = std::min<int64_t>(grid, std::max<int64_t>(1, (int64_t(64) << 20) / bytes_per_block));
    }
    p.grid = size_t(std::max<int64_t>(grid, rows > 0 ? 1 : 0));
    p.groups = int64_t(p.grid) * rows_per_block;
    return p;
}

// Whether rows of n elements are exact for a plan of the cached block-wide config (1):
// whole 16-byte packs, exactly chunks of them per thread of the block, and every row view
// 16-byte aligned. Such rows take the kernels' lean body (kExactPath in rows.cuh).
inline bool exact_rows(const RowPlan& p, int64_t n, size_t esize, const opk::RowConfig (&cfgs)[3],
                       std::initializer_list<const opk::RowsView*> views) {
    const int64_t pack = int64_t(16 / esize);
    if (p.config != 1 || n % pack != 0 || n / pack != int64_t(p.block) * opk::chunks_for(cfgs[1], int(esize)))
        return false;
    for (const opk::RowsView* v : views)
        if (!v->vec) return false;
    return true;
}

// The plan of a row family's exact-body kernel built for `cfgs` (its config 1): rows of
// at least min_packs packs that are exact for that config (exact_rows). False (and *p
// untouched) for any other rows. The softmax backward's exact kernels take it, and
// wide_forward_plan below.
inline bool exact_plan(const Device& d, int64_t rows, int64_t n, size_t esize, const opk::RowConfig (&cfgs)[3],
                       std::initializer_list<const opk::RowsView*> views, RowPlan* p, int64_t min_packs = 0) {
    const int64_t pack = int64_t(16 / esize);
    if (n % pack != 0 || n / pack < min_packs) return false;
    const RowPlan exact = plan_rows(d, rows, n, esize, cfgs, 0, 0, 0, kRowGridWavesBalanced);
    if (!exact_rows(exact, n, esize, cfgs, views)) return false;
    *p = exact;
    return true;
}

// The plan of an fp32 forward (softmax, rms_norm, layer_norm) through its *_fwd_wide_f32
// kernel (kRowConfigsFwdWide or kRowConfigsRmsFwdWide): rows of kFwdWideMinPacks to
// kFwdWideMaxPacks packs exact for eight packs a thread. False (and *p untouched) for any
// other rows, which keep the family's usual plan.
inline bool wide_forward_plan(const Device& d, int64_t rows, int64_t n, size_t esize,
                              const opk::RowConfig (&cfgs)[3], std::initializer_list<const opk::RowsView*> views,
                              RowPlan* p) {
    return esize == 4 && n / 4 <= opk::kFwdWideMaxPacks &&
           exact_plan(d, rows, n, esize, cfgs, views, p, opk::kFwdWideMinPacks);
}

// The forward kernel at a fixed group size for rows exact for it: whole aligned packs,
// views of at most one outer dimension (the host merges a contiguous batch into one),
// exactly threads * chunks of them for one of `kernels` (that dtype's row of an
// OPK_FIXED_KERNELS table; the first that fits). Returns the kernel's name with its plan
// (config 1: one block of that kernel's threads a row; a grid of at most kRowGridWavesBalanced
// waves of blocks, which walk the rows past it), or NULL (and *p untouched) for any other
// rows. A block_row kernel's grid is the rows, whatever their number: it has no row walk
// (tests/rocm/test_gpu_host_plans.cpp checks both).
inline const char* fixed_group_plan(const Device& d, int64_t rows, int64_t n, size_t esize,
                                    const opk::FixedKernel (&kernels)[3],
                                    std::initializer_list<const opk::RowsView*> views, RowPlan* p) {
    const int64_t pack = int64_t(16 / esize);
    for (const opk::FixedKernel& k : kernels) {
        if (n != pack * k.threads * k.chunks || k.threads % d.warp_size != 0) continue;
        // A grid of a block a row has at most 2^31 - 1 blocks (NVIDIA) and 2^32 - 1 threads
        // (HIP); more rows (never seen: 2^23 rows of 8192 bf16 at 512 threads) take the
        // table's next kernel, or the caller's next plan.
        if (k.block_row && rows > int64_t(0xffffffffu) / k.threads) continue;
        // The kernels assume views of at most one outer dimension (assume_flat_rows).
        for (const opk::RowsView* v : views)
            if (!v->vec || v->nd > 1) return nullptr;
        RowPlan f{};
        f.config = 1;
        f.block = unsigned(k.threads);
        const int64_t resident = std::max<int64_t>(1, kResidentThreads / k.threads);
        f.grid = size_t(k.block_row ? rows
                                    : std::min<int64_t>(rows, int64_t(d.sm_count) * resident * kRowGridWavesBalanced));
        f.groups = int64_t(f.grid);
        *p = f;
        return k.name;
    }
    return nullptr;
}

// Rows read in one pass only (cross-entropy's loss without the gradient): one row per
// block of kSinglePassBlock threads streaming it (config 2) beats a 1024-thread block
// caching it, because two blocks per SM overlap one row's reductions with the other's
// loads. (single_pass_rows: whether it applies, i.e. the usual plan is block-wide and at
// least that block.)
constexpr unsigned kSinglePassBlock = 512;
inline bool single_pass_rows(const RowPlan& usual) { return usual.config != 0 && usual.block >= kSinglePassBlock; }
inline RowPlan single_pass_plan(const Device& d, int64_t rows, const RowPlan& usual) {
    if (!single_pass_rows(usual)) return usual;
    RowPlan p{};
    p.config = 2;
    p.block = kSinglePassBlock;
    p.grid = size_t(std::min<int64_t>(rows, int64_t(d.sm_count) * (kResidentThreads / kSinglePassBlock) * kRowGridWaves));
    p.groups = int64_t(p.grid);
    return p;
}

// The same plan for rows read twice (statistics, then an output written from them) while
// the rows in flight, two per SM, fit in three quarters of L2: the second pass then reads
// L2. Measured on an H100 (50 MB L2) for cross-entropy with dlogits: V = 32000 0.606 ->
// 0.566 ms bf16, 0.90 -> 0.81 ms f32; at V = 128256 bf16 (67 MB in flight) 2.08 -> 2.22 ms,
// so longer rows keep the usual plan (one 1024-thread block per SM).
// (rows_fit_l2: whether rows of row_bytes, per_sm of them in flight on every SM, fit in
// three quarters of L2.)
inline bool rows_fit_l2(const Device& d, int64_t per_sm, int64_t row_bytes) {
    const int64_t in_flight = int64_t(d.sm_count) * per_sm * row_bytes;
    return d.l2_bytes > 0 && in_flight * 4 <= d.l2_bytes * 3;
}
inline RowPlan reread_plan(const Device& d, int64_t rows, int64_t row_bytes, const RowPlan& usual) {
    if (!rows_fit_l2(d, kResidentThreads / kSinglePassBlock, row_bytes)) return usual;
    return single_pass_plan(d, rows, usual);
}

// Launches the config a plan chose from a family's three kernel names.
template <class Args>
opkit_status launch_rows(Device& d, Module m, const char* const (&names)[3], const RowPlan& p, opkit_stream s,
                         const Args& a) {
    return launch(d, m, names[p.config], p.grid, p.block, s, a, p.smem);
}

// Grid for the one-thread-per-pack kernels (256 threads a block, grid-stride loops).
inline size_t pack_grid(const Device& d, int64_t packs) {
    const int64_t blocks = (packs + 255) / 256;
    return size_t(std::min<int64_t>(blocks, int64_t(d.sm_count) * 64));
}

// Grid that gives every thread one pack (256 threads a block); the kernels' grid-stride
// loops then run once but still cover any size. For the dense element-wise kernels on an
// H100 this beat the capped grid above by 3-4 % for bf16 swiglu/geglu and f32 alike
// (2984 against 2892 GB/s for bf16 swiglu backward, 32768x4096): no block waits on a
// slow neighbour's last iterations. (The embedding forward has its own launch: a block per
// part of a row, ops_embedding.cpp.) At most 2^24 - 1 blocks: HIP refuses a launch of 2^32
// work-items or more (grid x block, hipModuleLaunchKernel), so packs past 2^32 - 256 (64 GiB
// of them) are taken by the loops; a kernel without a loop (the dense half-pack element-wise
// kernels) must not be launched on more.
constexpr int64_t kMaxOnePackGrid = (int64_t(1) << 24) - 1;
inline size_t one_pack_per_thread_grid(int64_t packs) {
    return size_t(std::min<int64_t>((packs + 255) / 256, kMaxOnePackGrid));
}

// Runs an element-wise kernel family (names: OPK_EW_NAMES) over same-shape tensors, inputs
// first; ops_elementwise.cpp, also used by matmul (beta scaling when K = 0).
// dense_access: the bytes a thread of the dense kernels moves of each tensor (as the device
// file builds them, kernel_params.h's EwDenseAccess).
opkit_status run_elementwise(const char* op, const char* const (&names)[2][3],
                             const std::vector<const opkit_tensor*>& ts, float alpha, opkit_stream stream,
                             opk::EwDenseAccess dense_access = opk::kEwDensePack);

inline opkit_status need_float(const char* op, const opkit_tensor* t, int* type) {
    *type = float_type(t);
    if (*type < 0)
        return fail(OPKIT_ERROR_UNSUPPORTED, "%s: the %s vendor takes f32, f16 and bf16 tensors", op,
                    runtime().vendor());
    return OPKIT_OK;
}

}  // namespace opkit_gpu
