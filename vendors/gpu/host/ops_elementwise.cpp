// swiglu, geglu (erf and tanh) forward and backward, and axpy: element-wise kernels over
// up to five tensors of one shape.
#include "ops_common.h"

#include <cstdint>
#include <vector>

namespace opkit_gpu {

opkit_status run_elementwise(const char* op, const char* const (&names)[2][3],
                             const std::vector<const opkit_tensor*>& ts, float alpha, opkit_stream stream,
                             opk::EwDenseAccess dense_access) {
    int type;
    OPKIT_GPU_TRY(need_float(op, ts.back(), &type));
    for (const opkit_tensor* t : ts) OPKIT_GPU_TRY(check_element_aligned(op, "a tensor", t));
    const opkit_tensor* shape = ts.back();
    if (numel(shape) == 0) return OPKIT_OK;
    DeviceScope scope;
    OPKIT_GPU_TRY(scope.enter(shape->device.device_id));
    Device& d = scope.dev();
    opk::ElementwiseArgs a{};
    bool flat = true;  // every tensor dense: one long row, no row arithmetic in the kernel
    for (const opkit_tensor* t : ts) flat = flat && contiguous(t);
    const int es = int(element_size(shape));
    int access = flat ? opk::ew_dense_bytes(dense_access, es) : 16;  // bytes a thread
    // The half-pack kernels run one access a thread with no loop and no alignment test
    // (elementwise.cu): where a view is not 8-byte aligned, or the row has more accesses
    // than one grid has threads, the general kernel runs the flat row instead.
    bool dense = flat;
    if (flat && access == 8) {
        bool aligned = true;
        for (const opkit_tensor* t : ts) aligned = aligned && reinterpret_cast<uintptr_t>(base_of(t)) % 8 == 0;
        const int64_t halves = (numel(shape) + 8 / es - 1) / (8 / es);
        if (!aligned || halves > kMaxOnePackGrid * 256) {
            dense = false;
            access = 16;
        }
    }
    a.rows = flat ? 1 : rows_of(shape);
    a.n = flat ? numel(shape) : inner_of(shape);
    for (size_t i = 0; i < ts.size(); ++i) a.t[i] = flat ? flat_view(ts[i]) : rows_view(ts[i], ts[i]->ndim - 1);
    a.alpha = alpha;
    const int64_t pack = access / es;  // elements a thread
    const int64_t packs = a.rows * ((a.n + pack - 1) / pack);
    const size_t grid = dense ? one_pack_per_thread_grid(packs) : pack_grid(d, packs);
    return launch(d, Module::elementwise, names[dense][type], grid, 256, stream, a);
}

}  // namespace opkit_gpu

namespace {

using namespace opkit_gpu;

const char* const kSwigluFwd[2][3] = OPK_EW_NAMES("opk_swiglu_fwd");
const char* const kSwigluBwd[2][3] = OPK_EW_NAMES("opk_swiglu_bwd");
const char* const kGeluErfFwd[2][3] = OPK_EW_NAMES("opk_geglu_erf_fwd");
const char* const kGeluErfBwd[2][3] = OPK_EW_NAMES("opk_geglu_erf_bwd");
const char* const kGeluTanhFwd[2][3] = OPK_EW_NAMES("opk_geglu_tanh_fwd");
const char* const kGeluTanhBwd[2][3] = OPK_EW_NAMES("opk_geglu_tanh_bwd");
const char* const kAxpy[2][3] = OPK_EW_NAMES("opk_axpy");

}  // namespace

namespace opkit_gpu {

opkit_status run(const args::swiglu_forward& call) {
    return run_elementwise("swiglu_forward", kSwigluFwd, {call.a, call.b, call.y}, 0.0f, call.stream);
}

opkit_status run(const args::swiglu_backward& call) {
    return run_elementwise("swiglu_backward", kSwigluBwd, {call.dy, call.a, call.b, call.da, call.db}, 0.0f,
                           call.stream, opk::kSwigluBwdDense);
}

opkit_status run(const args::geglu_forward& call) {
    return run_elementwise("geglu_forward", call.approximate == OPKIT_GELU_TANH ? kGeluTanhFwd : kGeluErfFwd,
                           {call.a, call.b, call.y}, 0.0f, call.stream);
}

opkit_status run(const args::geglu_backward& call) {
    const bool tanh_form = call.approximate == OPKIT_GELU_TANH;
    return run_elementwise("geglu_backward", tanh_form ? kGeluTanhBwd : kGeluErfBwd,
                           {call.dy, call.a, call.b, call.da, call.db}, 0.0f, call.stream,
                           tanh_form ? opk::kGeluTanhBwdDense : opk::kEwDensePack);
}

opkit_status run(const args::axpy& call) {
    return run_elementwise("axpy", kAxpy, {call.x, call.y, call.y}, call.alpha, call.stream);
}

}  // namespace opkit_gpu
