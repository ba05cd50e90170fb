// softmax over the last dimension, forward and backward.
#include "ops_common.h"

namespace {

using namespace opkit_gpu;

const char* const kFwd[3][3] = OPK_ROW_NAMES("opk_softmax_fwd");
const char* const kBwd[3][3] = OPK_ROW_NAMES("opk_softmax_bwd");
// fp32 rows exact for kRowConfigsFwdWide's config 1 (wide_forward_plan).
const char* const kFwdWide[3] = {"opk_softmax_fwd_f32_c0", "opk_softmax_fwd_wide_f32", "opk_softmax_fwd_f32_c2"};
// Rows exact for a fixed group (fixed_group_plan).
const opk::FixedKernel kFwdFixed[3][3] = OPK_SOFTMAX_FWD_FIXED_KERNELS;
// The backward's rows exact for kRowConfigsBwdExact's config 1, and 2-byte ones for
// kRowConfigsBwdWide16's (exact_plan).
const char* const kBwdExact[3][3] = {{"opk_softmax_bwd_f32_c0", "opk_softmax_bwd_exact_f32", "opk_softmax_bwd_f32_c2"},
                                     {"opk_softmax_bwd_f16_c0", "opk_softmax_bwd_exact_f16", "opk_softmax_bwd_f16_c2"},
                                     {"opk_softmax_bwd_bf16_c0", "opk_softmax_bwd_exact_bf16", "opk_softmax_bwd_bf16_c2"}};
const char* const kBwdWide16[2][3] = {{"opk_softmax_bwd_f16_c0", "opk_softmax_bwd_wide_f16", "opk_softmax_bwd_f16_c2"},
                                      {"opk_softmax_bwd_bf16_c0", "opk_softmax_bwd_wide_bf16", "opk_softmax_bwd_bf16_c2"}};
// The backward's fixed-group kernels of 2-byte rows (fixed_group_plan), [dtype - 1][i]: rows
// of exactly kBwdOnePackThreads packs at one pack a thread, one block of that many threads
// a row; rows of exactly kBwdBlockRowThreads x kBwdBlockRowPacks packs a block for every row
// (block_row: the grid is the rows; more rows than such a grid can have take the wide kernel).
#define OPK_SOFTMAX_BWD_FIXED(dt)                                                                   \
    {                                                                                               \
        {"opk_softmax_bwd_one_pack_" dt, opk::kBwdOnePackThreads, 1},                               \
            {"opk_softmax_bwd_block_row_" dt "_g512x4", opk::kBwdBlockRowThreads, opk::kBwdBlockRowPacks, true}, {} \
    }
const opk::FixedKernel kBwdFixed16[2][3] = {OPK_SOFTMAX_BWD_FIXED("f16"), OPK_SOFTMAX_BWD_FIXED("bf16")};
#undef OPK_SOFTMAX_BWD_FIXED

opkit_status run_softmax(const char* op, bool backward, const opkit_tensor* a, const opkit_tensor* b,
                         opkit_tensor* out, opkit_stream stream) {
    int type;
    OPKIT_GPU_TRY(need_float(op, a, &type));
    OPKIT_GPU_TRY(check_element_aligned(op, backward ? "dy" : "x", a));
    OPKIT_GPU_TRY(check_element_aligned(op, "y", b));
    OPKIT_GPU_TRY(check_element_aligned(op, backward ? "dx" : "y", out));
    const int64_t rows = rows_of(a), n = inner_of(a);
    if (rows == 0 || n == 0) return OPKIT_OK;
    DeviceScope scope;
    OPKIT_GPU_TRY(scope.enter(a->device.device_id));
    Device& d = scope.dev();
    opk::SoftmaxArgs args{};
    args.a = rows_view(a, a->ndim - 1);
    if (b) args.b = rows_view(b, b->ndim - 1);
    args.out = rows_view(out, out->ndim - 1);
    args.rows = rows;
    args.n = n;
    const size_t es = element_size(a);
    RowPlan special;
    if (backward) {
        // Exact rows take the exact-body kernels: 2-byte rows of kBwdOnePackThreads packs on
        // flat views at one pack a thread, of 16384 elements on flat views one block a row
        // (kBwdBlockRowThreads), of kBwdWideMinPacks or more at eight, others at
        // kRowConfigsBwdExact's.
        args.exact = 1;
        if (es == 2)
            if (const char* k = fixed_group_plan(d, rows, n, es, kBwdFixed16[type - 1], {&args.a, &args.b, &args.out},
                                                 &special))
                return launch(d, Module::softmax, k, special.grid, special.block, stream, args);
        if (es == 2 && exact_plan(d, rows, n, es, opk::kRowConfigsBwdWide16, {&args.a, &args.b, &args.out}, &special,
                                  opk::kBwdWideMinPacks))
            return launch_rows(d, Module::softmax, kBwdWide16[type - 1], special, stream, args);
        if (exact_plan(d, rows, n, es, opk::kRowConfigsBwdExact, {&args.a, &args.b, &args.out}, &special))
            return launch_rows(d, Module::softmax, kBwdExact[type], special, stream, args);
        args.exact = 0;
        const RowPlan p = plan_rows(d, rows, n, es, opk::kRowConfigsBwd, 0, 0, 0, kRowGridWavesBalanced);
        return launch_rows(d, Module::softmax, kBwd[type], p, stream, args);
    }
    args.exact = 1;
    if (const char* k = fixed_group_plan(d, rows, n, es, kFwdFixed[type], {&args.a, &args.out}, &special))
        return launch(d, Module::softmax, k, special.grid, special.block, stream, args);
    if (wide_forward_plan(d, rows, n, es, opk::kRowConfigsFwdWide, {&args.a, &args.out}, &special))
        return launch_rows(d, Module::softmax, kFwdWide, special, stream, args);
    const RowPlan p = plan_rows(d, rows, n, es, opk::kRowConfigs, 0, 0, 0, kRowGridWavesBalanced);
    args.exact = exact_rows(p, n, es, opk::kRowConfigs, {&args.a, &args.out});
    return launch_rows(d, Module::softmax, kFwd[type], p, stream, args);
}

}  // namespace

namespace opkit_gpu {

opkit_status run(const args::softmax_forward& call) {
    return run_softmax("softmax_forward", false, call.x, nullptr, call.y, call.stream);
}

opkit_status run(const args::softmax_backward& call) {
    return run_softmax("softmax_backward", true, call.dy, call.y, call.dx, call.stream);
}

}  // namespace opkit_gpu
