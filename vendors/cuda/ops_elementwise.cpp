// swiglu, geglu (erf and tanh) forward and backward, and axpy: element-wise kernels over
// up to five tensors of one shape.
#include "ops_common.h"

#include <vector>

namespace opkit_cuda {

opkit_status run_elementwise(const char* op, const char* const (&names)[2][3], const std::vector<const opkit_tensor*>& ts,
                             float alpha, opkit_stream stream) {
    int type;
    OPKIT_CUDA_TRY(need_float(op, ts.back(), &type));
    for (const opkit_tensor* t : ts) OPKIT_CUDA_TRY(check_element_aligned(op, "a tensor", t));
    const opkit_tensor* shape = ts.back();
    if (numel(shape) == 0) return OPKIT_OK;
    DeviceScope scope;
    OPKIT_CUDA_TRY(scope.enter(shape->device.device_id));
    Device& d = scope.dev();
    opk::ElementwiseArgs a{};
    bool dense = true;
    for (const opkit_tensor* t : ts) dense = dense && contiguous(t);
    // Dense tensors are one long row: no row arithmetic at all in the kernel.
    a.rows = dense ? 1 : rows_of(shape);
    a.n = dense ? numel(shape) : inner_of(shape);
    for (size_t i = 0; i < ts.size(); ++i) a.t[i] = dense ? flat_view(ts[i]) : rows_view(ts[i], ts[i]->ndim - 1);
    a.alpha = alpha;
    const int64_t pack = int64_t(16 / element_size(shape));
    const int64_t packs = a.rows * ((a.n + pack - 1) / pack);
    const size_t grid = dense ? one_pack_per_thread_grid(packs) : pack_grid(d, packs);
    return launch(d, Module::elementwise, names[dense][type], grid, 256, as_stream(stream), a);
}

}  // namespace opkit_cuda

namespace {

using namespace opkit_cuda;

const char* const kSwigluFwd[2][3] = OPK_EW_NAMES("opk_swiglu_fwd");
const char* const kSwigluBwd[2][3] = OPK_EW_NAMES("opk_swiglu_bwd");
const char* const kGeluErfFwd[2][3] = OPK_EW_NAMES("opk_geglu_erf_fwd");
const char* const kGeluErfBwd[2][3] = OPK_EW_NAMES("opk_geglu_erf_bwd");
const char* const kGeluTanhFwd[2][3] = OPK_EW_NAMES("opk_geglu_tanh_fwd");
const char* const kGeluTanhBwd[2][3] = OPK_EW_NAMES("opk_geglu_tanh_bwd");
const char* const kAxpy[2][3] = OPK_EW_NAMES("opk_axpy");

}  // namespace

extern "C" OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_swiglu_forward(const opkit_tensor* a, const opkit_tensor* b,
                                                                        opkit_tensor* y, opkit_stream stream) {
    return guarded("swiglu_forward", [&] { return run_elementwise("swiglu_forward", kSwigluFwd, {a, b, y}, 0.0f, stream); });
}

extern "C" OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_swiglu_backward(const opkit_tensor* dy, const opkit_tensor* a,
                                                                         const opkit_tensor* b, opkit_tensor* da,
                                                                         opkit_tensor* db, opkit_stream stream) {
    return guarded("swiglu_backward",
                   [&] { return run_elementwise("swiglu_backward", kSwigluBwd, {dy, a, b, da, db}, 0.0f, stream); });
}

extern "C" OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_geglu_forward(const opkit_tensor* a, const opkit_tensor* b,
                                                                       int32_t approximate, opkit_tensor* y,
                                                                       opkit_stream stream) {
    return guarded("geglu_forward", [&] {
        return run_elementwise("geglu_forward", approximate == OPKIT_GELU_TANH ? kGeluTanhFwd : kGeluErfFwd,
                               {a, b, y}, 0.0f, stream);
    });
}

extern "C" OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_geglu_backward(const opkit_tensor* dy, const opkit_tensor* a,
                                                                        const opkit_tensor* b, int32_t approximate,
                                                                        opkit_tensor* da, opkit_tensor* db,
                                                                        opkit_stream stream) {
    return guarded("geglu_backward", [&] {
        return run_elementwise("geglu_backward", approximate == OPKIT_GELU_TANH ? kGeluTanhBwd : kGeluErfBwd,
                               {dy, a, b, da, db}, 0.0f, stream);
    });
}

extern "C" OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_axpy(float alpha, const opkit_tensor* x, opkit_tensor* y,
                                                              opkit_stream stream) {
    return guarded("axpy", [&] { return run_elementwise("axpy", kAxpy, {x, y, y}, alpha, stream); });
}
