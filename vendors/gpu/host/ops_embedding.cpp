// embedding forward (row gather) and backward (dy rows summed into dweight).
//
// Backward (the steps are in vendors/gpu/embedding.cu): one stream-ordered scratch
// allocation holds owner[V] and tag[V] (8 bytes each), three counters, two position lists
// of `count` entries and, for f16/bf16 weights, fp32 accumulator rows for the ids that
// occur more than once: at most min(count / 2, V) rows of D (each such id takes two
// positions). f32 weights accumulate repeated ids straight in dweight (rows that do not
// overlap). Every dweight row is then written once, so the work is dweight's size plus the
// ids' dy rows; a contiguous dweight is zeroed whole instead, at the rate of a fill, and the
// ids' rows written over the zeros (embedding.cu says why). Atomics make the sum order of a
// repeated id's row, and so its last bits, timing dependent.
#include "ops_common.h"

namespace {

using namespace opkit_gpu;

const char* const kFwd[3] = OPK_DTYPE_NAMES("opk_emb_fwd");
const char* const kFwdDense[3] = OPK_DTYPE_NAMES("opk_emb_fwd_dense");
const char* const kInit[3] = OPK_DTYPE_NAMES("opk_emb_bwd_init");
const char* const kAdd[3] = OPK_DTYPE_NAMES("opk_emb_bwd_add");
const char* const kWrite[3] = OPK_DTYPE_NAMES("opk_emb_bwd_write");
const char* const kZero[3] = OPK_DTYPE_NAMES("opk_emb_bwd_zero");
const char* const kWriteIds[3] = OPK_DTYPE_NAMES("opk_emb_bwd_write_ids");
const char kMark[] = "opk_emb_mark";
const char kClassify[] = "opk_emb_classify";

// Blocks of 256 threads for the row-group kernels: a row gets the smallest power of 2
// threads covering its packs (at most 256, as on the device), so 256 / that many rows per
// block; a grid-stride grid of at most 16 blocks per SM.
size_t group_grid(const Device& d, int64_t rows, int64_t packs) {
    int64_t width = 1;
    while (width < packs && width < 256) width <<= 1;
    const int64_t per_block = 256 / width;
    return size_t(std::min<int64_t>((rows + per_block - 1) / per_block, int64_t(d.sm_count) * 16));
}

size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

}  // namespace

namespace opkit_gpu {

opkit_status run(const args::embedding_forward& call) {
    const char* op = "embedding_forward";
    int type;
    OPKIT_GPU_TRY(need_float(op, call.weight, &type));
    OPKIT_GPU_TRY(check_element_aligned(op, "weight", call.weight));
    OPKIT_GPU_TRY(check_element_aligned(op, "ids", call.ids));
    OPKIT_GPU_TRY(check_element_aligned(op, "y", call.y));
    const int64_t count = numel(call.ids), D = call.weight->shape[1];
    if (count == 0 || D == 0) return OPKIT_OK;
    DeviceScope scope;
    OPKIT_GPU_TRY(scope.enter(call.weight->device.device_id));
    Device& d = scope.dev();
    const int64_t es = int64_t(element_size(call.weight));
    opk::EmbeddingArgs a{};
    a.weight = base_of(call.weight);
    a.weight_stride = stride_of(call.weight, 0);
    a.weight_vec = aligned16(a.weight) && (a.weight_stride * es) % 16 == 0;
    a.ids64 = call.ids->dtype.bits == 64;
    a.ids = rows_view(call.ids, call.ids->ndim);
    a.rows = rows_view(call.y, call.y->ndim - 1);
    a.count = count;
    a.V = call.weight->shape[0];
    a.D = D;
    // Blocks of kEmbeddingForwardThreads * kEmbeddingForwardUnroll packs: x the part of a
    // row, y the row (launch_2d caps y; the kernel steps over the rest).
    const int64_t span = int64_t(opk::kEmbeddingForwardThreads) * opk::kEmbeddingForwardUnroll;
    const int64_t packs = (D + 16 / es - 1) / (16 / es), per_row = (packs + span - 1) / span;
    if (per_row > 0x7fffffff)
        return fail(OPKIT_ERROR_UNSUPPORTED, "%s: rows of %lld elements are longer than the %s vendor's launch allows", op,
                    static_cast<long long>(D), runtime().vendor());
    // The common layout (ids one strided run, y's rows one stride apart, 16-byte aligned
    // rows of whole packs) takes the kernel without row lookups (embedding.cu says why).
    const bool dense = a.ids.nd <= 1 && a.rows.nd <= 1 && a.weight_vec && a.rows.vec && D % (16 / es) == 0;
    return launch_2d(d, Module::embedding, dense ? kFwdDense[type] : kFwd[type], unsigned(per_row), size_t(count),
                     opk::kEmbeddingForwardThreads, call.stream, a);
}

opkit_status run(const args::embedding_backward& call) {
    const char* op = "embedding_backward";
    int type;
    OPKIT_GPU_TRY(need_float(op, call.dweight, &type));
    OPKIT_GPU_TRY(check_element_aligned(op, "dy", call.dy));
    OPKIT_GPU_TRY(check_element_aligned(op, "ids", call.ids));
    OPKIT_GPU_TRY(check_element_aligned(op, "dweight", call.dweight));
    const int64_t V = call.dweight->shape[0], D = call.dweight->shape[1], count = numel(call.ids);
    if (V == 0 || D == 0) return OPKIT_OK;
    DeviceScope scope;
    OPKIT_GPU_TRY(scope.enter(call.dweight->device.device_id));
    Device& d = scope.dev();
    const opkit_stream s = call.stream;
    const int64_t es = int64_t(element_size(call.dweight));
    const int64_t packs = (D + 16 / es - 1) / (16 / es);
    const int64_t row_stride = stride_of(call.dweight, 0);

    opk::EmbeddingArgs a{};
    a.ids64 = call.ids->dtype.bits == 64;
    a.ids = rows_view(call.ids, call.ids->ndim);
    a.rows = rows_view(call.dy, call.dy->ndim - 1);
    a.dweight = rows_view(call.dweight, 1);
    a.count = count;
    a.V = V;
    a.D = D;
    a.padding_idx = call.padding_idx;
    // f32 sums repeated ids in dweight itself where its rows do not overlap; otherwise
    // fp32 scratch rows, one per repeated id, padded to 16 bytes.
    a.acc_is_dweight = type == 0 && (V == 1 || row_stride >= D);
    const size_t map_bytes = round_up(size_t(V) * 16 + 3 * 8, 256);
    const size_t list_bytes = round_up(size_t(count) * 8, 256);
    const int64_t acc_rows = a.acc_is_dweight ? 0 : std::min<int64_t>(count / 2, V);
    const int64_t acc_stride = (D + 3) / 4 * 4;
    Scratch scratch(d, s);
    void* mem = nullptr;
    OPKIT_GPU_TRY(scratch.alloc(map_bytes + 2 * list_bytes + size_t(acc_rows) * size_t(acc_stride) * 4, &mem));
    char* base = static_cast<char*>(mem);
    a.owner = reinterpret_cast<unsigned long long*>(base);
    a.tag = a.owner + V;
    a.counters = a.tag + V;  // right after tag: one memset zeroes both
    a.owners = reinterpret_cast<unsigned long long*>(base + map_bytes);
    a.others = reinterpret_cast<unsigned long long*>(base + map_bytes + list_bytes);
    if (a.acc_is_dweight) {
        a.acc = reinterpret_cast<float*>(base_of(call.dweight));
        a.acc_stride = V == 1 ? D : row_stride;
        a.acc_vec = a.dweight.vec;
    } else {
        a.acc = reinterpret_cast<float*>(base + map_bytes + 2 * list_bytes);
        a.acc_stride = acc_stride;
        a.acc_vec = 1;
    }
    // dweight one contiguous run on a 16-byte boundary: zeroed whole first (before the f32
    // sums that may go into its rows), then only the ids' rows written (embedding.cu).
    const bool one_run = (V == 1 || row_stride == D) && aligned16(a.dweight.data);
    OPKIT_GPU_TRY(runtime().memset_d32_async(a.owner, 0xffffffffu, size_t(V) * 2, s));
    OPKIT_GPU_TRY(runtime().memset_d32_async(a.tag, 0, size_t(V) * 2 + 6, s));
    // A pack a thread, the partial last pack counted (its elements are written one a thread).
    if (one_run)
        OPKIT_GPU_TRY(launch(d, Module::embedding, kZero[type], one_pack_per_thread_grid((V * D * es + 15) / 16), 256,
                             s, a));
    // Sized for every position (being listed); blocks past a list's end return at once.
    const size_t rows_grid = group_grid(d, count, packs);
    if (count > 0) {
        const size_t grid = pack_grid(d, count);
        OPKIT_GPU_TRY(launch(d, Module::embedding, kMark, grid, 256, s, a));
        OPKIT_GPU_TRY(launch(d, Module::embedding, kClassify, grid, 256, s, a));
        OPKIT_GPU_TRY(launch(d, Module::embedding, kInit[type], rows_grid, 256, s, a));
        OPKIT_GPU_TRY(launch(d, Module::embedding, kAdd[type], rows_grid, 256, s, a));
    }
    if (one_run) return count > 0 ? launch(d, Module::embedding, kWriteIds[type], rows_grid, 256, s, a) : OPKIT_OK;
    return launch(d, Module::embedding, kWrite[type], group_grid(d, V, packs), 256, s, a);
}

}  // namespace opkit_gpu
