// cross-entropy forward and backward. MEAN needs the number of non-ignored rows before
// any gradient is scaled, so a small kernel counts them first (into scratch, on the
// stream: nothing synchronizes); the per-row losses of MEAN/SUM go to scratch and one
// block sums them in double, in a fixed order.
#include "ops_common.h"

namespace {

using namespace opkit_cuda;

const char* const kFwd[3][3] = OPK_ROW_NAMES("opk_ce_fwd");
const char* const kBwd[3][3] = OPK_ROW_NAMES("opk_ce_bwd");

bool is_index64(const opkit_tensor* t) { return t->dtype.bits == 64; }

// Counts the non-ignored targets into *count (device memory, zeroed here first).
opkit_status count_valid(Device& d, CUstream s, const opkit_tensor* target, int64_t rows, int64_t ignore_index,
                         unsigned long long* count) {
    OPKIT_CU_TRY(drv().cuMemsetD8Async(reinterpret_cast<CUdeviceptr>(count), 0, sizeof *count, s));
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
    for (const auto& [name, t] : ts) OPKIT_CUDA_TRY(check_element_aligned(op, name, t));
    return OPKIT_OK;
}

opkit_status forward(const opkit_tensor* logits, const opkit_tensor* target, int64_t ignore_index,
                     float label_smoothing, int32_t reduction, opkit_tensor* loss, opkit_tensor* lse,
                     opkit_tensor* dlogits, opkit_stream stream) {
    const char* op = "cross_entropy_forward";
    int type;
    OPKIT_CUDA_TRY(need_float(op, logits, &type));
    OPKIT_CUDA_TRY(check_all(op, {{"logits", logits}, {"target", target}, {"loss", loss}, {"lse", lse},
                                  {"dlogits", dlogits}}));
    const int64_t rows = logits->shape[0], V = logits->shape[1];
    const bool reduced = reduction != OPKIT_REDUCTION_NONE;
    DeviceScope scope;
    OPKIT_CUDA_TRY(scope.enter(logits->device.device_id));
    Device& d = scope.dev();
    const CUstream s = as_stream(stream);

    // Scratch, when needed: [valid-row count (MEAN)][per-row losses (MEAN/SUM)].
    const bool mean = reduction == OPKIT_REDUCTION_MEAN;
    Scratch scratch(d, s);
    unsigned long long* count = nullptr;
    float* row_losses = nullptr;
    const size_t loss_bytes = reduced && loss ? size_t(rows) * sizeof(float) : 0;
    if (mean || loss_bytes) {
        void* mem = nullptr;
        OPKIT_CUDA_TRY(scratch.alloc(16 + loss_bytes, &mem));
        count = static_cast<unsigned long long*>(mem);
        row_losses = reinterpret_cast<float*>(static_cast<char*>(mem) + 16);
    }
    if (mean) OPKIT_CUDA_TRY(count_valid(d, s, target, rows, ignore_index, count));

    opk::CrossEntropyArgs a{};
    a.logits = rows_view(logits, 1);
    if (dlogits) a.grad = rows_view(dlogits, 1);
    a.target = strided_view(target);
    a.lse = strided_view(lse);
    if (loss) a.loss = reduced ? opk::Strided{row_losses, 1} : strided_view(loss);
    a.valid_rows = mean ? count : nullptr;
    a.rows = rows;
    a.V = V;
    a.ignore_index = ignore_index;
    a.label_smoothing = label_smoothing;
    a.target64 = is_index64(target);
    if (rows > 0) {
        RowPlan p = plan_rows(d, rows, V, element_size(logits), opk::kRowConfigs, 0);
        p = dlogits ? reread_plan(d, rows, V * int64_t(element_size(logits)), p) : single_pass_plan(d, rows, p);
        OPKIT_CUDA_TRY(launch_rows(d, Module::cross_entropy, kFwd[type], p, s, a));
    }
    if (reduced && loss) {
        const opk::LossSumArgs r{row_losses, rows, mean ? count : nullptr, static_cast<float*>(static_cast<void*>(base_of(loss)))};
        OPKIT_CUDA_TRY(launch(d, Module::cross_entropy, "opk_ce_loss_sum", 1, 1024, s, r));
    }
    return OPKIT_OK;
}

opkit_status backward(const opkit_tensor* dloss, const opkit_tensor* logits, const opkit_tensor* target,
                      const opkit_tensor* lse, int64_t ignore_index, float label_smoothing, int32_t reduction,
                      opkit_tensor* dlogits, opkit_stream stream) {
    const char* op = "cross_entropy_backward";
    int type;
    OPKIT_CUDA_TRY(need_float(op, logits, &type));
    OPKIT_CUDA_TRY(check_all(op, {{"dloss", dloss}, {"logits", logits}, {"target", target}, {"lse", lse},
                                  {"dlogits", dlogits}}));
    const int64_t rows = logits->shape[0], V = logits->shape[1];
    if (rows == 0) return OPKIT_OK;
    DeviceScope scope;
    OPKIT_CUDA_TRY(scope.enter(logits->device.device_id));
    Device& d = scope.dev();
    const CUstream s = as_stream(stream);
    const bool mean = reduction == OPKIT_REDUCTION_MEAN;
    Scratch scratch(d, s);
    unsigned long long* count = nullptr;
    if (mean) {
        void* mem = nullptr;
        OPKIT_CUDA_TRY(scratch.alloc(16, &mem));
        count = static_cast<unsigned long long*>(mem);
        OPKIT_CUDA_TRY(count_valid(d, s, target, rows, ignore_index, count));
    }
    opk::CrossEntropyArgs a{};
    a.logits = rows_view(logits, 1);
    a.grad = rows_view(dlogits, 1);
    a.target = strided_view(target);
    a.lse = strided_view(lse);
    a.dloss = strided_view(dloss);
    a.dloss_per_row = reduction == OPKIT_REDUCTION_NONE;
    a.valid_rows = count;
    a.rows = rows;
    a.V = V;
    a.ignore_index = ignore_index;
    a.label_smoothing = label_smoothing;
    a.target64 = is_index64(target);
    const RowPlan p = plan_rows(d, rows, V, element_size(logits), opk::kRowConfigs, 0);
    return launch_rows(d, Module::cross_entropy, kBwd[type], p, s, a);
}

}  // namespace

extern "C" OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_cross_entropy_forward(
    const opkit_tensor* logits, const opkit_tensor* target, int64_t ignore_index, float label_smoothing,
    int32_t reduction, opkit_tensor* loss, opkit_tensor* lse, opkit_tensor* dlogits, opkit_stream stream) {
    return guarded("cross_entropy_forward", [&] {
        return forward(logits, target, ignore_index, label_smoothing, reduction, loss, lse, dlogits, stream);
    });
}

extern "C" OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_cross_entropy_backward(
    const opkit_tensor* dloss, const opkit_tensor* logits, const opkit_tensor* target, const opkit_tensor* lse,
    int64_t ignore_index, float label_smoothing, int32_t reduction, opkit_tensor* dlogits, opkit_stream stream) {
    return guarded("cross_entropy_backward", [&] {
        return backward(dloss, logits, target, lse, ignore_index, label_smoothing, reduction, dlogits, stream);
    });
}
