// softmax over the last dimension, forward and backward.
#include "ops_common.h"

namespace {

using namespace opkit_cuda;

const char* const kFwd[3][3] = OPK_ROW_NAMES("opk_softmax_fwd");
const char* const kBwd[3][3] = OPK_ROW_NAMES("opk_softmax_bwd");

opkit_status run(const char* op, bool backward, const opkit_tensor* a, const opkit_tensor* b,
                 opkit_tensor* out, opkit_stream stream) {
    int type;
    OPKIT_CUDA_TRY(need_float(op, a, &type));
    OPKIT_CUDA_TRY(check_element_aligned(op, backward ? "dy" : "x", a));
    OPKIT_CUDA_TRY(check_element_aligned(op, "y", b));
    OPKIT_CUDA_TRY(check_element_aligned(op, backward ? "dx" : "y", out));
    const int64_t rows = rows_of(a), n = inner_of(a);
    if (rows == 0 || n == 0) return OPKIT_OK;
    DeviceScope scope;
    OPKIT_CUDA_TRY(scope.enter(a->device.device_id));
    Device& d = scope.dev();
    opk::SoftmaxArgs args{};
    args.a = rows_view(a, a->ndim - 1);
    if (b) args.b = rows_view(b, b->ndim - 1);
    args.out = rows_view(out, out->ndim - 1);
    args.rows = rows;
    args.n = n;
    const RowPlan p =
        plan_rows(d, rows, n, element_size(a), backward ? opk::kRowConfigsBwd : opk::kRowConfigs, 0);
    return launch_rows(d, Module::softmax, backward ? kBwd[type] : kFwd[type], p, as_stream(stream), args);
}

}  // namespace

extern "C" OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_softmax_forward(const opkit_tensor* x, opkit_tensor* y,
                                                                         opkit_stream stream) {
    return guarded("softmax_forward", [&] { return run("softmax_forward", false, x, nullptr, y, stream); });
}

extern "C" OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_softmax_backward(const opkit_tensor* dy,
                                                                          const opkit_tensor* y, opkit_tensor* dx,
                                                                          opkit_stream stream) {
    return guarded("softmax_backward", [&] { return run("softmax_backward", true, dy, y, dx, stream); });
}
