// embedding forward (row gather) and backward (fp32 atomic accumulation).
//
// Backward: f32 weights accumulate straight into dweight (zeroed first with a 2-D
// memset, which honours its row stride); f16/bf16 weights accumulate into a dense fp32
// scratch [V, D] that opk_store_rows then converts into dweight. Atomics make the sum
// order, and so the last bits of a row hit by many ids, timing dependent.
#include "ops_common.h"

namespace {

using namespace opkit_cuda;

const char* const kFwd[3] = OPK_DTYPE_NAMES("opk_emb_fwd");
const char* const kBwd[3] = OPK_DTYPE_NAMES("opk_emb_bwd");
const char* const kStore[3] = OPK_DTYPE_NAMES("opk_store_rows");

opkit_status forward(const opkit_tensor* weight, const opkit_tensor* ids, opkit_tensor* y, opkit_stream stream) {
    const char* op = "embedding_forward";
    int type;
    OPKIT_CUDA_TRY(need_float(op, weight, &type));
    OPKIT_CUDA_TRY(check_element_aligned(op, "weight", weight));
    OPKIT_CUDA_TRY(check_element_aligned(op, "ids", ids));
    OPKIT_CUDA_TRY(check_element_aligned(op, "y", y));
    const int64_t count = numel(ids), D = weight->shape[1];
    if (count == 0 || D == 0) return OPKIT_OK;
    DeviceScope scope;
    OPKIT_CUDA_TRY(scope.enter(weight->device.device_id));
    Device& d = scope.dev();
    const int64_t es = int64_t(element_size(weight));
    opk::EmbeddingArgs a{};
    a.weight = base_of(weight);
    a.weight_stride = stride_of(weight, 0);
    a.weight_vec = aligned16(a.weight) && (a.weight_stride * es) % 16 == 0;
    a.ids64 = ids->dtype.bits == 64;
    a.ids = rows_view(ids, ids->ndim);
    a.rows = rows_view(y, y->ndim - 1);
    a.count = count;
    a.V = weight->shape[0];
    a.D = D;
    const int64_t packs = count * ((D + 16 / es - 1) / (16 / es));
    return launch(d, Module::embedding, kFwd[type], pack_grid(d, packs), 256, as_stream(stream), a);
}

opkit_status backward(const opkit_tensor* dy, const opkit_tensor* ids, int64_t padding_idx, opkit_tensor* dweight,
                      opkit_stream stream) {
    const char* op = "embedding_backward";
    int type;
    OPKIT_CUDA_TRY(need_float(op, dweight, &type));
    OPKIT_CUDA_TRY(check_element_aligned(op, "dy", dy));
    OPKIT_CUDA_TRY(check_element_aligned(op, "ids", ids));
    OPKIT_CUDA_TRY(check_element_aligned(op, "dweight", dweight));
    const int64_t V = dweight->shape[0], D = dweight->shape[1], count = numel(ids);
    if (V == 0 || D == 0) return OPKIT_OK;
    DeviceScope scope;
    OPKIT_CUDA_TRY(scope.enter(dweight->device.device_id));
    Device& d = scope.dev();
    const CUstream s = as_stream(stream);
    const int64_t es = int64_t(element_size(dweight));
    const int64_t row_stride = stride_of(dweight, 0);
    // Direct accumulation needs fp32 and rows that do not overlap (a 2-D memset pitch).
    const bool direct = type == 0 && (V == 1 || row_stride >= D);
    Scratch scratch(d, s);
    float* acc;
    int64_t acc_stride;
    if (direct) {
        acc = reinterpret_cast<float*>(base_of(dweight));
        acc_stride = V == 1 ? D : row_stride;
        OPKIT_CU_TRY(drv().cuMemsetD2D32Async(reinterpret_cast<CUdeviceptr>(acc), size_t(acc_stride) * 4, 0,
                                              size_t(D), size_t(V), s));
    } else {
        void* mem = nullptr;
        OPKIT_CUDA_TRY(scratch.alloc(size_t(V) * size_t(D) * 4, &mem));
        acc = static_cast<float*>(mem);
        acc_stride = D;
        OPKIT_CU_TRY(drv().cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(acc), 0, size_t(V) * size_t(D), s));
    }
    if (count > 0) {
        opk::EmbeddingArgs a{};
        a.ids64 = ids->dtype.bits == 64;
        a.ids = rows_view(ids, ids->ndim);
        a.rows = rows_view(dy, dy->ndim - 1);
        a.acc = acc;
        a.acc_stride = acc_stride;
        a.count = count;
        a.V = V;
        a.D = D;
        a.padding_idx = padding_idx;
        const int64_t packs = count * ((D + 16 / es - 1) / (16 / es));
        OPKIT_CUDA_TRY(launch(d, Module::embedding, kBwd[type], pack_grid(d, packs), 256, s, a));
    }
    if (!direct) {
        opk::StoreRowsArgs st{};
        st.src = acc;
        st.src_stride = D;
        st.dst = rows_view(dweight, 1);
        st.rows = V;
        st.n = D;
        const int64_t packs = V * ((D + 16 / es - 1) / (16 / es));
        OPKIT_CUDA_TRY(launch(d, Module::embedding, kStore[type], pack_grid(d, packs), 256, s, st));
    }
    return OPKIT_OK;
}

}  // namespace

extern "C" OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_embedding_forward(const opkit_tensor* weight,
                                                                           const opkit_tensor* ids, opkit_tensor* y,
                                                                           opkit_stream stream) {
    return guarded("embedding_forward", [&] { return forward(weight, ids, y, stream); });
}

extern "C" OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_embedding_backward(const opkit_tensor* dy,
                                                                            const opkit_tensor* ids,
                                                                            int64_t padding_idx,
                                                                            opkit_tensor* dweight,
                                                                            opkit_stream stream) {
    return guarded("embedding_backward", [&] { return backward(dy, ids, padding_idx, dweight, stream); });
}
