// Embedding lookup and its backward.
//
// An id outside [0, V) is never dereferenced: the forward writes a NaN row for it and the
// backward skips it (documented in docs/cuda-vendor.md). Ids equal to padding_idx add
// nothing either.
//
// Forward: a block per part of an output row, two 16-byte packs a thread (emb_forward).
//
// Backward: the work is dweight written once plus the ids' dy rows, never a dense
// [V, D] accumulator. The host zeroes tag[V] and the counters and sets owner[V] to ~0, then:
//   1. opk_emb_mark: for each counted id at position k, owner[id] = atomicMin(owner[id], k),
//      so a row's owner is its first position whatever the timing; every position that
//      finds an owner already set marks the id repeated (tag 1).
//   2. opk_emb_classify: the owner of a repeated id takes an fp32 accumulator row (tag =
//      2 + row; for f32 weights the row is dweight[id] itself) and lists itself in
//      `owners`; the id's other positions list themselves in `others`.
//   3. opk_emb_bwd_init: each listed owner stores its dy row into the accumulator row.
//   4. opk_emb_bwd_add: each listed other position atomically adds its dy row into it.
//   5. opk_emb_bwd_write: every dweight row once: zeros (no id), the owner's dy row (an id
//      at one position: a copy, no rounding), or the accumulator row converted to T
//      (skipped for f32, where it already is dweight).
// Where dweight is one contiguous run on a 16-byte boundary (the usual [V, D] tensor), step 5
// is split: opk_emb_bwd_zero zeroes the whole run first (before step 3, which may write f32
// rows in place), at the rate of a plain fill, and opk_emb_bwd_write_ids writes only the
// ids' rows, each from its owner position. A walk over every row that must first read the
// row's owner writes 3.3-3.6 TB/s on an H200, a fill 4.6 (bench/experiments/
// embedding_write_variants.cu); the ids' rows are then written twice, a few percent of
// dweight at the usual sizes (8192 of 128256 rows).
// Only repeated ids use atomics and the accumulator, so the order of the fp32 additions
// into such a row (and so its last bits) depends on timing; which position owns a row
// does not. Row kernels give each row a group of threads (a power of 2 up to the block)
// that walks its 16-byte packs, several loads in flight, with no 64-bit division.
#include "rows.cuh"

namespace opk {
namespace {

constexpr unsigned long long kNoOwner = ~0ull;

OPK_DEV int64_t id_at(const EmbeddingArgs& a, int64_t k) {
    const int64_t off = row_offset(a.ids, k);
    return a.ids64 ? static_cast<const int64_t*>(a.ids.data)[off]
                   : int64_t(static_cast<const int32_t*>(a.ids.data)[off]);
}

OPK_DEV bool counted(const EmbeddingArgs& a, int64_t id) { return id != a.padding_idx && id >= 0 && id < a.V; }

// The block's threads in groups of `width` (a power of 2, at most the block, so the host
// launches power-of-2 blocks) that share one row: group g of block b takes rows
// b * groups + g, then steps by the grid's groups. `lane` is the thread's first pack.
struct IdRows {  // rows of D spread over groups of `width` threads of a block
    int lane, width;
    int64_t first, step;
};

OPK_DEV IdRows id_rows(int64_t packs) {
    int w = 1;
    while (w < packs && w < int(blockDim.x)) w <<= 1;
    const int groups = int(blockDim.x) / w;
    IdRows g;
    g.lane = int(threadIdx.x) & (w - 1);
    g.width = w;
    g.first = int64_t(blockIdx.x) * groups + int(threadIdx.x) / w;
    g.step = int64_t(gridDim.x) * groups;
    return g;
}

// Pack c of an fp32 row of n elements: P floats, 16-byte accesses when vec and whole.
template <int P>
OPK_DEV void load_f32(const float* row, int64_t c, int64_t n, bool vec, float (&v)[P]) {
    const int64_t e = c * P;
    if (vec && e + P <= n) {
#pragma unroll
        for (int j = 0; j < P; j += 4) {
            const float4 q = *reinterpret_cast<const float4*>(row + e + j);
            v[j] = q.x;
            v[j + 1] = q.y;
            v[j + 2] = q.z;
            v[j + 3] = q.w;
        }
    } else {
#pragma unroll
        for (int j = 0; j < P; ++j) v[j] = e + j < n ? row[e + j] : 0.0f;
    }
}

template <int P>
OPK_DEV void store_f32(float* row, int64_t c, int64_t n, bool vec, const float (&v)[P]) {
    const int64_t e = c * P;
    if (vec && e + P <= n) {
#pragma unroll
        for (int j = 0; j < P; j += 4)
            *reinterpret_cast<float4*>(row + e + j) = make_float4(v[j], v[j + 1], v[j + 2], v[j + 3]);
    } else {
#pragma unroll
        for (int j = 0; j < P; ++j)
            if (e + j < n) row[e + j] = v[j];
    }
}

// A 16-byte pack of NaNs of type T, built from words (a local array of T here became 2 KiB
// of LDS per block on gfx90a/gfx940: rows.cuh's rule against punned local arrays).
template <typename T>
OPK_DEV uint4 nan_pack() {
    uint32_t w;
    if constexpr (sizeof(T) == 4)
        w = __float_as_uint(NAN);
    else
        w = f32_to_word(NAN, NAN, T());
    return make_uint4(w, w, w, w);
}

// The forward's blocks: kEmbeddingForwardThreads threads copy kEmbeddingForwardUnroll
// packs each of one output row, every load of a thread issued before its stores; the
// grid's x is the part of a row, its y the row (stepping by gridDim.y past the second
// dimension's limit), so no block divides. On an H200, V 128256 x D 4096 with 8192 ids
// (bench/experiments/embedding_forward_variants.cu, "rows2d" B128 U2; docs/PERFORMANCE.md):
// 0.036 / 0.069 ms bf16 / f32, against 0.043 / 0.080 for the first kernel (one thread per
// pack in a grid-stride loop, a 64-bit division and a row lookup per pack) and 0.040 /
// 0.076 for a 1-D grid whose blocks found their row with one division. In the library
// (the dense kernel below, launched as the host does): 0.0367 / 0.0698 ms; this general
// kernel on the same grid 0.0400 / 0.0744.
template <typename T>
OPK_DEV void emb_forward(const EmbeddingArgs& a) {
    constexpr int P = Pack<T>::n, U = kEmbeddingForwardUnroll;
    const int64_t D = a.D, packs = (D + P - 1) / P;
    const int64_t c0 = int64_t(blockIdx.x) * (int64_t(blockDim.x) * U) + threadIdx.x;
    const bool vec = a.weight_vec && a.rows.vec;
    for (int64_t k = blockIdx.y; k < a.count; k += gridDim.y) {
        const int64_t id = id_at(a, k);  // the same for the whole block
        T* yr = row_ptr<T>(a.rows, k);
        // An id out of range writes NaN through the same stores (one store path kept the
        // AMD build's scalar registers from spilling: 104 SGPRs with 30 spilled with a
        // second one, store_pack's).
        const bool bad = id < 0 || id >= a.V;
        const T* wr = static_cast<const T*>(a.weight) + (bad ? 0 : id) * a.weight_stride;
        uint4 v[U];  // raw copies: bit-exact, NaN payloads included
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const int64_t e = (c0 + int64_t(u) * blockDim.x) * P;
            if (vec && e + P <= D) v[u] = bad ? nan_pack<T>() : *reinterpret_cast<const uint4*>(wr + e);
        }
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const int64_t c = c0 + int64_t(u) * blockDim.x, e = c * P;
            if (c >= packs) continue;
            if (vec && e + P <= D)
                *reinterpret_cast<uint4*>(yr + e) = v[u];
            else
                for (int j = 0; j < P && e + j < D; ++j) yr[e + j] = bad ? from_f32<T>(NAN) : wr[e + j];
        }
    }
}

// The forward for the common layout, which the host picks when the ids are one strided
// run (nd <= 1), the rows of y one stride apart, the table and y 16-byte aligned and D a
// whole number of packs: no row lookup through RowsView and no tail, so its registers stay
// near those of the experiment's copy (28 on sm_90, against 56 for emb_forward, whose
// generality keeps 64-bit offsets of two views live: that is 9 blocks an SM instead of
// 16, and a gather's speed is its loads in flight).
template <typename T>
OPK_DEV void emb_forward_dense(const EmbeddingArgs& a) {
    constexpr int P = Pack<T>::n, U = kEmbeddingForwardUnroll;
    const int64_t packs = a.D / P;
    const int64_t c0 = int64_t(blockIdx.x) * (int64_t(blockDim.x) * U) + threadIdx.x;
    const int64_t ids_stride = a.ids.nd ? a.ids.stride[0] : 0, y_stride = a.rows.nd ? a.rows.stride[0] : 0;
    for (int64_t k = blockIdx.y; k < a.count; k += gridDim.y) {
        const int64_t id = a.ids64 ? static_cast<const int64_t*>(a.ids.data)[k * ids_stride]
                                   : int64_t(static_cast<const int32_t*>(a.ids.data)[k * ids_stride]);
        const bool bad = id < 0 || id >= a.V;  // a NaN row, the table not read
        const uint4* src = reinterpret_cast<const uint4*>(static_cast<const T*>(a.weight) +
                                                          (bad ? 0 : id) * a.weight_stride);
        uint4* dst = reinterpret_cast<uint4*>(static_cast<T*>(a.rows.data) + k * y_stride);
        uint4 v[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const int64_t c = c0 + int64_t(u) * blockDim.x;
            if (c < packs) v[u] = bad ? nan_pack<T>() : src[c];
        }
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const int64_t c = c0 + int64_t(u) * blockDim.x;
            if (c < packs) dst[c] = v[u];
        }
    }
}

// Step 1: owners (first position of each counted id) and the repeated mark.
OPK_DEV void emb_mark(const EmbeddingArgs& a) {
    for (int64_t k = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; k < a.count;
         k += int64_t(gridDim.x) * blockDim.x) {
        const int64_t id = id_at(a, k);
        if (!counted(a, id)) continue;
        if (atomicMin(a.owner + id, static_cast<unsigned long long>(k)) != kNoOwner) a.tag[id] = 1;
    }
}

// Step 2: accumulator rows for repeated ids and the two position lists.
OPK_DEV void emb_classify(const EmbeddingArgs& a) {
    for (int64_t k = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; k < a.count;
         k += int64_t(gridDim.x) * blockDim.x) {
        const int64_t id = id_at(a, k);
        if (!counted(a, id) || a.tag[id] == 0) continue;  // only the owner rewrites a nonzero tag
        if (a.owner[id] == static_cast<unsigned long long>(k)) {
            const unsigned long long row =
                a.acc_is_dweight ? static_cast<unsigned long long>(id) : atomicAdd(a.counters + 0, 1ull);
            a.tag[id] = row + 2;
            a.owners[atomicAdd(a.counters + 1, 1ull)] = static_cast<unsigned long long>(k);
        } else {
            a.others[atomicAdd(a.counters + 2, 1ull)] = static_cast<unsigned long long>(k);
        }
    }
}

// Steps 3 and 4: the listed positions' dy rows stored (ADD false) or atomically added
// (ADD true) into their id's accumulator row.
template <typename T, bool ADD>
OPK_DEV void emb_accumulate(const EmbeddingArgs& a) {
    constexpr int P = Pack<T>::n;
    const int64_t D = a.D, packs = (D + P - 1) / P;
    const unsigned long long* list = ADD ? a.others : a.owners;
    const int64_t n = int64_t(a.counters[ADD ? 2 : 1]);
    const IdRows g = id_rows(packs);
    for (int64_t j = g.first; j < n; j += g.step) {
        const int64_t k = int64_t(list[j]);
        const int64_t id = id_at(a, k);
        float* acc = a.acc + int64_t(a.tag[id] - 2) * a.acc_stride;
        const T* src = row_ptr<const T>(a.rows, k);
        // stream_row keeps kStreamUnroll packs of the dy row in flight per thread.
        stream_row<T>(src, Span{D, packs, g.lane, g.width}, a.rows.vec, 0.0f,
                      [&](int, int64_t c, const float(&v)[P]) {
                          if (ADD) {
                              const int64_t e = c * P;
#pragma unroll
                              for (int q = 0; q < P; ++q)
                                  if (e + q < D) atomicAdd(acc + e + q, v[q]);
                          } else {
                              store_f32<P>(acc, c, D, a.acc_vec, v);
                          }
                      });
    }
}

// dweight row `dst` of an id that some position owns: that position's dy row (tag 0: the id
// at one position; + 0 turns -0 into the +0 a sum would give) or the id's fp32 accumulator
// row converted to T; nothing where the accumulator row is dweight's own (f32).
template <typename T>
OPK_DEV void emb_write_owned(const EmbeddingArgs& a, T* dst, unsigned long long owner, unsigned long long tag,
                             const IdRows& g) {
    constexpr int P = Pack<T>::n;
    const int64_t D = a.D, packs = (D + P - 1) / P;
    const bool dvec = a.dweight.vec != 0;
    if (tag == 0) {
        const T* src = row_ptr<const T>(a.rows, int64_t(owner));
        stream_row<T>(src, Span{D, packs, g.lane, g.width}, a.rows.vec, 0.0f,
                      [&](int, int64_t c, const float(&v)[P]) {
                          float x[P];
#pragma unroll
                          for (int q = 0; q < P; ++q) x[q] = v[q] + 0.0f;
                          store_pack<T, P>(dst, c, D, dvec, x);
                      });
    } else if (!a.acc_is_dweight) {
        const float* acc = a.acc + int64_t(tag - 2) * a.acc_stride;
        OPK_AMD_NO_UNROLL
        for (int64_t c = g.lane; c < packs; c += g.width) {
            float x[P];
            load_f32<P>(acc, c, D, a.acc_vec, x);
            store_pack<T, P>(dst, c, D, dvec, x);
        }
    }
}

// Step 5: every dweight row, once.
template <typename T>
OPK_DEV void emb_write(const EmbeddingArgs& a) {
    constexpr int P = Pack<T>::n;
    const int64_t D = a.D, packs = (D + P - 1) / P;
    const bool dvec = a.dweight.vec != 0;
    const IdRows g = id_rows(packs);
    // A row's owner and tag are loaded together, and the next row's while this one is
    // written, so a row's stores do not wait for a dependent load.
    unsigned long long owner = g.first < a.V ? a.owner[g.first] : kNoOwner;
    unsigned long long tag = g.first < a.V ? a.tag[g.first] : 0;
    for (int64_t v = g.first; v < a.V; v += g.step) {
        T* dst = row_ptr<T>(a.dweight, v);
        const unsigned long long this_owner = owner, this_tag = tag;
        if (v + g.step < a.V) {
            owner = a.owner[v + g.step];
            tag = a.tag[v + g.step];
        }
        if (this_owner == kNoOwner) {
            for (int64_t c = g.lane; c < packs; c += g.width) {
                const int64_t e = c * P;
                if (dvec && e + P <= D) {
                    *reinterpret_cast<uint4*>(dst + e) = make_uint4(0u, 0u, 0u, 0u);
                } else {
                    for (int64_t j = e; j < e + P && j < D; ++j) dst[j] = from_f32<T>(0.0f);
                }
            }
        } else {
            emb_write_owned<T>(a, dst, this_owner, this_tag, g);
        }
    }
}

// Step 5 where dweight is one contiguous run on a 16-byte boundary, first half: all of it
// zeroed, a 16-byte pack a thread (the elements past the last whole pack one a thread).
// All zero bits are +0 in every float type.
template <typename T>
OPK_DEV void emb_zero(const EmbeddingArgs& a) {
    constexpr int P = Pack<T>::n;
    const int64_t n = a.V * a.D, packs = n / P;
    T* const out = static_cast<T*>(a.dweight.data);
    const int64_t step = int64_t(gridDim.x) * blockDim.x;
    for (int64_t c = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; c < packs; c += step)
        reinterpret_cast<uint4*>(out)[c] = make_uint4(0u, 0u, 0u, 0u);
    const int64_t t = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t < n - packs * P) out[packs * P + t] = from_f32<T>(0.0f);
}

// Second half: the rows of the ids, each once, by the group of its owner position.
template <typename T>
OPK_DEV void emb_write_ids(const EmbeddingArgs& a) {
    constexpr int P = Pack<T>::n;
    const IdRows g = id_rows((a.D + P - 1) / P);
    for (int64_t k = g.first; k < a.count; k += g.step) {
        const int64_t id = id_at(a, k);
        if (!counted(a, id) || a.owner[id] != static_cast<unsigned long long>(k)) continue;
        emb_write_owned<T>(a, row_ptr<T>(a.dweight, id), static_cast<unsigned long long>(k), a.tag[id], g);
    }
}

}  // namespace
}  // namespace opk

using namespace opk;

OPK_KERNEL(opk_emb_fwd_f32, kEmbeddingForwardThreads)(const EmbeddingArgs a) { emb_forward<float>(a); }
OPK_KERNEL(opk_emb_fwd_f16, kEmbeddingForwardThreads)(const EmbeddingArgs a) { emb_forward<opk_f16>(a); }
OPK_KERNEL(opk_emb_fwd_bf16, kEmbeddingForwardThreads)(const EmbeddingArgs a) { emb_forward<opk_bf16>(a); }
OPK_KERNEL(opk_emb_fwd_dense_f32, kEmbeddingForwardThreads)(const EmbeddingArgs a) { emb_forward_dense<float>(a); }
OPK_KERNEL(opk_emb_fwd_dense_f16, kEmbeddingForwardThreads)(const EmbeddingArgs a) { emb_forward_dense<opk_f16>(a); }
OPK_KERNEL(opk_emb_fwd_dense_bf16, kEmbeddingForwardThreads)(const EmbeddingArgs a) { emb_forward_dense<opk_bf16>(a); }
OPK_KERNEL(opk_emb_mark, 256)(const EmbeddingArgs a) { emb_mark(a); }
// On AMD this kernel reads its arguments where the dispatch put them, in the read-only
// kernarg segment (the only explicit argument, so at offset 0): clang 15 gives a struct
// passed by value a private copy, which the optimizer folds back into kernarg loads only
// when no store may alias it, and this loop's flat atomics and stores might as far as it
// knows, so every lane copied all 552 bytes to scratch (560 B/lane). nvcc: as written.
OPK_KERNEL(opk_emb_classify, 256)(const EmbeddingArgs a) {
#if defined(__HIP_DEVICE_COMPILE__)
    (void)a;
    emb_classify(*(const EmbeddingArgs*)__builtin_amdgcn_kernarg_segment_ptr());
#else
    emb_classify(a);
#endif
}
OPK_KERNEL(opk_emb_bwd_init_f32, 256)(const EmbeddingArgs a) { emb_accumulate<float, false>(a); }
OPK_KERNEL(opk_emb_bwd_init_f16, 256)(const EmbeddingArgs a) { emb_accumulate<opk_f16, false>(a); }
OPK_KERNEL(opk_emb_bwd_init_bf16, 256)(const EmbeddingArgs a) { emb_accumulate<opk_bf16, false>(a); }
OPK_KERNEL(opk_emb_bwd_add_f32, 256)(const EmbeddingArgs a) { emb_accumulate<float, true>(a); }
OPK_KERNEL(opk_emb_bwd_add_f16, 256)(const EmbeddingArgs a) { emb_accumulate<opk_f16, true>(a); }
OPK_KERNEL(opk_emb_bwd_add_bf16, 256)(const EmbeddingArgs a) { emb_accumulate<opk_bf16, true>(a); }
OPK_KERNEL(opk_emb_bwd_write_f32, 256)(const EmbeddingArgs a) { emb_write<float>(a); }
OPK_KERNEL(opk_emb_bwd_write_f16, 256)(const EmbeddingArgs a) { emb_write<opk_f16>(a); }
OPK_KERNEL(opk_emb_bwd_write_bf16, 256)(const EmbeddingArgs a) { emb_write<opk_bf16>(a); }
OPK_KERNEL(opk_emb_bwd_zero_f32, 256)(const EmbeddingArgs a) { emb_zero<float>(a); }
OPK_KERNEL(opk_emb_bwd_zero_f16, 256)(const EmbeddingArgs a) { emb_zero<opk_f16>(a); }
OPK_KERNEL(opk_emb_bwd_zero_bf16, 256)(const EmbeddingArgs a) { emb_zero<opk_bf16>(a); }
OPK_KERNEL(opk_emb_bwd_write_ids_f32, 256)(const EmbeddingArgs a) { emb_write_ids<float>(a); }
OPK_KERNEL(opk_emb_bwd_write_ids_f16, 256)(const EmbeddingArgs a) { emb_write_ids<opk_f16>(a); }
OPK_KERNEL(opk_emb_bwd_write_ids_bf16, 256)(const EmbeddingArgs a) { emb_write_ids<opk_bf16>(a); }
