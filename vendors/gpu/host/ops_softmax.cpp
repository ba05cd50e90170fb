// softmax over the last dimension, forward and backward.
#include "ops_common.h"

namespace {

using namespace opkit_gpu;

const char* const kFwd[3][3] = OPK_ROW_NAMES("opk_softmax_fwd");
const char* const kBwd[3][3] = OPK_ROW_NAMES("opk_softmax_bwd");
// fp32 rows exact for kRowConfigsFwdWide's config 1 (wide_forward_plan).
const char* const kFwdWide[3] = {"opk_softmax_fwd_f32_c0", "opk_softmax_fwd_wide_f32", "opk_softmax_fwd_f32_c2"};

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
    RowPlan wide;
    if (!backward && wide_forward_plan(d, rows, n, element_size(a), opk::kRowConfigsFwdWide, {&args.a, &args.out},
                                       &wide)) {
        args.exact = 1;
        return launch_rows(d, Module::softmax, kFwdWide, wide, stream, args);
    }
    const RowPlan p = plan_rows(d, rows, n, element_size(a), backward ? opk::kRowConfigsBwd : opk::kRowConfigs, 0,
                                0, 0, kRowGridWavesBalanced);
    args.exact = !backward && exact_rows(p, n, element_size(a), opk::kRowConfigs, {&args.a, &args.out});
    return launch_rows(d, Module::softmax, backward ? kBwd[type] : kFwd[type], p, stream, args);
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
