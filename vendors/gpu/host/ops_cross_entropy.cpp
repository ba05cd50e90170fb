// cross-entropy forward and backward. MEAN needs the number of non-ignored rows before
// any gradient is scaled, so a small kernel counts them first (into scratch, on the
// stream: nothing synchronizes); the per-row losses of MEAN/SUM go to scratch and one
// block sums them in double, in a fixed order.
#include "ops_common.h"

namespace {

using namespace opkit_gpu;

const char* const kFwd[3][3] = OPK_ROW_NAMES("opk_ce_fwd");
const char* const kBwd[3][3] = OPK_ROW_NAMES("opk_ce_bwd");
const char* const kFwdLoss[3] = OPK_DTYPE_NAMES("opk_ce_fwd_loss");
const char* const kFwdGrad[3] = {nullptr, "opk_ce_fwd_grad_f16", "opk_ce_fwd_grad_bf16"};
const char* const kFwdStash[3][4] = {OPK_STASH_NAMES("opk_ce_fwd_stash_f32"), OPK_STASH_NAMES("opk_ce_fwd_stash_f16"),
                                     OPK_STASH_NAMES("opk_ce_fwd_stash_bf16")};

// The forward with dlogits through a stash kernel (kCeStashBlock, kernel_params.h): on a
// device that launches clusters, for rows of kCeStashMinPacks packs or more, with the
// smallest cluster whose part of a row fits kCeStashPartBytes. One block a row where that
// cluster is one block and the rows are 16-byte aligned (bf16 V 32000 on the H200: 0.273
// ms, 0.292 with two waves), else exactly two waves of the clusters that fit at once, each
// stepping over rows so that a row's loads overlap the previous row's gradient (a grid a
// few clusters past whole waves left those few a row share each of their own to run
// alone at the end: bf16 V 128256 1.36 ms against 1.22). Returns the kernel's name with
// *p (grid, block, dynamic shared memory), or NULL.
const char* stash_plan(Device& d, int64_t rows, int64_t V, int type, size_t element_bytes, bool aligned,
                       RowPlan* p) {
    if (!d.clusters) return nullptr;
    const int64_t pack = 16 / int64_t(element_bytes), packs = (V + pack - 1) / pack;
    if (packs < opk::kCeStashMinPacks) return nullptr;
    int log_k = 0;
    while ((packs + (1 << log_k) - 1) / (1 << log_k) * 16 > opk::kCeStashPartBytes &&
           (1 << log_k) < opk::kCeStashMaxCluster)
        ++log_k;
    const int64_t K = int64_t(1) << log_k, smem = (packs + K - 1) / K * 16;
    if (smem > opk::kCeStashPartBytes || smem + int64_t(kStaticSharedReserve) > d.shared_per_block) return nullptr;
    const char* name = kFwdStash[type][log_k];
    const int64_t clusters =
        active_clusters(d, Module::cross_entropy, name, unsigned(opk::kCeStashBlock), size_t(smem), int(K));
    if (clusters < 1) return nullptr;
    RowPlan f{};
    f.block = unsigned(opk::kCeStashBlock);
    f.grid = size_t(K == 1 && aligned ? rows : std::min(rows, 2 * clusters) * K);
    f.smem = size_t(smem);
    *p = f;
    return name;
}

// The forward through a fixed-group kernel (kCeFwdGroup, kernel_params.h): for the rows
// single_pass_plan streams in 512-thread blocks, the loss alone in every dtype, and with
// dlogits in the 2-byte types where the rows in flight fit L2 for the gradient pass's
// second read (fp32 measured slower; bf16 at V 128256, 256 KB rows, 1.36 -> 1.41 ms on
// the H200). A group of kCeFwdGroup threads a row, as many blocks an SM as
// kResidentThreads allows, eight waves. Returns the kernel's name with *p, or NULL (and
// *p untouched) for other rows, and where the group is not a whole number of the
// device's warps.
const char* fixed_forward_plan(const Device& d, int64_t rows, int64_t row_bytes, const RowPlan& usual, int type,
                               bool dlogits, RowPlan* p) {
    const int64_t per_sm = kResidentThreads / opk::kCeFwdGroup;
    const char* name = dlogits ? (rows_fit_l2(d, per_sm, row_bytes) ? kFwdGrad[type] : nullptr) : kFwdLoss[type];
    if (!name || !single_pass_rows(usual) || opk::kCeFwdGroup % d.warp_size != 0) return nullptr;
    RowPlan f{};
    f.config = 2;
    f.block = unsigned(opk::kCeFwdGroup);
    f.grid = size_t(std::min<int64_t>(rows, int64_t(d.sm_count) * per_sm * kRowGridWaves));
    f.groups = int64_t(f.grid);
    *p = f;
    return name;
}

bool is_index64(const opkit_tensor* t) { return t->dtype.bits == 64; }

// Counts the non-ignored targets into *count (device memory, zeroed here first).
opkit_status count_valid(Device& d, opkit_stream s, const opkit_tensor* target, int64_t rows,
                         int64_t ignore_index, unsigned long long* count) {
    OPKIT_GPU_TRY(runtime().memset_d8_async(count, 0, sizeof *count, s));
    opk::CountValidArgs c{};
    c.target = strided_view(target);
    c.rows = rows;
    c.ignore_index = ignore_index;
    c.count = count;
    c.target64 = is_index64(target);
    const size_t grid = std::min<size_t>(ceil_div(size_t(rows), 256), size_t(d.sm_count) * 8);
    return launch(d, Module::cross_entropy, "opk_ce_count_valid", grid, 256, s, c);
}

opkit_status check_all(const char* op, std::initializer_list<std::pair<const char*, const opkit_tensor*>> ts) {
    for (const auto& [name, t] : ts) OPKIT_GPU_TRY(check_element_aligned(op, name, t));
    return OPKIT_OK;
}

}  // namespace

namespace opkit_gpu {

opkit_status run(const args::cross_entropy_forward& call) {
    const char* op = "cross_entropy_forward";
    int type;
    OPKIT_GPU_TRY(need_float(op, call.logits, &type));
    OPKIT_GPU_TRY(check_all(op, {{"logits", call.logits}, {"target", call.target}, {"loss", call.loss},
                                  {"lse", call.lse}, {"dlogits", call.dlogits}}));
    const int64_t rows = call.logits->shape[0], V = call.logits->shape[1];
    const bool reduced = call.reduction != OPKIT_REDUCTION_NONE;
    DeviceScope scope;
    OPKIT_GPU_TRY(scope.enter(call.logits->device.device_id));
    Device& d = scope.dev();
    const opkit_stream s = call.stream;

    // The forward kernel needs the valid-row count only to scale dlogits; without them the
    // loss sum counts the targets itself: two launches (a memset and a count) fewer.
    const bool mean = call.reduction == OPKIT_REDUCTION_MEAN;
    const bool count_first = mean && call.dlogits;
    // Scratch, when needed: [valid-row count (count_first)][per-row losses (MEAN/SUM)].
    Scratch scratch(d, s);
    unsigned long long* count = nullptr;
    float* row_losses = nullptr;
    const size_t loss_bytes = reduced && call.loss ? size_t(rows) * sizeof(float) : 0;
    if (count_first || loss_bytes) {
        void* mem = nullptr;
        OPKIT_GPU_TRY(scratch.alloc(16 + loss_bytes, &mem));
        count = static_cast<unsigned long long*>(mem);
        row_losses = reinterpret_cast<float*>(static_cast<char*>(mem) + 16);
    }
    if (count_first) OPKIT_GPU_TRY(count_valid(d, s, call.target, rows, call.ignore_index, count));

    opk::CrossEntropyArgs a{};
    a.logits = rows_view(call.logits, 1);
    if (call.dlogits) a.grad = rows_view(call.dlogits, 1);
    a.target = strided_view(call.target);
    a.lse = strided_view(call.lse);
    if (call.loss) a.loss = reduced ? opk::Strided{row_losses, 1} : strided_view(call.loss);
    a.valid_rows = count_first ? count : nullptr;
    a.rows = rows;
    a.V = V;
    a.ignore_index = call.ignore_index;
    a.label_smoothing = call.label_smoothing;
    a.target64 = is_index64(call.target);
    if (rows > 0) {
        RowPlan p = plan_rows(d, rows, V, element_size(call.logits), opk::kRowConfigs, 0);
        const int64_t row_bytes = V * int64_t(element_size(call.logits));
        // A kernel of its own where one takes the rows (stash_plan, then fixed_forward_plan),
        // else the row family's config.
        RowPlan own{};
        const char* k = call.dlogits ? stash_plan(d, rows, V, type, element_size(call.logits), a.logits.vec != 0, &own)
                                     : nullptr;
        if (!k) k = fixed_forward_plan(d, rows, row_bytes, p, type, call.dlogits != nullptr, &own);
        if (k)
            OPKIT_GPU_TRY(launch(d, Module::cross_entropy, k, own.grid, own.block, s, a, own.smem));
        else
            OPKIT_GPU_TRY(launch_rows(d, Module::cross_entropy, kFwd[type],
                                      call.dlogits ? reread_plan(d, rows, row_bytes, p) : single_pass_plan(d, rows, p),
                                      s, a));
    }
    if (reduced && call.loss) {
        float* out = static_cast<float*>(static_cast<void*>(base_of(call.loss)));
        opk::LossSumArgs r{};
        r.values = row_losses;
        r.count = rows;
        r.divisor = count_first ? count : nullptr;
        r.out = out;
        if (mean && !count_first) {
            r.target = strided_view(call.target);
            r.ignore_index = call.ignore_index;
            r.target64 = is_index64(call.target);
            r.count_targets = 1;
        }
        // May start while the forward kernel drains; waits for it before reading a loss.
        OPKIT_GPU_TRY(
            launch_2d(d, Module::cross_entropy, "opk_ce_loss_sum", 1, 1, 1024, s, r, 0, /*dependent=*/true));
    }
    return OPKIT_OK;
}

opkit_status run(const args::cross_entropy_backward& call) {
    const char* op = "cross_entropy_backward";
    int type;
    OPKIT_GPU_TRY(need_float(op, call.logits, &type));
    OPKIT_GPU_TRY(check_all(op, {{"dloss", call.dloss}, {"logits", call.logits}, {"target", call.target},
                                  {"lse", call.lse}, {"dlogits", call.dlogits}}));
    const int64_t rows = call.logits->shape[0], V = call.logits->shape[1];
    if (rows == 0) return OPKIT_OK;
    DeviceScope scope;
    OPKIT_GPU_TRY(scope.enter(call.logits->device.device_id));
    Device& d = scope.dev();
    const opkit_stream s = call.stream;
    const bool mean = call.reduction == OPKIT_REDUCTION_MEAN;
    Scratch scratch(d, s);
    unsigned long long* count = nullptr;
    if (mean) {
        void* mem = nullptr;
        OPKIT_GPU_TRY(scratch.alloc(16, &mem));
        count = static_cast<unsigned long long*>(mem);
        OPKIT_GPU_TRY(count_valid(d, s, call.target, rows, call.ignore_index, count));
    }
    opk::CrossEntropyArgs a{};
    a.logits = rows_view(call.logits, 1);
    a.grad = rows_view(call.dlogits, 1);
    a.target = strided_view(call.target);
    a.lse = strided_view(call.lse);
    a.dloss = strided_view(call.dloss);
    a.dloss_per_row = call.reduction == OPKIT_REDUCTION_NONE;
    a.valid_rows = count;
    a.rows = rows;
    a.V = V;
    a.ignore_index = call.ignore_index;
    a.label_smoothing = call.label_smoothing;
    a.target64 = is_index64(call.target);
    const RowPlan p = plan_rows(d, rows, V, element_size(call.logits), opk::kRowConfigs, 0);
    return launch_rows(d, Module::cross_entropy, kBwd[type], p, s, a);
}

}  // namespace opkit_gpu
