// Device helpers shared by the kernel files: row addressing, 16-byte pack access with a
// scalar fallback, and reductions over a group of threads that share one row.
#pragma once

#include "gpu_compat.h"
#include "group_reduce.cuh"
#include "kernel_params.h"

namespace opk {

// Elements per 16-byte pack: 4 for fp32, 8 for fp16/bf16.
template <typename T>
struct Pack {
    static constexpr int n = int(16 / sizeof(T));
};

// Row r's offset in elements. Views of several outer dimensions (the host merges those laid
// out as one) divide r by each size: nvcc calls its 64-bit division routine there, whose
// registers every kernel pays for unless it is told its views have one dimension
// (assume_flat below; bench/experiments/row-divide-magic.patch measured an inline
// multiply-and-shift walk instead: mixed).
// (flat_row_offset: the offset where the view has at most one outer dimension.)
OPK_DEV int64_t flat_row_offset(const RowsView& v, int64_t r) { return v.nd == 0 ? 0 : r * v.stride[0]; }
OPK_DEV int64_t row_offset(const RowsView& v, int64_t r) {
    if (v.nd <= 1) return flat_row_offset(v, r);
    int64_t off = 0;
    for (int d = v.nd - 1; d > 0; --d) {
        const int64_t q = r / v.size[d];
        off += (r - q * v.size[d]) * v.stride[d];
        r = q;
    }
    return off + r * v.stride[0];
}

template <typename T>
OPK_DEV T* row_ptr(const RowsView& v, int64_t r) {
    return static_cast<T*>(v.data) + row_offset(v, r);
}

// For kernels the host launches only on row views of at most one outer dimension (the
// forwards' fixed-group kernels, OPK_FIXED_ROW_KERNEL): the compiler, told so, leaves
// row_offset's walk over several dimensions out. (Placed in cross-entropy's bodies, the same
// assumption left the walk in: SASS unchanged, reason not found; those kernels take
// flat_row_ptr below instead. bench/sass_static.py shows whether it took.)
OPK_DEV void assume_flat(const RowsView& v) { __builtin_assume(v.nd <= 1); }
OPK_DEV void assume_flat_rows(const NormArgs& a) {
    assume_flat(a.x);
    assume_flat(a.y);
}
OPK_DEV void assume_flat_rows(const SoftmaxArgs& a) {
    assume_flat(a.a);
    assume_flat(a.out);
}
// The fixed-group forwards that take one row a block (kernel_params.h's *_fwd_block_row)
// work on a copy of their arguments whose views say one outer dimension in so many words:
// with the row loop gone, nvcc no longer kept assume_flat_rows' promise and compiled the
// walk's 64-bit divisions back in (bench/experiments/fixed-forward-block-row.patch). The
// host launches them only on such views (fixed_group_plan), and a view of nd 0 (one row)
// is at offset 0 either way.
OPK_DEV NormArgs flat_rows_copy(NormArgs a) {
    a.x.nd = 1;
    a.y.nd = 1;
    return a;
}
OPK_DEV SoftmaxArgs flat_rows_copy(SoftmaxArgs a) {
    a.a.nd = 1;
    a.out.nd = 1;
    return a;
}

// Row r of a view that has at most one outer dimension by construction (cross-entropy's
// [rows, V] tensors, rows_view(t, 1)): row_ptr without the walk.
template <typename T>
OPK_DEV T* flat_row_ptr(const RowsView& v, int64_t r) {
    return static_cast<T*>(v.data) + flat_row_offset(v, r);
}

// Asks L2 for `bytes` from p (a multiple of 16 on a 16-byte boundary: what the bulk copy
// requires): one bulk prefetch (sm_90+), no register waiting on it. Elsewhere (AMD, before
// sm_90) nothing.
OPK_DEV void prefetch_l2(const void* p, uint32_t bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(__cvta_generic_to_global(p)), "r"(bytes)
                 : "memory");
#else
    (void)p, (void)bytes;
#endif
}

// Asks L2 for row r + ahead of x, `bytes` from its start, so that the block that takes
// that row a little later reads it from L2 while this block's reads are still in flight:
// by the group's first thread, nothing past the last row.
template <typename T>
OPK_DEV void prefetch_row(const RowsView& x, int64_t r, int64_t ahead, int64_t rows, uint32_t bytes, int lane) {
    if (lane == 0 && r + ahead < rows) prefetch_l2(row_ptr<const T>(x, r + ahead), bytes);
}

// How many rows of `bytes` each make `distance` bytes: at least one.
constexpr OPK_DEV int64_t rows_ahead(int64_t bytes, int64_t distance) {
    return bytes >= distance ? 1 : distance / bytes;
}

// Rows exact for a fixed group of G threads by C packs: the row kRowPrefetchAheadBytes of
// rows ahead (kernel_params.h has the measurements).
template <typename T, int G, int C>
OPK_DEV void prefetch_row_ahead(const RowsView& x, int64_t r, int64_t rows, int lane) {
    static_assert(G > 0 && C > 0, "rows exact for a fixed group");
    constexpr int64_t bytes = int64_t(G) * C * 16;
    constexpr int64_t ahead = rows_ahead(bytes, kRowPrefetchAheadBytes);
    prefetch_row<T>(x, r, ahead, rows, uint32_t(bytes), lane);
}

template <typename T>
OPK_DEV T strided_get(const Strided& s, int64_t i) {
    return static_cast<const T*>(s.data)[i * s.stride];
}

template <typename T>
OPK_DEV void strided_set(const Strided& s, int64_t i, T value) {
    static_cast<T*>(s.data)[i * s.stride] = value;
}

OPK_DEV int64_t load_index(const Strided& s, int64_t i, bool is64) {
    return is64 ? strided_get<int64_t>(s, i) : int64_t(strided_get<int32_t>(s, i));
}

// On AMD (OPK_WORD_PACKS), 16-byte packs are uint4 values, never type-punned local arrays
// (which AMDGPU moves to LDS or scratch; gpu_compat.h): element k of a 4-byte type is
// 32-bit word k, element k of a 2-byte type is the low (k even) or high (k odd) half of
// word k / 2. nvcc keeps a punned 16-byte local array in registers, and on the H100 the
// word-built packs made the f32 cross-entropy forward with dlogits 4-7 % slower (same
// registers, different schedule; docs/gpu-kernels-portability.md), so NVIDIA keeps the
// array form, which the measured kernels were tuned with.

// Word i (0..3, a constant once unrolled) of a pack, set in place.
OPK_DEV void set_word(uint4& p, int i, uint32_t w) {
    if (i == 0)
        p.x = w;
    else if (i == 1)
        p.y = w;
    else if (i == 2)
        p.z = w;
    else
        p.w = w;
}

// Whether a pack of T converts to fp32 a 32-bit word at a time on NVIDIA too (AMD always
// does, OPK_WORD_PACKS). bf16 does: its halves are the high 16 bits of an fp32, so a word
// gives its two values with one shift and one mask (word_to_f32), where nvcc compiled
// __bfloat162float of the high half to two instructions (PRMT, IMAD.U32). Nsight Compute
// on the H200 (bench/results/2026-11-28-s8/): the bf16 layer_norm backward ran 42 warp
// instructions an element against Liger-Kernel's 20, 9 of them such conversions.
template <typename T>
constexpr bool kBf16WordUnpack = std::is_same_v<T, opk_bf16>;

// Word i of a pack into its elements of v as fp32, and those elements back into a word.
// bf16 halves through word_to_f32 (above); f16's through the type's own conversion
// (to_f32): on NVIDIA one cvt each, as the element loads of the same type compile to.
template <typename T, int P, bool Word = kBf16WordUnpack<T>>
OPK_DEV void unpack_word(uint32_t w, int i, float (&v)[P]) {
    if constexpr (sizeof(T) == 4) {
        v[i] = __uint_as_float(w);
    } else if constexpr (Word && kBf16WordUnpack<T>) {
        const float2 f = word_to_f32(w, T());
        v[2 * i] = f.x;
        v[2 * i + 1] = f.y;
    } else {
        v[2 * i] = to_f32(from_bits<T>(w & 0xffffu));
        v[2 * i + 1] = to_f32(from_bits<T>(w >> 16));
    }
}
template <typename T, int P>
OPK_DEV uint32_t pack_word(const float (&v)[P], int i) {
    if constexpr (sizeof(T) == 4)
        return __float_as_uint(v[i]);
    else
        return f32_to_word(v[2 * i], v[2 * i + 1], T());
}

// A pack as fp32 values, and fp32 values as a pack (round to nearest even). WordMode: -1
// as kBf16WordUnpack says, 0 bf16 through to_f32 as before (for the kernels that measured
// slower with the word form: kLnBwdLongWordMode, and kSoftmaxFwdExactWordMode's groups of
// fewer than 256 threads).
template <typename T, int P, int WordMode = -1>
OPK_DEV void unpack(const uint4& raw, float (&v)[P]) {
    static_assert(P == Pack<T>::n, "one whole pack");
    constexpr bool word = WordMode < 0 ? kBf16WordUnpack<T> : WordMode > 0;
#if !OPK_WORD_PACKS
    if constexpr (!word) {
        const T* t = reinterpret_cast<const T*>(&raw);
#pragma unroll
        for (int k = 0; k < P; ++k) v[k] = to_f32(t[k]);
        return;
    }
#endif
    unpack_word<T, P, word>(raw.x, 0, v);
    unpack_word<T, P, word>(raw.y, 1, v);
    unpack_word<T, P, word>(raw.z, 2, v);
    unpack_word<T, P, word>(raw.w, 3, v);
}

template <typename T, int P>
OPK_DEV uint4 pack_of(const float (&v)[P]) {
    static_assert(P == Pack<T>::n, "one whole pack");
    return make_uint4(pack_word<T>(v, 0), pack_word<T>(v, 1), pack_word<T>(v, 2), pack_word<T>(v, 3));
}

// How many elements of the pack that starts at element e lie inside a row of n: P for a
// whole pack, fewer for the row's last, 0 past its end. With OPK_PACK_COUNTS (AMD) the
// per-element bounds and target tests compare the element's place in its pack, k, against
// such a count or offset, computed once per pack and row: written as e + k < n, LLVM's
// loop-invariant code motion hoists e + k for every k of every cached pack out of the row
// loop as 64-bit values (2 VGPRs each: 64 VGPRs for a 4-pack f16 row cache), which is
// what spilled the cross-entropy kernels on AMD. nvcc keeps the original expressions.
template <int P>
OPK_DEV int pack_count(int64_t e, int64_t n) {
    const int64_t r = n - e;
    return r >= P ? P : r > 0 ? int(r) : 0;
}

// Elements [c*P, c*P + P) of a row of n elements, as fp32; `fill` past the end. One
// 16-byte load when the row allows it (vec) and the pack is whole, else element loads.
// Exact: the caller knows the pack is whole and the row 16-byte aligned (as store_pack's).
template <typename T, int P, bool Exact = false>
OPK_DEV void load_pack(const T* row, int64_t c, int64_t n, bool vec, float (&v)[P], float fill = 0.0f) {
    const int64_t e = c * P;
    if (Exact || (vec && e + P <= n)) {
#if OPK_WORD_PACKS
        unpack<T, P>(*reinterpret_cast<const uint4*>(row + e), v);
#else
        if constexpr (kBf16WordUnpack<T>) return unpack<T, P>(*reinterpret_cast<const uint4*>(row + e), v);
        alignas(16) T t[P];
        *reinterpret_cast<uint4*>(t) = *reinterpret_cast<const uint4*>(row + e);
#pragma unroll
        for (int k = 0; k < P; ++k) v[k] = to_f32(t[k]);
#endif
    } else {
#if OPK_PACK_COUNTS
        const int m = pack_count<P>(e, n);
#pragma unroll
        for (int k = 0; k < P; ++k) v[k] = k < m ? to_f32(row[e + k]) : fill;
#else
#pragma unroll
        for (int k = 0; k < P; ++k) v[k] = e + k < n ? to_f32(row[e + k]) : fill;
#endif
    }
}

// Exact: the caller knows the pack is whole and the row 16-byte aligned (ExactRows).
template <typename T, int P, CacheHint H = CacheHint::normal, bool Exact = false>
OPK_DEV void store_pack(T* row, int64_t c, int64_t n, bool vec, const float (&v)[P]) {
    const int64_t e = c * P;
    if (Exact || (vec && e + P <= n)) {
#if OPK_WORD_PACKS
        const uint4 p = pack_of<T, P>(v);
        store16<H>(row + e, p);
#else
        alignas(16) T t[P];
#pragma unroll
        for (int k = 0; k < P; ++k) t[k] = from_f32<T>(v[k]);
        store16<H>(row + e, *reinterpret_cast<const uint4*>(t));
#endif
    } else {
#if OPK_PACK_COUNTS
        const int m = pack_count<P>(e, n);
#pragma unroll
        for (int k = 0; k < P; ++k)
            if (k < m) row[e + k] = from_f32<T>(v[k]);
#else
#pragma unroll
        for (int k = 0; k < P; ++k)
            if (e + k < n) row[e + k] = from_f32<T>(v[k]);
#endif
    }
}

// A 16-byte pack held in registers in the tensor's own type (4 registers whatever the
// dtype): a row cache of raw packs needs half the registers of fp32 values for f16/bf16,
// and registers decide how many rows an SM keeps in flight. A partial pack is built from
// element loads, the elements' bits shifted into their words.
template <typename T, int P, CacheHint H = CacheHint::normal>
OPK_DEV void load_raw(const T* row, int64_t c, int64_t n, bool vec, uint4& raw, float fill) {
    const int64_t e = c * P;
    if (vec && e + P <= n) {
        raw = load16<H>(row + e);
    } else {
#if OPK_WORD_PACKS
        const uint32_t fill_bits = bits_of(from_f32<T>(fill));
        const int m = pack_count<P>(e, n);
        auto elem = [&](int k) -> uint32_t { return k < m ? bits_of(row[e + k]) : fill_bits; };
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            if constexpr (sizeof(T) == 4)
                set_word(raw, i, elem(i));
            else
                set_word(raw, i, elem(2 * i) | (elem(2 * i + 1) << 16));
        }
#else
        alignas(16) T t[P];
#pragma unroll
        for (int k = 0; k < P; ++k) t[k] = e + k < n ? row[e + k] : from_f32<T>(fill);
        raw = *reinterpret_cast<const uint4*>(t);
#endif
    }
}

// One row as one thread of its group sees it: n elements in `packs` 16-byte packs, of
// which this thread owns c = lane, lane + size, lane + 2 * size, ...
struct Span {
    int64_t n, packs;
    int lane, size;
};

// The span a row loop uses for one row: on AMD the thread's place in it is recomputed
// for every row (gpu_compat.h, per_iteration says why); on NVIDIA it is s.
OPK_DEV Span per_row(Span s) {
    s.lane = per_iteration(s.lane);
    return s;
}

// The packs of a row that this thread owns, C at most, kept raw in registers.
// each(f) calls f(i, c, v) with v the pack as fp32, for every pack held.
// Exact: the rows are exact for the group (kExactPath): every row is C whole packs per
// thread, 16-byte aligned, so no bounds test or element fallback is compiled.
template <typename T, int C>
struct RowCache {
    static constexpr int P = Pack<T>::n;
    uint4 raw[C];

    template <bool Exact = false>
    OPK_DEV void load(const T* row, const Span& s, bool vec, float fill = 0.0f) {
#pragma unroll
        for (int i = 0; i < C; ++i) {
            const int64_t c = int64_t(i) * s.size + s.lane;
            if constexpr (Exact)
                raw[i] = load16<CacheHint::normal>(row + c * P);
            else if (c < s.packs)
                load_raw<T, P>(row, c, s.n, vec, raw[i], fill);
        }
    }
    // WordMode: unpack's.
    template <bool Exact = false, int WordMode = -1, class F>
    OPK_DEV void each(const Span& s, F&& f) const {
#pragma unroll
        for (int i = 0; i < C; ++i) {
            const int64_t c = int64_t(i) * s.size + s.lane;
            if (Exact || c < s.packs) {
                float v[P];
                unpack<T, P, WordMode>(raw[i], v);
                f(i, c, v);
            }
        }
    }
};

// Whether a row kernel compiles a second, lean body for exact rows, taken when the host
// found them exact (ExactRows in ops_common.h): rows of C whole 16-byte packs per thread of
// a block-wide group (config 1), 16-byte aligned. Its pack accesses are plain 16-byte loads
// and stores with no bounds tests; on the H100 that made a softmax forward with 4 packs per
// thread 7-11 % faster in bf16 at the same registers and occupancy
// (bench/experiments/lean_softmax.cu, bench/results/h100-2026-11-24-rows-fwd/).
// Not where 1024 threads leave 64 VGPRs (gfx900/906/908): the code-object gate saw the
// two bodies spill there (15-40 VGPRs). The kernels that hold the exact body alone
// (opk_*_fwd_wide_f32, opk_*_fwd_fixed_*, opk_ln_bwd_exact_*, opk_softmax_bwd_{exact,wide}_*,
// opk_{ln,rms}_bwd_regs_f32) follow the same switch, so on those targets they are the
// general body, even where their bounds leave 128 VGPRs (not tried).
// G: the whole block (0), or a fixed block of G threads (OPK_FIXED_ROW_KERNELS).
template <int G, int C>
constexpr bool kExactPath = kBlockGroup<G> && C > 0 && !OPK_SMALL_VGPR_FILE;

// f(i, c, a, b) over the packs two caches of the same row shape hold (WordMode: unpack's).
template <bool Exact = false, int WordMode = -1, typename T, int C, class F>
OPK_DEV void each2(const RowCache<T, C>& ca, const RowCache<T, C>& cb, const Span& s, F&& f) {
    constexpr int P = Pack<T>::n;
#pragma unroll
    for (int i = 0; i < C; ++i) {
        const int64_t c = int64_t(i) * s.size + s.lane;
        if (Exact || c < s.packs) {
            float a[P], b[P];
            unpack<T, P, WordMode>(ca.raw[i], a);
            unpack<T, P, WordMode>(cb.raw[i], b);
            f(i, c, a, b);
        }
    }
}

// Rows too long for the cache stream through memory: U packs per thread are loaded before
// any is used, so each thread keeps U loads in flight instead of one. Two on AMD targets
// with a 256-entry VGPR file (gfx900/906/908): with four, the streamed cross-entropy and
// norm kernels spilled at the 64 VGPRs a 1024-thread block leaves there.
constexpr int kStreamUnroll = OPK_SMALL_VGPR_FILE ? 2 : 4;

// One step of a streamed row: packs base, base + size, ... (U of them).
template <typename T, CacheHint H, class F>
OPK_DEV void stream_step(const T* row, const Span& s, bool vec, float fill, int64_t step_base, F& f) {
    constexpr int P = Pack<T>::n, U = kStreamUnroll;
    // On AMD the U packs' indices and addresses derive from base in each step, not from
    // U induction variables of their own (gpu_compat.h, per_iteration).
    const int64_t base = per_iteration(step_base);
    uint4 raw[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
        const int64_t c = base + int64_t(u) * s.size;
        if (c < s.packs) load_raw<T, P, H>(row, c, s.n, vec, raw[u], fill);
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
        const int64_t c = base + int64_t(u) * s.size;
        if (c < s.packs) {
            float v[P];
            unpack<T, P>(raw[u], v);
            f(u, c, v);
        }
    }
}

// H = CacheHint::keep for a first pass whose row is read again (stream_row_back).
template <typename T, CacheHint H = CacheHint::normal, class F>
OPK_DEV void stream_row(const T* row, const Span& s, bool vec, float fill, F&& f) {
    const int64_t step = int64_t(s.size) * kStreamUnroll;
    for (int64_t base = s.lane; base < s.packs; base += step) stream_step<T, H>(row, s, vec, fill, base, f);
}

// A second pass over a streamed row, from its end: the part the first pass read last is
// the most likely to still be in L2. Its loads are the row's last use.
template <typename T, class F>
OPK_DEV void stream_row_back(const T* row, const Span& s, bool vec, float fill, F&& f) {
    const int64_t step = int64_t(s.size) * kStreamUnroll;
    if (s.lane >= s.packs) return;
    for (int64_t base = s.lane + (s.packs - 1 - s.lane) / step * step; base >= 0; base -= step)
        stream_step<T, CacheHint::last_use>(row, s, vec, fill, base, f);
}

// Stores of a row kernel's output: a streamed row's output goes out with the first-to-evict
// hint, so that it does not push the row's unread part out of L2 (see CacheHint).
template <bool Cached>
constexpr CacheHint kStoreHint = Cached ? CacheHint::normal : CacheHint::last_use;

// The same over two rows of one shape read side by side (dy and x, dy and y): f(u, c, a, b).
template <typename T, class F>
OPK_DEV void stream_rows2(const T* ra, bool va, const T* rb, bool vb, const Span& s, F&& f) {
    constexpr int P = Pack<T>::n, U = kStreamUnroll / 2;
    for (int64_t step_base = s.lane; step_base < s.packs; step_base += int64_t(s.size) * U) {
        const int64_t base = per_iteration(step_base);  // as in stream_step
        uint4 rawa[U], rawb[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const int64_t c = base + int64_t(u) * s.size;
            if (c < s.packs) {
                load_raw<T, P>(ra, c, s.n, va, rawa[u], 0.0f);
                load_raw<T, P>(rb, c, s.n, vb, rawb[u], 0.0f);
            }
        }
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const int64_t c = base + int64_t(u) * s.size;
            if (c < s.packs) {
                float a[P], b[P];
                unpack<T, P>(rawa[u], a);
                unpack<T, P>(rawb[u], b);
                f(u, c, a, b);
            }
        }
    }
}

// exp(x - m) that is 0 (not NaN) when both are -inf: an all -inf row or an empty part.
OPK_DEV float exp_shifted(float x, float m) { return x == -INFINITY ? 0.0f : expf(x - m); }

// exp(x - m) for the elements of a row (or of a pack) whose max is m, in two steps: the
// base once (exp_base), then exp_minus per element with no test of x. The base is m, or 0
// when m = -inf (an all -inf row or an empty part): x = -inf then gives exp(-inf) = 0 for
// any base, and x - base is never -inf - (-inf).
OPK_DEV float exp_base(float m) { return m == -INFINITY ? 0.0f : m; }

// For values read from a 2-byte type one MUFU.EX2 per element (exp2_approx; relative
// error ~1e-6, far below bf16/f16 resolution): with 2-byte inputs the exponentials, not
// the bytes, bounded softmax and cross-entropy (measured on an H100). 4-byte types keep
// the accurate expf.
template <typename T>
OPK_DEV float exp_minus(float x, float base) {
    if constexpr (sizeof(T) == 2)
        return exp2_approx((x - base) * 1.4426950408889634f);
    else
        return expf(x - base);
}

// Folds one pack into a running (max, sum of exp(x - max)) pair: the online softmax.
template <typename T, int P>
OPK_DEV void online_add(float& m, float& s, const float (&v)[P]) {
    float cm = v[0];
#pragma unroll
    for (int k = 1; k < P; ++k) cm = fmaxf(cm, v[k]);
    const float nm = fmaxf(m, cm), base = exp_base(nm);
    float add = 0.0f;
#pragma unroll
    for (int k = 0; k < P; ++k) add += exp_minus<T>(v[k], base);
    // m = -inf: s is still 0, and exp(-inf - base) = 0 rescales it to 0.
    s = s * exp_minus<T>(m, base) + add;
    m = nm;
}

// Combines every thread's (m, s) of the group into the row's max and sum of exp.
template <int G>
OPK_DEV void group_online(float& m, float& s, float* smem) {
    const float gm = group_max<G>(m, smem);
    s = group_sum1<G>(s * exp_shifted(m, gm), smem);
    m = gm;
}

// Where a row group is in the grid: thread `lane` of `size` threads of group `first_row`,
// stepping by `row_step` rows (grid-stride, so any row count fits any grid; the bodies run
// with BlockRow take row first_row alone, launched with a block for every row).
template <int G>
struct RowGroup {
    int lane, size;
    int64_t first_row, row_step, group;  // group: this group's index in the grid
    OPK_DEV RowGroup() {
        size = G ? G : int(blockDim.x);
        const int rpb = int(blockDim.x) / size;
        lane = int(threadIdx.x) % size;
        group = int64_t(blockIdx.x) * rpb + int(threadIdx.x) / size;
        first_row = group;
        row_step = int64_t(gridDim.x) * rpb;
    }
    OPK_DEV Span span(int64_t n, int pack) const { return {n, (n + pack - 1) / pack, lane, size}; }
};

}  // namespace opk

// Instantiates a row kernel body for every dtype and RowConfig under the names that
// OPK_ROW_NAMES spells on the host. The launch bounds ask for 1024 resident threads per
// SM (CU), which caps registers at 64 on NVIDIA (128 VGPRs on CDNA): a row kernel is bound
// by the loads it keeps in flight, and that is occupancy times the packs each thread holds.
#define OPK_ROW_CHUNKS(T, cfg) (sizeof(T) == 2 ? (cfg).chunks16 : (cfg).chunks)
#define OPK_ROW_RESIDENT_THREADS 1024
// Row kernels that hold more per thread than a row cache (layer_norm's backward: two
// column-sum arrays in registers next to the x and dy packs) ask on AMD for the occupancy
// that leaves them 128 VGPRs: the same 1024 resident threads on CDNA2/3 and RDNA, 512 on
// gfx900/906/908, whose 256-entry VGPR file leaves 64 VGPRs to 1024 threads and where the
// 2-byte config-0 kernels spilled 11 VGPRs (36 B/lane of scratch) there; with it they take
// 72 VGPRs, 3 waves per SIMD instead of 4, and no scratch. Only config 0 (128-thread
// blocks) can use it there: a 1024-thread block needs 4 waves on every SIMD whatever the
// kernel asks, so configs 1 and 2 keep 64 VGPRs. nvcc: 1024.
#if defined(__HIP_DEVICE_COMPILE__)
#define OPK_ROW_RESIDENT_THREADS_WIDE OPK_AMD_RESIDENT_FOR_VGPRS(128)
#else
#define OPK_ROW_RESIDENT_THREADS_WIDE OPK_ROW_RESIDENT_THREADS
#endif
// A config's own resident threads (RowConfig::resident) win over the family's default.
#define OPK_ROW_RESIDENT_OF(cfg, fallback) ((cfg).resident ? (cfg).resident : (fallback))
// Config i of a table as a kernel with the given bounds attribute (OPK_BOUNDS_RESIDENT,
// OPK_BOUNDS_NV_REGS); OPK_ROW_KERNEL asks for the config's resident threads.
#define OPK_ROW_KERNEL_BOUNDED(name, Args, body, T, cfgs, i, bounds) \
    extern "C" __global__ void bounds name(const Args a) { body<T, cfgs[i].threads, OPK_ROW_CHUNKS(T, cfgs[i])>(a); }
#define OPK_ROW_KERNEL(name, Args, body, T, cfgs, i, resident) \
    OPK_ROW_KERNEL_BOUNDED(name, Args, body, T, cfgs, i,       \
                           OPK_BOUNDS_RESIDENT(opk::max_block(cfgs[i]), OPK_ROW_RESIDENT_OF(cfgs[i], resident)))
// A config-1 kernel whose blocks the host never makes larger than `block` threads (the
// fp32 wide forwards: kFwdWideMaxBlock = 512; the softmax backward's 2-byte wide kernels:
// max_block of kRowConfigsBwdWide16's config 1). On AMD its bounds say so, with as many
// resident threads: a flat work-group size of 1024 would leave it 128 VGPRs on gfx90a,
// gfx940 and gfx1030 and 64 on gfx900-908, where the eight cached packs spilled; 512 leaves
// twice that. nvcc keeps the config's bounds, with which the kernels were measured (two
// 512-thread blocks an SM at 64 registers).
#if defined(__HIP_DEVICE_COMPILE__)
#define OPK_ROW_KERNEL_AT_MOST(name, Args, body, T, cfgs, i, resident, block) \
    OPK_ROW_KERNEL_BOUNDED(name, Args, body, T, cfgs, i, OPK_BOUNDS_RESIDENT(block, block))
#else
#define OPK_ROW_KERNEL_AT_MOST(name, Args, body, T, cfgs, i, resident, block) \
    OPK_ROW_KERNEL(name, Args, body, T, cfgs, i, resident)
#endif
// A row kernel for exact rows whose group is its block of exactly G threads (the host
// launches it with blockDim = G; kFixedChunks in kernel_params.h says why): RowGroup's
// size and the packs' offsets are constants, and the block reductions' last stage
// shuffles over the G / warp-size partials (group_reduce.cuh, shuffle_warps; the f16
// layer_norm forwards spill 36 bytes on sm_90 with it, measured 1 % slower at 32768x4096,
// the others gained). Built for 1024 resident threads on NVIDIA (64 registers, as
// measured), and on AMD for the occupancy that leaves 128 VGPRs, as the other kernels that
// hold more than four packs.
// OPK_FIXED_ROW_KERNEL_RESIDENT asks for other resident threads (layer_norm's 2-byte exact
// backward: its config's).
#define OPK_FIXED_ROW_KERNEL_RESIDENT(name, Args, body, T, G, C, resident)                  \
    extern "C" __global__ void OPK_BOUNDS_RESIDENT(G, resident) name(const Args a) { body<T, G, C>(a); }
// The forwards' fixed-group kernels (OPK_FIXED_ROW_KERNEL) run only on row views of at
// most one outer dimension (fixed_group_plan checks), and the compiler is told so
// (assume_flat_rows): row_offset's walk over several dimensions, dead there, would
// otherwise still be compiled in and hold registers (layer_norm's bf16 ones: 8 bytes of
// stack on sm_90; without the walk none, and 2.0-2.6 % faster on the H200,
// bench/results/2026-11-29-s17/r1).
#define OPK_FIXED_ROW_KERNEL(name, Args, body, T, G, C)                                                       \
    extern "C" __global__ void OPK_BOUNDS_RESIDENT(G, OPK_ROW_RESIDENT_THREADS_WIDE) name(const Args a) { \
        opk::assume_flat_rows(a);                                                                          \
        body<T, G, C>(a);                                                                                  \
    }
// Every fixed-group kernel of a family, under the names OPK_FIXED_KERNELS (softmax,
// layer_norm) or OPK_RMS_FIXED_KERNELS (rms_norm) give them in kernel_params.h.
#define OPK_FIXED_ROW_KERNELS_2BYTE(stem, Args, body)                                        \
    OPK_FIXED_ROW_KERNEL(stem##_f16_g128, Args, body, opk_f16, 128, opk::kFixedChunks16)     \
    OPK_FIXED_ROW_KERNEL(stem##_f16_g256, Args, body, opk_f16, 256, opk::kFixedChunks16)     \
    OPK_FIXED_ROW_KERNEL(stem##_f16_g512, Args, body, opk_f16, 512, opk::kFixedChunks16)     \
    OPK_FIXED_ROW_KERNEL(stem##_bf16_g128, Args, body, opk_bf16, 128, opk::kFixedChunks16)   \
    OPK_FIXED_ROW_KERNEL(stem##_bf16_g256, Args, body, opk_bf16, 256, opk::kFixedChunks16)   \
    OPK_FIXED_ROW_KERNEL(stem##_bf16_g512, Args, body, opk_bf16, 512, opk::kFixedChunks16)
#define OPK_FIXED_ROW_KERNELS(stem, Args, body)                                              \
    OPK_FIXED_ROW_KERNEL(stem##_f32_g256x4, Args, body, float, 256, opk::kFixedChunksX4)     \
    OPK_FIXED_ROW_KERNEL(stem##_f32_g256, Args, body, float, 256, opk::kFixedChunks)         \
    OPK_FIXED_ROW_KERNEL(stem##_f32_g512, Args, body, float, 512, opk::kFixedChunks)         \
    OPK_FIXED_ROW_KERNELS_2BYTE(stem, Args, body)
#define OPK_RMS_FIXED_ROW_KERNELS(stem, Args, body)                                          \
    OPK_FIXED_ROW_KERNEL(stem##_f32_g256x4, Args, body, float, 256, opk::kFixedChunksX4)     \
    OPK_FIXED_ROW_KERNEL(stem##_f32_g512x4, Args, body, float, 512, opk::kFixedChunksX4)     \
    OPK_FIXED_ROW_KERNEL(stem##_f32_g512, Args, body, float, 512, opk::kFixedChunks)         \
    OPK_FIXED_ROW_KERNELS_2BYTE(stem, Args, body)
// Config 1 of a table as a kernel of its own in the 2-byte types, or in every dtype
// (stem_f16, stem_bf16[, stem_f32]): the exact-body and long-row kernels.
#define OPK_ROW_KERNEL_C1_2BYTE(stem, Args, body, cfgs, resident)     \
    OPK_ROW_KERNEL(stem##_f16, Args, body, opk_f16, cfgs, 1, resident) \
    OPK_ROW_KERNEL(stem##_bf16, Args, body, opk_bf16, cfgs, 1, resident)
#define OPK_ROW_KERNEL_C1_EACH_TYPE(stem, Args, body, cfgs, resident) \
    OPK_ROW_KERNEL(stem##_f32, Args, body, float, cfgs, 1, resident)   \
    OPK_ROW_KERNEL_C1_2BYTE(stem, Args, body, cfgs, resident)
// The three configs of one dtype (suffix f32, f16 or bf16).
#define OPK_ROW_KERNELS_OF_TYPE(stem, suffix, Args, body, T, cfgs, resident) \
    OPK_ROW_KERNEL(stem##_##suffix##_c0, Args, body, T, cfgs, 0, resident)   \
    OPK_ROW_KERNEL(stem##_##suffix##_c1, Args, body, T, cfgs, 1, resident)   \
    OPK_ROW_KERNEL(stem##_##suffix##_c2, Args, body, T, cfgs, 2, resident)
#define OPK_ROW_KERNELS_RESIDENT(stem, Args, body, cfgs, resident)                \
    OPK_ROW_KERNELS_OF_TYPE(stem, f32, Args, body, float, cfgs, resident)        \
    OPK_ROW_KERNELS_OF_TYPE(stem, f16, Args, body, opk_f16, cfgs, resident)      \
    OPK_ROW_KERNELS_OF_TYPE(stem, bf16, Args, body, opk_bf16, cfgs, resident)
#define OPK_ROW_KERNELS(stem, Args, body, cfgs) OPK_ROW_KERNELS_RESIDENT(stem, Args, body, cfgs, OPK_ROW_RESIDENT_THREADS)
