// rms_norm and layer_norm, forward and backward: argument views, launch shape, and for
// the backward the dweight/dbias partials (per row group) summed by opk_column_sum.
#include "ops_common.h"

namespace {

using namespace opkit_gpu;

const char* const kRmsFwd[3][3] = OPK_ROW_NAMES("opk_rms_fwd");
const char* const kRmsBwd[3][3] = OPK_ROW_NAMES("opk_rms_bwd");
const char* const kLnFwd[3][3] = OPK_ROW_NAMES("opk_ln_fwd");
const char* const kLnBwd[3][3] = OPK_ROW_NAMES("opk_ln_bwd");
// The backwards in 2-byte types with kRowConfigsNormBwd16Long: config 1 is opk_*_bwd_long_*.
const char* const kLnBwd16Long[2][3] = {{"opk_ln_bwd_f16_c0", "opk_ln_bwd_long_f16", "opk_ln_bwd_f16_c2"},
                                        {"opk_ln_bwd_bf16_c0", "opk_ln_bwd_long_bf16", "opk_ln_bwd_bf16_c2"}};
const char* const kRmsBwd16Long[2][3] = {{"opk_rms_bwd_f16_c0", "opk_rms_bwd_long_f16", "opk_rms_bwd_f16_c2"},
                                         {"opk_rms_bwd_bf16_c0", "opk_rms_bwd_long_bf16", "opk_rms_bwd_bf16_c2"}};
// The fp32 backwards, rows exact for kRowConfigsNormBwdRegs32's config 1.
const char* const kLnBwdRegs32[3] = {"opk_ln_bwd_f32_c0", "opk_ln_bwd_regs_f32", "opk_ln_bwd_f32_c2"};
const char* const kRmsBwdRegs32[3] = {"opk_rms_bwd_f32_c0", "opk_rms_bwd_regs_f32", "opk_rms_bwd_f32_c2"};
// layer_norm's backward in 2-byte types, rows exact for kRowConfigsLnBwd16's config 1.
const char* const kLnBwd16Exact[2][3] = {{"opk_ln_bwd_f16_c0", "opk_ln_bwd_exact_f16", "opk_ln_bwd_f16_c2"},
                                         {"opk_ln_bwd_bf16_c0", "opk_ln_bwd_exact_bf16", "opk_ln_bwd_bf16_c2"}};
// The same at a compile-time block of 256 or 512 threads (norms.cu, OPK_LN_BWD_EXACT_FIXED).
const char* const kLnBwd16ExactFixed[2][2][3] = {
    {{"opk_ln_bwd_f16_c0", "opk_ln_bwd_exact_f16_g256", "opk_ln_bwd_f16_c2"},
     {"opk_ln_bwd_f16_c0", "opk_ln_bwd_exact_f16_g512", "opk_ln_bwd_f16_c2"}},
    {{"opk_ln_bwd_bf16_c0", "opk_ln_bwd_exact_bf16_g256", "opk_ln_bwd_bf16_c2"},
     {"opk_ln_bwd_bf16_c0", "opk_ln_bwd_exact_bf16_g512", "opk_ln_bwd_bf16_c2"}}};
// layer_norm's 2-byte exact backward (type 1 f16, 2 bf16) for a plan's block: the
// compile-time block kernels where the block is 256 or 512 threads, else the run-time one.
// (plan_rows makes blocks whole warps of the device, as those kernels' reductions need.)
using KernelNames = const char* const[3];  // a family's three configs' kernels
const KernelNames& ln_exact16_kernels(int type, unsigned block) {
    if (block == 256) return kLnBwd16ExactFixed[type - 1][0];
    if (block == 512) return kLnBwd16ExactFixed[type - 1][1];
    return kLnBwd16Exact[type - 1];
}
// fp32 rows exact for kRowConfigsRmsFwdWide's / kRowConfigsFwdWide's config 1 (wide_forward_plan).
const char* const kRmsFwdWide[3] = {"opk_rms_fwd_f32_c0", "opk_rms_fwd_wide_f32", "opk_rms_fwd_f32_c2"};
const char* const kLnFwdWide[3] = {"opk_ln_fwd_f32_c0", "opk_ln_fwd_wide_f32", "opk_ln_fwd_f32_c2"};
// Rows exact for a fixed group (fixed_group_plan).
const opk::FixedKernel kRmsFwdFixed[3][3] = OPK_RMS_FWD_FIXED_KERNELS;
const opk::FixedKernel kLnFwdFixed[3][3] = OPK_LN_FWD_FIXED_KERNELS;
// rms_norm's rows exact for a kernel that reads them twice (kRmsFwdTwiceResident says which:
// fp32 and 2-byte rows of 4096, 8192 and 16384), ahead of kRmsFwdFixed.
const opk::FixedKernel kRmsFwdTwice[3][3] = OPK_RMS_TWICE_KERNELS("opk_rms_fwd_twice");
// layer_norm's fp32 rows of 8192 with weight and bias loaded beside x (kernel_params.h's
// OPK_LN_PARAMS_KERNELS), ahead of kLnFwdFixed.
const opk::FixedKernel kLnFwdParams[3][3] = OPK_LN_PARAMS_KERNELS("opk_ln_fwd_params");
const char* const kColumnSum[3] = OPK_DTYPE_NAMES("opk_column_sum");
const char* const kColumnSum4[3] = OPK_DTYPE_NAMES("opk_column_sum4");
// The backwards with the rows stashed in shared memory: [dtype][config][exact].
const char* const kRmsBwdStash[3][3][2] = OPK_RMS_STASH_NAMES("opk_rms_bwd_stash");
const char* const kLnBwdStash[3][3][2] = OPK_LN_STASH_NAMES("opk_ln_bwd_stash");
// fp32 rows split over a cluster (kNormStashSplit): [exact].
const char* const kRmsBwdStashSplit32[2] = OPK_NORM_STASH_SPLIT_NAMES("opk_rms_bwd_stash");
const char* const kLnBwdStashSplit32[2] = OPK_NORM_STASH_SPLIT_NAMES("opk_ln_bwd_stash");

// A backward through a stash kernel (kNormStashConfigs, kernel_params.h): on a device that
// launches clusters (the kernels are sm_90+ code), for rows of more than
// kNormStashMinPacks and at most the largest config's packs (fp32: layer_norm to
// kNormStashMaxPacks32, rms_norm to kRmsStashMaxPacks32,
// and from kNormStashSplitMinPacks the rows split over a cluster, kNormStashSplit), whole
// packs with every row view 16-byte aligned, where kNormStashSlots rows (at least two) of
// x and dy (of a block's part of them) fit a block's shared memory; the first config whose
// threads x chunks holds the row, its exact kernel where the row is exactly that. The grid
// is the clusters that fit at once, at most one a row (each steps over rows, its ring
// streaming the next ones in). Returns the kernel's name with *p (groups = clusters: one
// partial row each) and the ring's rows in *slots, or NULL.
const char* stash_backward_plan(Device& d, bool layer, int type, int64_t rows, int64_t n, size_t es,
                                std::initializer_list<const opk::RowsView*> views, RowPlan* p, int* slots) {
    const int64_t pack = int64_t(16 / es);
    if (!d.clusters || n % pack != 0) return nullptr;
    const int64_t packs = n / pack;
    if (packs <= opk::kNormStashMinPacks) return nullptr;
    for (const opk::RowsView* v : views)
        if (!v->vec) return nullptr;
    opk::NormStashConfig c{};
    int split = 1;
    const char* name = nullptr;
    if (es == 4 && packs > opk::kNormStashSplitMinPacks) {
        c = opk::kNormStashSplitConfig;
        split = opk::kNormStashSplit;
        if (packs % split != 0 || packs > int64_t(split) * c.threads * c.chunks) return nullptr;
        name = (layer ? kLnBwdStashSplit32 : kRmsBwdStashSplit32)[packs == int64_t(split) * c.threads * c.chunks];
    } else {
        if (es == 4 && packs > (layer ? opk::kNormStashMaxPacks32 : opk::kRmsStashMaxPacks32)) return nullptr;
        int config = 0;
        while (config < 3 &&
               int64_t(opk::kNormStashConfigs[config].threads) * opk::kNormStashConfigs[config].chunks < packs)
            ++config;
        if (config == 3) return nullptr;
        c = opk::kNormStashConfigs[config];
        name = (layer ? kLnBwdStash : kRmsBwdStash)[type][config][packs == int64_t(c.threads) * c.chunks];
    }
    if (!name) return nullptr;
    const int64_t slot = 2 * (n / split) * int64_t(es);
    const int64_t rows_fit = (int64_t(d.shared_per_block) - int64_t(kStaticSharedReserve)) / slot;
    const int ring = int(std::min<int64_t>(opk::kNormStashSlots, rows_fit));
    if (ring < 2) return nullptr;
    // The four-pack 2-byte kernels keep a row of column sums after the ring.
    const bool shared_sums =
        opk::norm_stash_shared_sums(int64_t(es), c.chunks, split, packs == int64_t(c.threads) * c.chunks);
    if (shared_sums && int64_t(ring) * slot + n * 4 + int64_t(kStaticSharedReserve) > int64_t(d.shared_per_block))
        return nullptr;
    const size_t smem = size_t(ring) * size_t(slot) + (shared_sums ? size_t(n) * 4 : 0);
    // At most the blocks an SM that the kernels are built for (kNormStashResident): where
    // fewer registers let a third 256-thread block fit (f16 rms_norm, 80 registers), the
    // rows in flight rose and it ran slower (H200, 32768x4096: 0.207 -> 0.229 ms; three
    // slots a block measured the same way, kernel_params.h).
    // layer_norm's 2-byte rows: clusters of kNormStashPair blocks, each with rows of its
    // own, one partial row a cluster (norms.cu, merge_pair_sums).
    const bool pairs = opk::norm_stash_pairs(layer, es);
    const int cluster = pairs ? opk::kNormStashPair : split;
    const int64_t fit = active_clusters(d, Module::norms, name, unsigned(c.threads), smem, cluster);
    const int64_t clusters =
        std::min<int64_t>(fit, int64_t(d.sm_count) * (opk::kNormStashResident / c.threads) / cluster);
    if (clusters < 1) return nullptr;
    RowPlan f{};
    f.config = 1;
    f.block = unsigned(c.threads);
    // One row at least for each cluster (a pair's blocks: one at least for the pair).
    const int64_t rows_a_cluster = pairs ? opk::kNormStashPair : 1;
    f.groups = std::min((rows + rows_a_cluster - 1) / rows_a_cluster, clusters);
    f.grid = size_t(f.groups) * size_t(cluster);
    f.smem = smem;
    *p = f;
    *slots = ring;
    return name;
}

opkit_status check_all(const char* op, std::initializer_list<std::pair<const char*, const opkit_tensor*>> ts) {
    for (const auto& [name, t] : ts) OPKIT_GPU_TRY(check_element_aligned(op, name, t));
    return OPKIT_OK;
}

opkit_status forward(const char* op, bool layer, const opkit_tensor* x, const opkit_tensor* weight,
                     const opkit_tensor* bias, float eps, float weight_offset, opkit_tensor* y,
                     opkit_tensor* mean, opkit_tensor* rstd, opkit_stream stream) {
    int type;
    OPKIT_GPU_TRY(need_float(op, x, &type));
    OPKIT_GPU_TRY(check_all(op, {{"x", x}, {"weight", weight}, {"bias", bias}, {"y", y}, {"mean", mean},
                                  {"rstd", rstd}}));
    const int64_t rows = rows_of(x), n = inner_of(x);
    if (rows == 0) return OPKIT_OK;
    DeviceScope scope;
    OPKIT_GPU_TRY(scope.enter(x->device.device_id));
    Device& d = scope.dev();
    opk::NormArgs a{};
    a.x = rows_view(x, x->ndim - 1);
    a.y = rows_view(y, y->ndim - 1);
    a.weight = weight ? base_of(weight) : nullptr;
    a.bias = bias ? base_of(bias) : nullptr;
    a.weight_vec = weight && aligned16(a.weight);
    a.bias_vec = bias && aligned16(a.bias);
    a.mean = strided_view(mean);
    a.rstd = strided_view(rstd);
    a.rows = rows;
    a.n = n;
    a.eps = eps;
    a.weight_offset = weight_offset;
    RowPlan special;
    a.exact = 1;
    // The exact-row bodies (fixed-group, wide and exact row kernels) read the weight and
    // bias as whole 16-byte packs without testing their alignment (column_pack), so a
    // misaligned weight or bias takes the general kernels.
    const bool columns_aligned = (!weight || a.weight_vec) && (!bias || a.bias_vec);
    if (columns_aligned) {
        if (const char* k = fixed_group_plan(d, rows, n, element_size(x), (layer ? kLnFwdParams : kRmsFwdTwice)[type],
                                             {&a.x, &a.y}, &special))
            return launch(d, Module::norms, k, special.grid, special.block, stream, a);
        if (const char* k = fixed_group_plan(d, rows, n, element_size(x),
                                             (layer ? kLnFwdFixed : kRmsFwdFixed)[type], {&a.x, &a.y}, &special))
            return launch(d, Module::norms, k, special.grid, special.block, stream, a);
        if (wide_forward_plan(d, rows, n, element_size(x),
                              layer ? opk::kRowConfigsFwdWide : opk::kRowConfigsRmsFwdWide, {&a.x, &a.y}, &special))
            return launch_rows(d, Module::norms, layer ? kLnFwdWide : kRmsFwdWide, special, stream, a);
    }
    const RowPlan p = plan_rows(d, rows, n, element_size(x), opk::kRowConfigs, 0, 0, 0, kRowGridWavesBalanced);
    a.exact = layer && columns_aligned && exact_rows(p, n, element_size(x), opk::kRowConfigs, {&a.x, &a.y});  // rms: none
    return launch_rows(d, Module::norms, layer ? kLnFwd[type] : kRmsFwd[type], p, stream, a);
}

// dweight / dbias are [n] and contiguous (innermost stride 1, one dimension).
opkit_status backward(const char* op, bool layer, const opkit_tensor* dy, const opkit_tensor* x,
                      const opkit_tensor* weight, const opkit_tensor* mean, const opkit_tensor* rstd,
                      float weight_offset, opkit_tensor* dx, opkit_tensor* dweight, opkit_tensor* dbias,
                      opkit_stream stream) {
    int type;
    OPKIT_GPU_TRY(need_float(op, x, &type));
    OPKIT_GPU_TRY(check_all(op, {{"dy", dy}, {"x", x}, {"weight", weight}, {"mean", mean}, {"rstd", rstd},
                                  {"dx", dx}, {"dweight", dweight}, {"dbias", dbias}}));
    const int64_t rows = rows_of(x), n = inner_of(x);
    const int arrays = (dweight ? 1 : 0) + (dbias ? 1 : 0);
    if (n == 0 || (rows == 0 && arrays == 0)) return OPKIT_OK;
    DeviceScope scope;
    OPKIT_GPU_TRY(scope.enter(x->device.device_id));
    Device& d = scope.dev();
    const opkit_stream s = stream;
    const size_t es = element_size(x);
    if (rows == 0) {  // no rows: the sums over rows are zero
        for (opkit_tensor* t : {dweight, dbias})
            if (t) OPKIT_GPU_TRY(runtime().memset_d8_async(base_of(t), 0, size_t(n) * es, s));
        return OPKIT_OK;
    }
    // Row groups sum dweight/dbias in shared memory ([layer ? 2 : 1][rows per block][n]
    // fp32) when a block may have that much; otherwise straight into the partial rows.
    const size_t pack = 16 / es, padded = (size_t(n) + pack - 1) / pack * pack;  // whole packs
    const size_t shared_per_group = arrays ? padded * sizeof(float) * (layer ? 2 : 1) : 0;
    opk::NormArgs a{};
    a.x = rows_view(x, x->ndim - 1);
    a.dy = rows_view(dy, dy->ndim - 1);
    a.dx = rows_view(dx, dx->ndim - 1);
    // The stash kernels first (sm_90+); the register-cached kernels' plans below are worked
    // out only where the stash declines.
    RowPlan p{};
    int stash_slots = 0;
    const char* stash = stash_backward_plan(d, layer, type, rows, n, es, {&a.x, &a.dy, &a.dx}, &p, &stash_slots);
    // 2-byte types: four packs a thread where the op's own table would stream
    // (kRowConfigsNormBwd16Long); layer_norm's table holds two packs a thread, rms_norm's one.
    // rms_norm takes the four-pack kernel also for rows of kRmsBwd16ExactMinPacks or more
    // that are exact for it: its exact-row body is the fastest there (kernel_params.h).
    const int64_t packs = int64_t(padded / pack);
    const opk::RowConfig(&own)[3] = layer && es == 2 ? opk::kRowConfigsLnBwd16 : opk::kRowConfigsNormBwd;
    const opk::RowConfig(&four)[3] = opk::kRowConfigsNormBwd16Long;
    const bool rms_exact16 = !stash && !layer && es == 2 && packs >= opk::kRmsBwd16ExactMinPacks &&
                             exact_rows(plan_rows(d, rows, n, es, four, 0), n, es, four, {&a.x, &a.dy, &a.dx});
    const bool long16 =
        rms_exact16 || (es == 2 && !block_caches(own, packs, es) && block_caches(four, packs, es));
    // fp32 rows of kNormBwdRegs32MinPacks or more exact for four packs a thread of up to
    // 512 threads: the kernels with register sums (kRowConfigsNormBwdRegs32).
    const opk::RowConfig(&regs32)[3] = opk::kRowConfigsNormBwdRegs32;
    const bool exact_regs32 = !stash && es == 4 && packs >= opk::kNormBwdRegs32MinPacks &&
                              exact_rows(plan_rows(d, rows, n, es, regs32, 0), n, es, regs32, {&a.x, &a.dy, &a.dx});
    const opk::RowConfig(&cfgs)[3] = exact_regs32 ? regs32 : long16 ? four : own;
    const char* const(&names)[3] = exact_regs32 ? (layer ? kLnBwdRegs32 : kRmsBwdRegs32)
                                   : long16  ? (layer ? kLnBwd16Long : kRmsBwd16Long)[type - 1]
                                   : layer   ? kLnBwd[type]
                                             : kRmsBwd[type];
    // Blocks of config 1 with enough packs a thread read the weight from a copy of it in
    // shared memory (norms.cu, kNormBwdSharedWeight), ahead of any sums there.
    const size_t weight_shared =
        weight && opk::chunks_for(cfgs[1], int(es)) >= opk::kNormBwdSharedWeightPacks ? padded * es : 0;
    if (!stash) {
        p = plan_rows(d, rows, n, es, cfgs, arrays, shared_per_group, weight_shared);
        // Cached rows of rms_norm, 2-byte ones of layer_norm and exact_regs32's sum in
        // registers (norms.cu).
        const bool register_sums = p.config != 2 && (!layer || es == 2 || exact_regs32);
        if (register_sums || p.smem + kStaticSharedReserve > size_t(d.shared_per_block))
            p = plan_rows(d, rows, n, es, cfgs, arrays, 0, weight_shared);
    }
    const size_t sums_shared = stash ? 0 : p.smem - (p.config == 1 ? weight_shared : 0);
    Scratch scratch(d, s);
    float* partial = nullptr;
    if (arrays) {
        // Layout the kernels expect: [groups][n] dweight partials, then [groups][n] dbias.
        const size_t bytes = size_t(p.groups) * size_t(n) * sizeof(float) * (layer ? 2 : 1);
        void* mem = nullptr;
        OPKIT_GPU_TRY(scratch.alloc(bytes, &mem));
        partial = static_cast<float*>(mem);
    }
    a.weight = weight ? base_of(weight) : nullptr;
    a.weight_vec = weight && aligned16(a.weight);
    a.mean = strided_view(mean);
    a.rstd = strided_view(rstd);
    a.partial = partial;
    a.rows = rows;
    a.n = n;
    a.weight_offset = weight_offset;
    a.want_dweight = dweight != nullptr;
    a.want_dbias = dbias != nullptr;
    a.shared_sums = sums_shared > 0;
    a.stash_slots = stash_slots;
    // The exact-row body: fp32, and rms_norm's 2-byte four-pack kernel (norms.cu says why),
    // whose exact rows rms_exact16 found already (the plan's config and block are the same).
    a.exact = rms_exact16 || (es == 4 && exact_rows(p, n, es, cfgs, {&a.x, &a.dy, &a.dx}));
    // layer_norm's 2-byte exact rows of two packs a thread: a kernel of their own (norms.cu,
    // ln_backward_exact), whose body is the exact one whatever a.exact says.
    const bool ln_exact16 = layer && es == 2 && !long16 && exact_rows(p, n, es, cfgs, {&a.x, &a.dy, &a.dx});
    if (stash)
        OPKIT_GPU_TRY(launch(d, Module::norms, stash, p.grid, p.block, s, a, p.smem));
    else
        OPKIT_GPU_TRY(launch_rows(d, Module::norms, ln_exact16 ? ln_exact16_kernels(type, p.block) : names, p, s, a));
    // dweight and dbias in one launch (a grid row each), which may start while the row
    // kernel drains: one kernel boundary instead of two (docs/cuda-vendor.md).
    if (dweight || dbias) {
        const bool quads = n % 4 == 0 && n >= opk::kColumnSumQuadsMinColumns &&
                           reinterpret_cast<uintptr_t>(partial) % 16 == 0;
        const opk::ColumnSumArgs c{
            partial, p.groups, n, {dweight ? base_of(dweight) : nullptr, dbias ? base_of(dbias) : nullptr}};
        // Past 2^31 - 1 blocks the kernel's column loop takes the rest.
        const size_t block_columns = size_t(opk::kColumnSumColumns) * (quads ? 4 : 1);
        const unsigned col_grid = unsigned(std::min<size_t>(ceil_div(size_t(n), block_columns), 0x7fffffffu));
        const char* const kernel = (quads ? kColumnSum4 : kColumnSum)[type];
        OPKIT_GPU_TRY(launch_2d(d, Module::norms, kernel, col_grid, layer ? 2 : 1, opk::kColumnSumThreads, s, c, 0,
                                /*dependent=*/true));
    }
    return OPKIT_OK;
}

}  // namespace

namespace opkit_gpu {

opkit_status run(const args::rms_norm_forward& call) {
    return forward("rms_norm_forward", false, call.x, call.weight, nullptr, call.eps, call.weight_offset, call.y,
                   nullptr, call.rstd, call.stream);
}

opkit_status run(const args::rms_norm_backward& call) {
    return backward("rms_norm_backward", false, call.dy, call.x, call.weight, nullptr, call.rstd,
                    call.weight_offset, call.dx, call.dweight, nullptr, call.stream);
}

opkit_status run(const args::layer_norm_forward& call) {
    return forward("layer_norm_forward", true, call.x, call.weight, call.bias, call.eps, 0.0f, call.y, call.mean,
                   call.rstd, call.stream);
}

opkit_status run(const args::layer_norm_backward& call) {
    return backward("layer_norm_backward", true, call.dy, call.x, call.weight, call.mean, call.rstd, 0.0f, call.dx,
                    call.dweight, call.dbias, call.stream);
}

}  // namespace opkit_gpu
