// Embedding lookup and its backward. One thread per 16-byte pack of an output row.
//
// An id outside [0, V) is never dereferenced: the forward writes a NaN row for it and the
// backward skips it (documented in docs/cuda-vendor.md). The backward adds dy rows into
// an fp32 accumulator with atomics (zeroed by the host first); for f16/bf16 weights
// opk_store_rows then converts the accumulator into dweight.
#include "rows.cuh"

namespace opk {
namespace {

OPK_DEV int64_t id_at(const EmbeddingArgs& a, int64_t k) {
    const int64_t off = row_offset(a.ids, k);
    return a.ids64 ? static_cast<const int64_t*>(a.ids.data)[off]
                   : int64_t(static_cast<const int32_t*>(a.ids.data)[off]);
}

template <typename T>
OPK_DEV void emb_forward(const EmbeddingArgs& a) {
    constexpr int P = Pack<T>::n;
    const int64_t D = a.D, packs = (D + P - 1) / P, total = a.count * packs;
    const bool vec = a.weight_vec && a.rows.vec;
    for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
         i += int64_t(gridDim.x) * blockDim.x) {
        const int64_t k = i / packs, c = i - k * packs, e = c * P;
        const int64_t id = id_at(a, k);
        T* yr = row_ptr<T>(a.rows, k);
        if (id < 0 || id >= a.V) {
            float nan[P];
#pragma unroll
            for (int j = 0; j < P; ++j) nan[j] = NAN;
            store_pack<T, P>(yr, c, D, a.rows.vec, nan);
            continue;
        }
        const T* wr = static_cast<const T*>(a.weight) + id * a.weight_stride;
        if (vec && e + P <= D) {  // a raw copy: bit-exact, NaN payloads included
            *reinterpret_cast<uint4*>(yr + e) = *reinterpret_cast<const uint4*>(wr + e);
        } else {
            for (int j = 0; j < P && e + j < D; ++j) yr[e + j] = wr[e + j];
        }
    }
}

template <typename T>
OPK_DEV void emb_backward(const EmbeddingArgs& a) {
    constexpr int P = Pack<T>::n;
    const int64_t D = a.D, packs = (D + P - 1) / P, total = a.count * packs;
    for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
         i += int64_t(gridDim.x) * blockDim.x) {
        const int64_t k = i / packs, c = i - k * packs;
        const int64_t id = id_at(a, k);
        if (id == a.padding_idx || id < 0 || id >= a.V) continue;
        float v[P];
        load_pack<T, P>(row_ptr<const T>(a.rows, k), c, D, a.rows.vec, v);
        float* dst = a.acc + id * a.acc_stride + c * P;
#pragma unroll
        for (int j = 0; j < P; ++j)
            if (c * P + j < D) atomicAdd(dst + j, v[j]);
    }
}

template <typename T>
OPK_DEV void store_rows(const StoreRowsArgs& a) {
    constexpr int P = Pack<T>::n;
    const int64_t n = a.n, packs = (n + P - 1) / P, total = a.rows * packs;
    for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
         i += int64_t(gridDim.x) * blockDim.x) {
        const int64_t r = i / packs, c = i - r * packs;
        const float* src = a.src + r * a.src_stride + c * P;
        float v[P];
#pragma unroll
        for (int j = 0; j < P; ++j) v[j] = c * P + j < n ? src[j] : 0.0f;
        store_pack<T, P>(row_ptr<T>(a.dst, r), c, n, a.dst.vec, v);
    }
}

}  // namespace
}  // namespace opk

using namespace opk;

OPK_KERNEL(opk_emb_fwd_f32, 256)(const EmbeddingArgs a) { emb_forward<float>(a); }
OPK_KERNEL(opk_emb_fwd_f16, 256)(const EmbeddingArgs a) { emb_forward<opk_f16>(a); }
OPK_KERNEL(opk_emb_fwd_bf16, 256)(const EmbeddingArgs a) { emb_forward<opk_bf16>(a); }
OPK_KERNEL(opk_emb_bwd_f32, 256)(const EmbeddingArgs a) { emb_backward<float>(a); }
OPK_KERNEL(opk_emb_bwd_f16, 256)(const EmbeddingArgs a) { emb_backward<opk_f16>(a); }
OPK_KERNEL(opk_emb_bwd_bf16, 256)(const EmbeddingArgs a) { emb_backward<opk_bf16>(a); }
OPK_KERNEL(opk_store_rows_f32, 256)(const StoreRowsArgs a) { store_rows<float>(a); }
OPK_KERNEL(opk_store_rows_f16, 256)(const StoreRowsArgs a) { store_rows<opk_f16>(a); }
OPK_KERNEL(opk_store_rows_bf16, 256)(const StoreRowsArgs a) { store_rows<opk_bf16>(a); }
