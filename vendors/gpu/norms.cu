// RMSNorm and LayerNorm, forward and backward. One row per thread group (see RowConfig):
// a row that fits the group's registers is read once; a longer row streams through
// global memory twice. The backward kernels also sum dweight/dbias over the rows their
// group visits into a private fp32 partial row ([groups][n]); opk_column_sum adds the
// partial rows afterwards, so no atomics and the result does not depend on timing.
#include "rows.cuh"
#include "stash_rows.cuh"

#include <type_traits>

namespace opk {
namespace {

// out[k] += offset, unless the offset is 0: adding +0 is not an identity (-0 + 0 = +0),
// so nvcc kept one FADD an element for it, layer_norm's literal 0 included (Nsight Compute
// on the H200: 8 of each pack's 32 FADDs in the bf16 layer_norm backward). A zero offset
// now leaves the weight as it is, as PyTorch's x * w does.
template <int P>
OPK_DEV void add_offset(float offset, float (&out)[P]) {
    if (offset != 0.0f)
#pragma unroll
        for (int k = 0; k < P; ++k) out[k] += offset;
}

// Pack c of an optional per-column vector (weight, bias) as fp32, plus `offset`. Exact: as
// load_pack's (the forwards' exact bodies: the host takes them only where the weight and
// bias are 16-byte aligned, NormArgs::exact). H: a cache hint for the pack's load, which
// only an exact body's whole pack can take.
template <typename T, int P, bool Exact = false, CacheHint H = CacheHint::normal>
OPK_DEV void column_pack(const T* v, int64_t c, int64_t n, bool vec, float offset, float (&out)[P]) {
    static_assert(Exact || H == CacheHint::normal, "column_pack: a cache hint needs whole packs");
    if (v) {
        if constexpr (H == CacheHint::normal)
            load_pack<T, P, Exact>(v, c, n, vec, out);
        else
            unpack<T, P>(load16<H>(v + c * P), out);
        add_offset(offset, out);
    } else {
#pragma unroll
        for (int k = 0; k < P; ++k) out[k] = 1.0f;
    }
}

// The forwards' output pass: body(c, v, wv) for each pack c of the row, v its x and wv the
// weight's pack as fp32 plus `offset` (ones without a weight). Ahead (cached exact rows): pack
// i + 1's weight is loaded before body(i) stores pack i. A load may not move above a store
// that may alias it, so each pack's weight load otherwise issued only after the previous
// pack's store, and a row paid that latency pack after pack (the kernels are latency-bound:
// 53 % of issue slots busy in bf16 layer_norm's fixed g512). A/B on the H200, alternating
// twice: bf16 layer_norm forward 0.986-0.993 of its time, rms_norm 0.996-0.999, fp32 equal
// (bench/results/2026-11-30-s28/r1). Only the weight runs ahead: layer_norm's bias ahead too
// spilled 16 bytes in its bf16 fixed-group kernels.
template <typename T, int C, bool Cached, bool Exact, bool Ahead, class F>
OPK_DEV void output_pass(const RowCache<T, C>& x, const T* xr, const Span& sp, bool x_vec, const T* w, bool w_vec,
                         float offset, F&& body) {
    constexpr int P = Pack<T>::n;
    if constexpr (Cached && Exact && Ahead) {
        uint4 next = make_uint4(0, 0, 0, 0);
        if (w) next = load16<CacheHint::normal>(w + int64_t(sp.lane) * P);
#pragma unroll
        for (int i = 0; i < C; ++i) {
            const int64_t c = int64_t(i) * sp.size + sp.lane;
            const uint4 cur = next;
            if (w && i + 1 < C) next = load16<CacheHint::normal>(w + (c + sp.size) * P);
            float v[P], wv[P];
            unpack<T, P>(x.raw[i], v);
            if (w) {
                unpack<T, P>(cur, wv);
                add_offset(offset, wv);
            } else {
#pragma unroll
                for (int k = 0; k < P; ++k) wv[k] = 1.0f;
            }
            body(c, v, wv);
        }
    } else {
        auto emit = [&](int, int64_t c, const float(&v)[P]) {
            float wv[P];
            column_pack<T, P, Exact>(w, c, sp.n, w_vec, offset, wv);
            body(c, v, wv);
        };
        if constexpr (Cached)
            x.template each<Exact>(sp, emit);
        else
            stream_row_back<T>(xr, sp, x_vec, 0.0f, emit);
    }
}

// The backwards' L2 rows ahead (L2Ahead; kNormBwdRegsAheadBytes): ask() has the group's
// first thread ask L2 for x's and dy's row that many bytes of rows past row r. Nothing
// where !On.
template <typename T, bool On>
struct BwdRowsAhead {
    uint32_t bytes = 0;
    int64_t ahead = 0;
    OPK_DEV explicit BwdRowsAhead(int64_t n) {
        if constexpr (On) {
            bytes = uint32_t(n * int64_t(sizeof(T)));
            ahead = rows_ahead(bytes, kNormBwdRegsAheadBytes);
        }
    }
    OPK_DEV void ask(const NormArgs& a, int64_t r, int lane) const {
        if constexpr (On) {
            prefetch_row<T>(a.x, r, ahead, a.rows, bytes, lane);
            prefetch_row<T>(a.dy, r, ahead, a.rows, bytes, lane);
        }
    }
};

// Dynamic shared memory of the norm backward kernels: the weight row where
// kNormBwdSharedWeight, then [arrays][rows per block][n] fp32 sums where shared_sums.
// 16-byte aligned: the weight row is read as 16-byte packs (on NVIDIA the code is the same
// without the attribute; it states what WeightPacks relies on).
// The stash backwards' ring of rows (norm_backward_stash) lives here too, right after the
// kernel's static shared memory, and its cp.async copies want it on a 128-byte line: 16
// bytes past one, every copy asked L2 for twice the sectors (forty-seventh session,
// docs/PERFORMANCE.md). Asking only 16-byte alignment here leaves the line to the static
// size: on sm_90 the ring starts at 0x800 (a line) in most stash kernels, but at 0x810 in
// the fp32 split pairs (opk_*_bwd_stash_f32_k2*, their exchange) and 0x840 in the bulk
// ring's (opk_rms_bwd_stash_f32_s2_exact, its mbarriers). 128-byte alignment here
// (bench/experiments/stash-ring-128-lines.patch) gained nothing on the H200: 0.998-1.002 on
// every norm and cross-entropy row of those kernels but the bulk ring's fp32 rms_norm
// backward at 8192x8192, 1.026 slower (forty-eighth session, three A/B rounds): not taken.
alignas(16) extern __shared__ float norm_columns[];

// Whether a backward kernel reads the weight from a copy of the weight row in shared
// memory, made once per block: rows a whole block caches with kNormBwdSharedWeightPacks or
// more packs a thread (kernel_params.h has the measurements). Read from global memory at
// each use, nvcc merged the loads of a row's two passes and hoisted them out of the row
// loop, so each pack's 8 fp32 values stayed live across the row, and the four-pack kernels
// spilled more at 128 registers. A barrier separates the passes, so shared-memory loads
// are neither merged across it nor hoisted out of the loop.
template <int G, int C>
constexpr bool kNormBwdSharedWeight = G == 0 && C >= kNormBwdSharedWeightPacks;

// The weight packs of a backward kernel as fp32 plus the offset (1 without a weight),
// from shared memory (Shared) or from the weight itself.
template <typename T, bool Shared>
struct WeightPacks {
    static constexpr int P = Pack<T>::n;
    const T* w;
    bool vec;
    float offset;

    // Shared: the block copies the row (every thread of the block must construct it).
    OPK_DEV WeightPacks(const T* weight, const Span& s, bool weight_vec, float weight_offset)
        : w(weight), vec(weight_vec), offset(weight_offset) {
        if constexpr (Shared) {
            if (!w) return;
            uint4* row = reinterpret_cast<uint4*>(norm_columns);
            for (int64_t c = s.lane; c < s.packs; c += s.size) load_raw<T, P>(w, c, s.n, vec, row[c], 0.0f);
            __syncthreads();
        }
    }
    // fp32 values of the dynamic shared memory that the weight row takes (0 without one).
    OPK_DEV int64_t shared_floats(const Span& s) const { return Shared && w ? s.packs * 4 : 0; }
    template <int WordMode = -1>
    OPK_DEV void get(int /*i*/, int64_t c, int64_t n, float (&out)[P]) const {
        if (Shared && w) {
            unpack<T, P, WordMode>(reinterpret_cast<const uint4*>(norm_columns)[c], out);
            add_offset(offset, out);
        } else {
            column_pack<T, P>(w, c, n, vec, offset, out);  // 1 where there is no weight
        }
    }
};

// The weight packs of a cached backward held in registers: a block-wide group's thread
// keeps the same columns on every row it takes, so its C packs are loaded once per kernel
// rather than twice a row (the two passes). get(i, ...) is pack i of the thread's row
// cache. For layer_norm's 2-byte exact backward (ln_backward_exact), where Nsight Compute
// counted twice the 16-byte loads Liger-Kernel issues (bf16 8192x8192: 1.05 M against
// 0.53 M warp loads), half of them the weight's, served from L1 (bench/results/2026-11-28-s9/).
// Without a weight the packs hold 1s, so get() has no per-element select. It holds no
// weight offset (the constructor takes one for WeightPacks' signature): layer_norm has
// none, and the norm stash backward adds rms_norm's itself.
template <typename T, int C>
struct WeightRegs {
    static constexpr int P = Pack<T>::n;
    RowCache<T, C> packs;

    OPK_DEV WeightRegs(const T* weight, const Span& s, bool weight_vec, float /*weight_offset: 0*/) {
        if (weight) {
            packs.load(weight, s, weight_vec);
        } else {
            float ones[P];
#pragma unroll
            for (int k = 0; k < P; ++k) ones[k] = 1.0f;
#pragma unroll
            for (int i = 0; i < C; ++i) packs.raw[i] = pack_of<T, P>(ones);
        }
    }
    OPK_DEV int64_t shared_floats(const Span&) const { return 0; }
    template <int WordMode = -1>
    OPK_DEV void get(int i, int64_t, int64_t, float (&out)[P]) const {
        unpack<T, P, WordMode>(packs.raw[i], out);
    }
};

// Exact: the rows are exact for the group (kExactPath), as in ln_forward_rows. BlockRow: the
// block's group takes row first_row alone (a block for every row).
template <typename T, int G, int C, bool Exact, bool BlockRow = false>
OPK_DEV void rms_forward_rows(const NormArgs& a, float* smem) {
    constexpr int P = Pack<T>::n;
    const RowGroup<G> g;
    const Span rows_span = g.span(a.n, P);
    constexpr bool cached = C > 0;  // the host picks C = 0 (streaming) for long rows
    const T* w = static_cast<const T*>(a.weight);
    for (int64_t r = g.first_row; r < a.rows; r = BlockRow ? a.rows : r + g.row_step) {
        const Span sp = per_row(rows_span);
        const T* xr = row_ptr<const T>(a.x, r);
        T* yr = row_ptr<T>(a.y, r);
        RowCache<T, C ? C : 1> x;
        float ss = 0.0f;
        auto square = [&](int, int64_t, const float(&v)[P]) {
#pragma unroll
            for (int k = 0; k < P; ++k) ss += v[k] * v[k];
        };
        if constexpr (cached) {
            x.template load<Exact>(xr, sp, a.x.vec);
            if constexpr (Exact && G > 0) prefetch_row_ahead<T, G, C>(a.x, r, a.rows, g.lane);
            x.template each<Exact>(sp, square);
        } else {
            stream_row<T, CacheHint::keep>(xr, sp, a.x.vec, 0.0f, square);
        }
        ss = group_sum1<G>(ss, smem);
        const float inv = 1.0f / sqrtf(ss / float(sp.n) + a.eps);
        output_pass<T, C ? C : 1, cached, Exact, true>(
            x, xr, sp, a.x.vec, w, a.weight_vec, a.weight_offset,
            [&](int64_t c, const float(&v)[P], const float(&wv)[P]) {
                float out[P];
#pragma unroll
                for (int k = 0; k < P; ++k) out[k] = v[k] * inv * wv[k];
                store_pack<T, P, kStoreHint<cached>, Exact>(yr, c, sp.n, a.y.vec, out);
            });
        if (g.lane == 0 && a.rstd.data) strided_set<float>(a.rstd, r, inv);
    }
}

// No lean body for exact rows (kExactPath) in this kernel: measured on the H100, it made
// it 8-11 % slower in bf16 (bench/results/h100-2026-11-24-rows-fwd/, exact-ab-*), while
// softmax and layer_norm gained.
template <typename T, int G, int C>
OPK_DEV void rms_forward(const NormArgs& a) {
    __shared__ float smem[kReduceSlots];
    rms_forward_rows<T, G, C, false>(a, smem);
}

// The exact-row body alone, so that no general body shares its registers: the fp32
// forwards of rows exact for eight packs a thread (kRowConfigsFwdWide,
// kRowConfigsRmsFwdWide) and the fixed-group forwards (FixedKernel). Without kExactPath
// (gfx900/906/908) it is the general body.
// The fixed-group kernels that rms_fwd_block_row picks take one row a block.
template <typename T, int G, int C>
OPK_DEV void rms_forward_exact(const NormArgs& a) {
    __shared__ float smem[kReduceSlots];
    if constexpr (rms_fwd_block_row(int(sizeof(T)), G))
        rms_forward_rows<T, G, C, kExactPath<G, C>, true>(flat_rows_copy(a), smem);
    else
        rms_forward_rows<T, G, C, kExactPath<G, C>>(a, smem);
}

// The sum of f(v) over the elements of a thread's C raw packs, pack by pack in order (the
// per-thread partial of the row kernels that hold raw packs: rms_forward_twice,
// ln_forward_params).
template <typename T, int C, class F>
OPK_DEV float packs_sum(const uint4 (&raw)[C], F&& f) {
    constexpr int P = Pack<T>::n;
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < C; ++i) {
        float v[P];
        unpack<T, P>(raw[i], v);
#pragma unroll
        for (int k = 0; k < P; ++k) s += f(v[k]);
    }
    return s;
}

// The 2-byte twice kernels' L2 ahead (rms_fwd_twice_l2_ahead in kernel_params.h): the
// block's first thread asks L2 for x's row kRowPrefetchAheadBytes of rows past r, as
// prefetch_row_ahead does for the fixed-group kernels (flat rows here: no row walk). It is
// prefetch_row_ahead's flat twin on purpose: given a Flat switch and called here instead,
// prefetch_row_ahead left every other kernel's SASS as it was but nvcc scheduled these six
// twice kernels differently (392 against 400 SASS lines at bf16 256 x 2), which is not the
// code the forty-eighth session measured, so the measured form stays.
template <typename T, int G, int C>
OPK_DEV void twice_row_ahead(const NormArgs& a, int64_t r, int64_t lane) {
    constexpr int64_t bytes = int64_t(G) * C * 16;
    constexpr int64_t ahead = rows_ahead(bytes, kRowPrefetchAheadBytes);
    if (lane == 0 && r + ahead < a.rows) prefetch_l2(flat_row_ptr<const T>(a.x, r + ahead), uint32_t(bytes));
}

// rms_norm's forward of rows of exactly G x C packs on views of at most one outer dimension
// (kRmsFwdTwiceResident in kernel_params.h says where, with its measurements): one block a
// row, read twice -- the sum of squares over x loaded with L2's evict_last policy, then x
// again (evict_first) with the weight for y -- so that nothing of the row or the weight is
// live across the row's barrier and the kernel is built for 2048 resident threads at two
// packs a thread (four for fp32 rows of 16384 at 1024 threads and for 2-byte rows of 16384
// at 512). The row's sum goes through
// group_sum's fixed-group stage, one barrier a row (on two alternating scratches where the
// kernel walks rows, one where it takes one: BlockRow); its order, and so every bit of y
// and rstd, is rms_forward_rows' at the same G and C. The second read asks for every x pack
// before the first store: a load may not move above a store that may alias it, so the next
// pack's x had waited for pack i's store (A/B on the H200, three rounds, s40 r3/ab-x.txt:
// fp32 4096x16384 0.995, bf16 8192x8192 0.991, the rest 0.998-1.000; 30-32 registers on
// sm_90, no spills). In place (y = x) each pack is still read before it is written.
// L1Hints: x's two reads and the weight with the L1 hints as well (CacheHint::keep_l1 /
// last_use_l1; fp32 rows of 8192 at 512 x 4 alone, where they won). BlockRow: the kernel
// takes row blockIdx.x alone, with no row walk (the host launches a block for every row:
// FixedKernel::block_row), as Inductor's reduction kernels run one program a row; 2-byte
// rows of 8192, where it measured 0.989 of the walking kernel's time (kRmsFwdTwiceResident
// in kernel_params.h), and of 16384. The 2-byte kernels ask L2 for a row ahead after their
// first loads (twice_row_ahead).
template <typename T, int G, int C, bool L1Hints>
OPK_DEV void rms_forward_twice_row(const NormArgs& a, const T* w, int64_t lane, int64_t r, float* scratch) {
    constexpr CacheHint first = L1Hints ? CacheHint::keep_l1 : CacheHint::keep;
    constexpr CacheHint second = L1Hints ? CacheHint::last_use_l1 : CacheHint::last_use;
    constexpr CacheHint weight = L1Hints ? CacheHint::keep_l1 : CacheHint::normal;
    constexpr int P = Pack<T>::n;
    constexpr int64_t n = int64_t(G) * C * P;  // the host launches rows of exactly this
    const T* xr = flat_row_ptr<const T>(a.x, r);
    T* yr = flat_row_ptr<T>(a.y, r);
    uint4 raw[C];
#pragma unroll
    for (int i = 0; i < C; ++i) raw[i] = load16<first>(xr + (int64_t(i) * G + lane) * P);
    if constexpr (rms_fwd_twice_l2_ahead(int(sizeof(T)))) twice_row_ahead<T, G, C>(a, r, lane);
    float ss[1] = {packs_sum<T>(raw, [](float v) { return v * v; })};
    // Fresh: the caller's scratch has no reader left (see rms_forward_twice).
    group_sum<G, 1, true>(ss, scratch);
    const float inv = 1.0f / sqrtf(ss[0] / float(n) + a.eps);
#pragma unroll
    for (int i = 0; i < C; ++i) raw[i] = load16<second>(xr + (int64_t(i) * G + lane) * P);
#pragma unroll
    for (int i = 0; i < C; ++i) {
        const int64_t c = int64_t(i) * G + lane;
        float v[P], wv[P], out[P];
        unpack<T, P>(raw[i], v);
        column_pack<T, P, true, weight>(w, c, n, a.weight_vec, a.weight_offset, wv);
#pragma unroll
        for (int k = 0; k < P; ++k) out[k] = v[k] * inv * wv[k];
        store16<CacheHint::normal>(yr + c * P, pack_of<T, P>(out));
    }
    if (lane == 0 && a.rstd.data) strided_set<float>(a.rstd, r, inv);
}

template <typename T, int G, int C, bool L1Hints, bool BlockRow>
OPK_DEV void rms_forward_twice(const NormArgs& a) {
    const T* w = static_cast<const T*>(a.weight);
    const int64_t lane = threadIdx.x;
    if constexpr (BlockRow) {
        __shared__ float smem[kReduceSlots];
        rms_forward_twice_row<T, G, C, L1Hints>(a, w, lane, blockIdx.x, smem);  // the block's only reduction
    } else {
        __shared__ float smem[2][kReduceSlots];
        int parity = 0;
        // Each row's scratch was last read two rows ago, before the last row's barrier.
        for (int64_t r = blockIdx.x; r < a.rows; r += gridDim.x, parity ^= 1)
            rms_forward_twice_row<T, G, C, L1Hints>(a, w, lane, r, smem[parity]);
    }
}

// A group's dweight or dbias sums. `part` is the group's fp32 partial row in global
// memory ([groups][n]; NULL = not wanted). The sums go into a row of dynamic shared
// memory (sized by the host) that is copied out after the group's last row, or straight
// into `part` when a block cannot have that much shared memory. Each element is only
// ever touched by the thread that owns its pack, so neither needs a barrier or an atomic.
template <int P>
struct ColumnAcc {
    float* part;
    float* shared;  // NULL: add into `part`
    int64_t packs;

    OPK_DEV ColumnAcc(float* partial_row, float* shared_row, const Span& s)
        : part(partial_row), shared(shared_row), packs(s.packs) {
        if (!part) return;
        for (int64_t c = s.lane; c < s.packs; c += s.size)
#pragma unroll
            for (int k = 0; k < P; ++k)
                if (c * P + k < s.n) at(c, k) = 0.0f;
    }
    // The shared row is stored element-major ([P][packs]): lanes that own adjacent packs
    // then touch adjacent words, free of bank conflicts (pack-major, a bf16 pack of 8
    // floats put 8 lanes on one bank).
    OPK_DEV float& at(int64_t c, int k) { return shared ? shared[k * packs + c] : part[c * P + k]; }
    // Element k of pack c (callers only pass elements inside the row).
    OPK_DEV void add(int, int64_t c, int k, float v) {
        if (part) at(c, k) += v;
    }
    OPK_DEV void flush(const Span& s) {
        if (!part || !shared) return;
        for (int64_t c = s.lane; c < s.packs; c += s.size)
#pragma unroll
            for (int k = 0; k < P; ++k)
                if (c * P + k < s.n) part[c * P + k] = shared[k * packs + c];
    }
};

// The same for cached rows: a thread owns the same C packs in every row its group visits,
// so their sums stay in registers until the group's last row (no shared-memory traffic
// per element). Same interface as ColumnAcc; `i` is the pack's slot in the row cache.
template <int P, int C>
struct ColumnRegs {
    float* part;
    float reg[C][P];

    OPK_DEV ColumnRegs(float* partial_row, float*, const Span&) : part(partial_row) {
#pragma unroll
        for (int i = 0; i < C; ++i)
#pragma unroll
            for (int k = 0; k < P; ++k) reg[i][k] = 0.0f;
    }
    OPK_DEV void add(int i, int64_t, int k, float v) { reg[i][k] += v; }
    // A whole pack's sums go out as 16-byte stores where the partial row allows it (n a
    // multiple of 4: every row of [groups][n] starts 16-byte aligned): element stores put
    // a warp's 32 stores on 32 sectors for 4 bytes each (Nsight Compute on the H200, the
    // bf16 layer_norm stash backward at 4096x16384: 22 % of its sectors excess). Not where
    // the VGPR file is small (gfx900/906/908): the four-pack layer_norm backward spilled
    // 49-87 VGPRs there with it, past its budget of 37.
    OPK_DEV void flush(const Span& s) {
        if (!part) return;
        const bool vec = !OPK_SMALL_VGPR_FILE && s.n % 4 == 0;
#pragma unroll
        for (int i = 0; i < C; ++i) {
            const int64_t c = int64_t(i) * s.size + s.lane;
            if (c >= s.packs) continue;
            if (vec && c * P + P <= s.n) {
#pragma unroll
                for (int q = 0; q < P / 4; ++q)
                    reinterpret_cast<float4*>(part + c * P)[q] =
                        make_float4(reg[i][4 * q], reg[i][4 * q + 1], reg[i][4 * q + 2], reg[i][4 * q + 3]);
            } else {
#pragma unroll
                for (int k = 0; k < P; ++k)
                    if (c * P + k < s.n) part[c * P + k] = reg[i][k];
            }
        }
    }
};

// A group's row of sums (array 0 dweight, 1 dbias) in dynamic shared memory, after the
// `skip` floats the weight row takes.
template <int G>
OPK_DEV float* shared_columns(int array, const Span& s, int P, int64_t skip) {
    const int rpb = G ? int(blockDim.x) / G : 1, in_block = G ? int(threadIdx.x) / G : 0;
    return norm_columns + skip + (int64_t(array) * rpb + in_block) * s.packs * P;
}

// Loads row r of x and dy into the caches (nothing past the last row).
template <bool Exact, typename T, int C>
OPK_DEV void prefetch2(const RowsView& x, const RowsView& dy, int64_t r, int64_t rows, const Span& sp,
                       RowCache<T, C>& xc, RowCache<T, C>& dyc) {
    if (r >= rows) return;
    xc.template load<Exact>(row_ptr<const T>(x, r), sp, x.vec);
    dyc.template load<Exact>(row_ptr<const T>(dy, r), sp, dy.vec);
}

// Cached 2-byte rows of one or two packs per thread: the next row's loads are issued
// before this row's reduction, so they are in flight while the group waits at the barrier.
// (fp32 holds two packs per thread at 64 registers, and 2-byte rows of four packs at 128;
// a second row spilled in both.) Not where 1024 threads leave 64
// VGPRs (gfx900/906/908): the second row spilled. A template argument of the bodies, so
// that bench/experiments/norm_backward_variants.cu can try other launch shapes with and
// without it.
template <typename T, int C>
constexpr bool kNormBwdPrefetch = C > 0 && C <= 2 && sizeof(T) == 2 && !OPK_SMALL_VGPR_FILE;

// dx = rstd * g - x * rstd^3 * mean(g * x), g = dy * (weight + weight_offset);
// dweight += dy * x * rstd.
// L2Ahead: x's and dy's row kNormBwdRegsAheadBytes of rows ahead asked of L2 (the fp32
// register-sum kernels; kernel_params.h has the measurements).
template <typename T, int G, int C, bool Exact, bool Prefetch = kNormBwdPrefetch<T, C>,
          bool SharedW = kNormBwdSharedWeight<G, C>, bool L2Ahead = false>
OPK_DEV void rms_backward_rows(const NormArgs& a, float* smem) {
    constexpr int P = Pack<T>::n;
    const RowGroup<G> g;
    const Span rows_span = g.span(a.n, P);
    const Span& sp = rows_span;  // the row loop shadows it with per_row(rows_span)
    constexpr bool cached = C > 0;  // the host picks C = 0 (streaming) for long rows
    const WeightPacks<T, SharedW> w(static_cast<const T*>(a.weight), sp, a.weight_vec, a.weight_offset);
    // Cached rows keep their dweight sums in registers (measured on an H100: bf16
    // 32768x4096 0.57 -> 0.85 of copy bandwidth; fp32 the same with or without).
    using Acc = std::conditional_t<cached, ColumnRegs<P, C ? C : 1>, ColumnAcc<P>>;
    Acc dw(a.want_dweight ? a.partial + g.group * sp.n : nullptr,
           a.shared_sums ? shared_columns<G>(0, sp, P, w.shared_floats(sp)) : nullptr, sp);

    RowCache<T, C ? C : 1> xc, dyc, xn, dyn;
    if constexpr (Prefetch) prefetch2<Exact>(a.x, a.dy, g.first_row, a.rows, sp, xc, dyc);
    static_assert(!L2Ahead || (cached && Exact && !Prefetch), "L2Ahead: cached exact rows without the prefetch");
    const BwdRowsAhead<T, L2Ahead> rows_ahead_l2(sp.n);

    for (int64_t r = g.first_row; r < a.rows; r += g.row_step) {
        const Span sp = per_row(rows_span);
        const T* xr = row_ptr<const T>(a.x, r);
        const T* dyr = row_ptr<const T>(a.dy, r);
        T* dxr = row_ptr<T>(a.dx, r);
        const float inv = strided_get<float>(a.rstd, r);
        float dot = 0.0f;
        auto first = [&](int i, int64_t c, const float(&dy)[P], const float(&x)[P]) {
            float wv[P];
            w.get(i, c, sp.n, wv);
#pragma unroll
            for (int k = 0; k < P; ++k) {
                dot += dy[k] * wv[k] * x[k];
                if (Exact || c * P + k < sp.n) dw.add(i, c, k, dy[k] * x[k] * inv);
            }
        };
        if constexpr (cached) {
            if constexpr (!Prefetch) prefetch2<Exact>(a.x, a.dy, r, a.rows, sp, xc, dyc);
            rows_ahead_l2.ask(a, r, g.lane);
            each2<Exact>(dyc, xc, sp, first);
            if constexpr (Prefetch) prefetch2<Exact>(a.x, a.dy, r + g.row_step, a.rows, sp, xn, dyn);
        } else {
            stream_rows2<T>(dyr, a.dy.vec, xr, a.x.vec, sp, first);
        }
        dot = group_sum1<G>(dot, smem);
        const float coef = inv * inv * inv * dot / float(sp.n);
        auto emit = [&](int i, int64_t c, const float(&dy)[P], const float(&x)[P]) {
            float wv[P], out[P];
            w.get(i, c, sp.n, wv);
#pragma unroll
            for (int k = 0; k < P; ++k) out[k] = inv * dy[k] * wv[k] - coef * x[k];
            store_pack<T, P, CacheHint::normal, Exact>(dxr, c, sp.n, a.dx.vec, out);
        };
        if constexpr (cached) {
            each2<Exact>(dyc, xc, sp, emit);
            if constexpr (Prefetch) {
                xc = xn;
                dyc = dyn;
            }
        } else {
            stream_rows2<T>(dyr, a.dy.vec, xr, a.x.vec, sp, emit);
        }
    }
    dw.flush(sp);
}

// The norm backwards take the exact-row body (kExactPath) for fp32, and rms_norm's for the
// 2-byte four-pack kernel. Measured on the H100: layer_norm backward f32 +5-8 %, rms_norm
// +1-2 % (bench/results/h100-2026-11-24-rows-fwd/exact-bwd-*-ab-*); the 2-byte kernels of
// one pack a thread, which spill at 64 registers, lost 6-24 % with a second body; the
// 2-byte rms_norm four-pack kernel gained 8-13 % over its general body (it spills less: 24
// bytes, not 120; 3 % over the one-pack kernel it replaces at 4096 elements) and
// serves every exact row from 512 packs (kRmsBwd16ExactMinPacks), but layer_norm's two-
// and four-pack kernels lost 1-8 % (bench/results/2026-11-28-norm-exact/).
template <typename T, int G, int C>
OPK_DEV void rms_backward(const NormArgs& a) {
    __shared__ float smem[kReduceSlots];
    if constexpr (kExactPath<G, C> && (sizeof(T) == 4 || kNormBwdSharedWeight<G, C>))
        if (a.exact) return rms_backward_rows<T, G, C, true>(a, smem);
    rms_backward_rows<T, G, C, false>(a, smem);
}

// y = (x - mean) * rstd * weight + bias; biased variance. Cached rows use the exact
// two-pass variance; streamed rows sum x - x[0] and its square in one pass (shifting by
// a row element keeps the cancellation small), then write in a second.
template <typename T, int G, int C, bool Exact, bool BlockRow = false>
OPK_DEV void ln_forward_rows(const NormArgs& a, float* smem) {
    constexpr int P = Pack<T>::n;
    const RowGroup<G> g;
    const Span rows_span = g.span(a.n, P);
    constexpr bool cached = C > 0;  // the host picks C = 0 (streaming) for long rows
    const T* w = static_cast<const T*>(a.weight);
    const T* b = static_cast<const T*>(a.bias);
    const float inv_n = 1.0f / float(rows_span.n);
    for (int64_t r = g.first_row; r < a.rows; r = BlockRow ? a.rows : r + g.row_step) {
        const Span sp = per_row(rows_span);
        const T* xr = row_ptr<const T>(a.x, r);
        T* yr = row_ptr<T>(a.y, r);
        RowCache<T, C ? C : 1> x;
        float mu, var;
        if constexpr (cached) {
            x.template load<Exact>(xr, sp, a.x.vec);
            if constexpr (Exact && G > 0) prefetch_row_ahead<T, G, C>(a.x, r, a.rows, g.lane);
            float s = 0.0f;
            x.template each<Exact>(sp, [&](int, int64_t, const float(&v)[P]) {
#pragma unroll
                for (int k = 0; k < P; ++k) s += v[k];  // the fill past the end is 0
            });
            mu = group_sum1<G>(s, smem) * inv_n;
            float q = 0.0f;
            x.template each<Exact>(sp, [&](int, int64_t c, const float(&v)[P]) {
#pragma unroll
                for (int k = 0; k < P; ++k)
                    if (Exact || c * P + k < sp.n) q += (v[k] - mu) * (v[k] - mu);
            });
            var = group_sum1<G>(q, smem) * inv_n;
        } else {
            // Each thread sums its elements shifted by its own first one (few terms, so
            // little cancellation), turns them into its count, mean and squared deviations,
            // and group_moments merges those exactly. (One shift for the whole row, x[0],
            // cancelled badly when x[0] lay far from the mean: rstd missed its tolerance.)
            const int64_t mine = int64_t(sp.lane) * P, first = mine < sp.n ? mine : sp.n - 1;
            const float shift = to_f32(xr[first]);
            float cnt = 0.0f, s1 = 0.0f, s2 = 0.0f;
            stream_row<T, CacheHint::keep>(xr, sp, a.x.vec, 0.0f, [&](int, int64_t c, const float(&v)[P]) {
#pragma unroll
                for (int k = 0; k < P; ++k)
                    if (c * P + k < sp.n) {
                        const float d = v[k] - shift;
                        cnt += 1.0f;
                        s1 += d;
                        s2 += d * d;
                    }
            });
            float mean = cnt > 0.0f ? shift + s1 / cnt : 0.0f;
            float m2 = cnt > 0.0f ? fmaxf(s2 - s1 * (s1 / cnt), 0.0f) : 0.0f;
            group_moments<G>(cnt, mean, m2, smem);
            mu = mean;
            var = m2 * inv_n;
        }
        const float inv = 1.0f / sqrtf(var + a.eps);
        // The plain pass over more than four packs a thread (fp32 rows of 8192 and 16384): the
        // weight ahead measured no faster there (0.997-1.001, the twenty-eighth session) and
        // spilled the wide kernel. Not measured on the 256-VGPR AMD targets, which keep it too.
        constexpr bool ahead = !OPK_SMALL_VGPR_FILE && C <= 4;
        output_pass<T, C ? C : 1, cached, Exact, ahead>(
            x, xr, sp, a.x.vec, w, a.weight_vec, 0.0f, [&](int64_t c, const float(&v)[P], const float(&wv)[P]) {
                float out[P];
                if constexpr (!OPK_SMALL_VGPR_FILE) {
                    // The bias tested once a pack: written `+ (b ? bv[k] : 0)`, nvcc selected an
                    // element at a time (an FSEL an element, 32 of the bf16 g512 kernel's 660
                    // instructions a warp and row). The FMA is what nvcc contracted that form to.
                    if (b) {
                        float bv[P];
                        load_pack<T, P, Exact>(b, c, sp.n, a.bias_vec, bv);
#pragma unroll
                        for (int k = 0; k < P; ++k) out[k] = fmaf((v[k] - mu) * inv, wv[k], bv[k]);
                    } else {
#pragma unroll
                        for (int k = 0; k < P; ++k) out[k] = (v[k] - mu) * inv * wv[k];
                    }
                } else {
                    // gfx900/906/908 (a 256-entry VGPR file) keep the select: with two loops their
                    // opk_ln_fwd_bf16_c1 spilled 3 VGPRs (the AMD code-object gate), where on
                    // NVIDIA the select in the general bodies spilled more (check-cuda-spills).
                    float bv[P];
                    if (b) load_pack<T, P>(b, c, sp.n, a.bias_vec, bv);
#pragma unroll
                    for (int k = 0; k < P; ++k) out[k] = (v[k] - mu) * inv * wv[k] + (b ? bv[k] : 0.0f);
                }
                store_pack<T, P, kStoreHint<cached>, Exact>(yr, c, sp.n, a.y.vec, out);
            });
        if (g.lane == 0) {
            if (a.mean.data) strided_set<float>(a.mean, r, mu);
            if (a.rstd.data) strided_set<float>(a.rstd, r, inv);
        }
    }
}

// One reduction scratch for both bodies (two would double the LDS on AMD).
template <typename T, int G, int C>
OPK_DEV void ln_forward(const NormArgs& a) {
    __shared__ float smem[kReduceSlots];
    if constexpr (kExactPath<G, C>)
        if (a.exact) return ln_forward_rows<T, G, C, true>(a, smem);
    ln_forward_rows<T, G, C, false>(a, smem);
}

// As rms_forward_exact (ln_fwd_block_row's kernels one row a block).
template <typename T, int G, int C>
OPK_DEV void ln_forward_exact(const NormArgs& a) {
    __shared__ float smem[kReduceSlots];
    if constexpr (ln_fwd_block_row(int(sizeof(T)), G))
        ln_forward_rows<T, G, C, kExactPath<G, C>, true>(flat_rows_copy(a), smem);
    else
        ln_forward_rows<T, G, C, kExactPath<G, C>>(a, smem);
}

// layer_norm's forward of rows of exactly G x C packs on views of at most one outer
// dimension with the row's weight and bias packs loaded beside x at the row's start
// (OPK_LN_PARAMS_KERNELS in kernel_params.h says where, with its measurements): the output pass then
// waits on no load, where ln_forward_rows' reads each weight and bias pack as it writes y.
// mean, then the squared deviations about it, each through group_sum's fixed-group stage on
// two alternating scratches (one barrier a reduction); y as ln_forward_rows computes it.
template <typename T, int G, int C>
OPK_DEV void ln_forward_params(const NormArgs& a) {
    constexpr int P = Pack<T>::n;
    constexpr int64_t n = int64_t(G) * C * P;  // the host launches rows of exactly this
    constexpr float inv_n = 1.0f / float(n);
    __shared__ float smem[2][kReduceSlots];
    const T* w = static_cast<const T*>(a.weight);
    const T* b = static_cast<const T*>(a.bias);
    const int64_t lane = threadIdx.x;
    for (int64_t r = blockIdx.x; r < a.rows; r += gridDim.x) {
        const T* xr = flat_row_ptr<const T>(a.x, r);
        T* yr = flat_row_ptr<T>(a.y, r);
        uint4 xs[C], ws[C], bs[C];
#pragma unroll
        for (int i = 0; i < C; ++i) {
            const int64_t c = int64_t(i) * G + lane;
            xs[i] = load16<CacheHint::normal>(xr + c * P);
            if (w) ws[i] = load16<CacheHint::normal>(w + c * P);
            if (b) bs[i] = load16<CacheHint::normal>(b + c * P);
        }
        float s[1] = {packs_sum<T>(xs, [](float v) { return v; })};
        // Fresh: each scratch was last read before the previous reduction's barrier.
        group_sum<G, 1, true>(s, smem[0]);
        const float mu = s[0] * inv_n;
        float q[1] = {packs_sum<T>(xs, [mu](float v) { return (v - mu) * (v - mu); })};
        group_sum<G, 1, true>(q, smem[1]);
        const float inv = 1.0f / sqrtf(q[0] * inv_n + a.eps);
#pragma unroll
        for (int i = 0; i < C; ++i) {
            float v[P], wv[P], out[P];
            unpack<T, P>(xs[i], v);
            if (w) {
                unpack<T, P>(ws[i], wv);
            } else {
#pragma unroll
                for (int k = 0; k < P; ++k) wv[k] = 1.0f;
            }
            if (b) {
                float bv[P];
                unpack<T, P>(bs[i], bv);
#pragma unroll
                for (int k = 0; k < P; ++k) out[k] = fmaf((v[k] - mu) * inv, wv[k], bv[k]);
            } else {
#pragma unroll
                for (int k = 0; k < P; ++k) out[k] = (v[k] - mu) * inv * wv[k];
            }
            store16<CacheHint::normal>(yr + (int64_t(i) * G + lane) * P, pack_of<T, P>(out));
        }
        if (lane == 0) {
            if (a.mean.data) strided_set<float>(a.mean, r, mu);
            if (a.rstd.data) strided_set<float>(a.rstd, r, inv);
        }
    }
}

// xhat = (x - mean) * rstd, g = dy * weight;
// dx = rstd * (g - mean(g) - xhat * mean(g * xhat)); dweight += dy * xhat; dbias += dy.
// RegSums: dweight/dbias summed in registers (ColumnRegs) rather than in shared memory or
// the partial rows (ColumnAcc): cached 2-byte rows, and fp32 rows in opk_ln_bwd_regs_f32.
// WordMode: how bf16 packs convert (rows.cuh, unpack). L2Ahead: as rms_backward_rows'.
template <typename T, int G, int C, bool Exact, bool Prefetch = kNormBwdPrefetch<T, C>,
          bool SharedW = kNormBwdSharedWeight<G, C>, bool RegSums = (C > 0 && sizeof(T) == 2), int WordMode = -1,
          bool RegW = false, bool L2Ahead = false>
OPK_DEV void ln_backward_rows(const NormArgs& a, float* smem) {
    constexpr int P = Pack<T>::n;
    const RowGroup<G> g;
    const Span rows_span = g.span(a.n, P);
    const Span& sp = rows_span;  // the row loop shadows it with per_row(rows_span)
    constexpr bool cached = C > 0;  // the host picks C = 0 (streaming) for long rows
    static_assert(!RegW || (cached && !SharedW && kBlockGroup<G>), "register weights: cached block-wide rows");
    using Weights = std::conditional_t<RegW, WeightRegs<T, C ? C : 1>, WeightPacks<T, SharedW>>;
    const Weights w(static_cast<const T*>(a.weight), sp, a.weight_vec, 0.0f);
    const int64_t groups = int64_t(gridDim.x) * (int(blockDim.x) / sp.size);
    // Cached 2-byte rows: both sums in registers (bf16 32768x4096: 0.40 -> 0.60 of copy
    // bandwidth); fp32 rows of kRowConfigsNormBwd hold two packs at 64 registers, and two
    // arrays of register sums spill there (kRowConfigsNormBwdRegs32 has 128).
    static_assert(!RegSums || cached, "register sums need cached rows");
    using Acc = std::conditional_t<RegSums, ColumnRegs<P, C ? C : 1>, ColumnAcc<P>>;
    Acc dw(a.want_dweight ? a.partial + g.group * sp.n : nullptr,
           a.shared_sums ? shared_columns<G>(0, sp, P, w.shared_floats(sp)) : nullptr, sp);
    Acc db(a.want_dbias ? a.partial + (groups + g.group) * sp.n : nullptr,
           a.shared_sums ? shared_columns<G>(1, sp, P, w.shared_floats(sp)) : nullptr, sp);
    const float inv_n = 1.0f / float(sp.n);
    RowCache<T, C ? C : 1> xc, dyc, xn, dyn;
    if constexpr (Prefetch) prefetch2<Exact>(a.x, a.dy, g.first_row, a.rows, sp, xc, dyc);
    static_assert(!L2Ahead || (cached && Exact && !Prefetch), "L2Ahead: cached exact rows without the prefetch");
    const BwdRowsAhead<T, L2Ahead> rows_ahead_l2(sp.n);

    for (int64_t r = g.first_row; r < a.rows; r += g.row_step) {
        const Span sp = per_row(rows_span);
        const T* xr = row_ptr<const T>(a.x, r);
        const T* dyr = row_ptr<const T>(a.dy, r);
        T* dxr = row_ptr<T>(a.dx, r);
        const float mu = strided_get<float>(a.mean, r);
        const float inv = strided_get<float>(a.rstd, r);
        float sums[2] = {0.0f, 0.0f};  // sum(g), sum(g * xhat)
        auto first = [&](int i, int64_t c, const float(&dy)[P], const float(&x)[P]) {
            float wv[P];
            w.template get<WordMode>(i, c, sp.n, wv);
#pragma unroll
            for (int k = 0; k < P; ++k) {
                if (!Exact && c * P + k >= sp.n) continue;  // the fill past the end
                const float xh = (x[k] - mu) * inv, gk = dy[k] * wv[k];
                sums[0] += gk;
                sums[1] += gk * xh;
                dw.add(i, c, k, dy[k] * xh);
                db.add(i, c, k, dy[k]);
            }
        };
        if constexpr (cached) {
            if constexpr (!Prefetch) prefetch2<Exact>(a.x, a.dy, r, a.rows, sp, xc, dyc);
            rows_ahead_l2.ask(a, r, g.lane);
            each2<Exact, WordMode>(dyc, xc, sp, first);
            if constexpr (Prefetch) prefetch2<Exact>(a.x, a.dy, r + g.row_step, a.rows, sp, xn, dyn);
        } else {
            stream_rows2<T>(dyr, a.dy.vec, xr, a.x.vec, sp, first);
        }
        group_sum<G, 2>(sums, smem);
        // dx = inv * (g - mg - xhat * mgx). The exact-row body computes it as
        // g * inv + cg - (x - mu) * cx: one FADD an element (x - mu) where the written-out
        // form takes two and a multiply more (Nsight Compute, bf16 8192x8192: 6.6 FADDs an
        // element against Liger-Kernel's 3.1). The general body keeps the written-out form:
        // with the other, gfx900/906's f16 two-pack kernel spilled a VGPR.
        const float mg = sums[0] * inv_n, mgx = sums[1] * inv_n;
        const float cg = -mg * inv, cx = inv * inv * mgx;
        auto emit = [&](int i, int64_t c, const float(&dy)[P], const float(&x)[P]) {
            float wv[P], out[P];
            w.template get<WordMode>(i, c, sp.n, wv);
#pragma unroll
            for (int k = 0; k < P; ++k)
                out[k] = Exact ? fmaf(-(x[k] - mu), cx, fmaf(dy[k] * wv[k], inv, cg))
                               : inv * (dy[k] * wv[k] - mg - (x[k] - mu) * inv * mgx);
            store_pack<T, P, CacheHint::normal, Exact>(dxr, c, sp.n, a.dx.vec, out);
        };
        if constexpr (cached) {
            each2<Exact, WordMode>(dyc, xc, sp, emit);
            if constexpr (Prefetch) {
                xc = xn;
                dyc = dyn;
            }
        } else {
            stream_rows2<T>(dyr, a.dy.vec, xr, a.x.vec, sp, emit);
        }
    }
    dw.flush(sp);
    db.flush(sp);
}

template <typename T, int G, int C>
OPK_DEV void ln_backward(const NormArgs& a) {
    __shared__ float smem[kReduceSlots];
    if constexpr (kExactPath<G, C> && sizeof(T) == 4)
        if (a.exact) return ln_backward_rows<T, G, C, true>(a, smem);
    ln_backward_rows<T, G, C, false>(a, smem);
}

// layer_norm's 2-byte backward of 1025 to 2048 packs (kRowConfigsNormBwd16Long): bf16
// packs convert through to_f32, as before kBf16WordUnpack. With the word form this kernel
// measured slower on the H200 (bf16 4096x16384 0.217 -> 0.265 ms, the same 184 bytes
// spilled; bench/results/2026-11-28-s8/) where every other bf16 kernel measured faster
// or the same (rms_norm's backward of the same table 0.162 -> 0.142).
constexpr int kLnBwdLongWordMode = 0;
template <typename T, int G, int C>
OPK_DEV void ln_backward_long(const NormArgs& a) {
    __shared__ float smem[kReduceSlots];
    ln_backward_rows<T, G, C, false, kNormBwdPrefetch<T, C>, kNormBwdSharedWeight<G, C>, (C > 0 && sizeof(T) == 2),
                     kLnBwdLongWordMode>(a, smem);
}

// rms_norm's fp32 backward of rows exact for kRowConfigsNormBwdRegs32's config 1: the
// exact-row body alone, four packs a thread (its sums are in registers in every cached
// kernel), the weight row from shared memory, 128 registers, x's and dy's rows ahead asked
// of L2; the general body without kExactPath (gfx900/906/908).
template <typename T, int G, int C>
OPK_DEV void rms_backward_regs(const NormArgs& a) {
    __shared__ float smem[kReduceSlots];
    rms_backward_rows<T, G, C, kExactPath<G, C>, false, kNormBwdSharedWeight<G, C>, kExactPath<G, C>>(a, smem);
}

// layer_norm's fp32 backward of rows exact for kRowConfigsNormBwdRegs32's config 1: the
// exact-row body alone, four packs a thread, dweight/dbias sums in registers, the weight
// row from shared memory, 128 registers (kernel_params.h says why), rows ahead asked of L2
// as rms_backward_regs. Without kExactPath (gfx900/906/908) the general body, still with
// register sums.
template <typename T, int G, int C>
OPK_DEV void ln_backward_regs(const NormArgs& a) {
    __shared__ float smem[kReduceSlots];
    ln_backward_rows<T, G, C, kExactPath<G, C>, false, kNormBwdSharedWeight<G, C>, true, -1, false, kExactPath<G, C>>(
        a, smem);
}

// layer_norm's backward for 2-byte rows exact for two packs a thread (kRowConfigsLnBwd16,
// config 1): the exact-row body without the next-row prefetch, as a kernel of its own so
// that the general kernel's registers are not shared with it (in one kernel the pair
// spilled 92 bytes; apart, this one spills 68 and the general one none). With the prefetch
// the exact body spilled 164 bytes and lost 5 %; without it, it ran 1.06-1.09x faster
// than the general body with the prefetch (bf16 32768x4096 0.394 -> 0.360 ms, 16384x8192
// 0.401 -> 0.380; bench/results/2026-11-28-norm-exact/, variants-exact-2). Where 1024
// threads leave 64 VGPRs (no kExactPath) it is the general body.
// In the library on an H200 (the A/B against the general body, alternating twice,
// bench/results/2026-11-28-h200/): bf16 32768x4096 0.348 -> 0.336 ms, 8192x8192 0.197 ->
// 0.193; rows of 16384 take the four-pack kernel and are unchanged. The weight's packs in
// registers (WeightRegs), loaded once: bf16 8192x8192 0.186 -> 0.174 ms, 32768x4096 0.315
// -> 0.294, f16 0.194 -> 0.184 and 0.328 -> 0.302 (H200, bench/results/2026-11-28-s9/).
template <typename T, int G, int C>
OPK_DEV void ln_backward_exact(const NormArgs& a) {
    __shared__ float smem[kReduceSlots];
    if constexpr (kExactPath<G, C>)
        ln_backward_rows<T, G, C, true, false, false, true, -1, true>(a, smem);
    else
        ln_backward_rows<T, G, C, false>(a, smem);
}

#if OPK_CLUSTERS
// Both backwards with the rows stashed in shared memory (stash_rows.cuh): a block of B
// threads takes rows blockIdx.x, + gridDim.x, ... and keeps a.stash_slots of them, x and
// dy, in a ring of slots filled by cp.async, so the next rows' loads are in flight while
// this one is reduced and written, and no register holds more than the row being worked
// on: a thread's registers hold its C packs of the weight and of the dweight/dbias sums
// (the four-pack 2-byte kernels on exact rows keep layer_norm's dbias sums, rms_norm's
// dweight sums after the ring instead: norm_stash_shared_sums), and where
// norm_stash_hold_row says so its packs of the current row, read out of the slot once
// instead of in each pass. Each thread copies and reads only its own packs
// (c = lane + i * B), so the ring needs no barrier; a slot takes
// row j + slots - 1 as soon as its thread has read row j - 1 from it. The rows' mean and
// rstd are read one row ahead (their load was a stall of its own at each row's start).
// Rows must be whole 16-byte packs on 16-byte boundaries (the host checks); Exact: exactly
// C packs a thread (no bounds tests).
// a.stash_slots is a run-time count (the library launches kNormStashSlots = 2;
// bench/experiments/norm_backward_stash.cu tries more), hence async_wait_pending(int).
// (Two switches that experiment measured were taken out again, within 1 % either way,
// bench/results/2026-11-29-s13/r1: rms_norm reducing its one sum alone, and the weight
// row in shared memory after the ring instead of in registers.)
// K > 1 (a kernel built with clusters of K blocks; the library's fp32 _k2 kernels,
// kNormStashSplit): each row split into K equal parts of whole packs, one a block of the
// cluster, whose row sums the blocks add through distributed shared memory (cluster_sums)
// — for rows whose x and dy do not fit two to a block (fp32 rows of 16384). The host makes
// the packs a multiple of K; partial row g of dweight/dbias is cluster g's.
// The kernels are issue-bound (Nsight Compute, H200, bf16 rows of 8192 and 16384: 58-66 %
// of issue slots busy, warps most often stalled "not selected"; ~27 warp instructions an
// element, 6 of them bf16 unpacking), so layer_norm in 2-byte types takes the first pass's
// x-hat as one FMA (x * rstd - mean * rstd; fp32 keeps (x - mean) * rstd, whose rounding its
// tolerance needs) and, at two packs a thread, unpacks its weight once per kernel
// (kWeightOnce): bf16 layer_norm 0.2100 -> 0.2054 ms at 32768x4096, 0.1153 -> 0.1120 at
// 8192x8192, f16 5 % (bench/results/2026-11-29-s16/r1, r2). rms_norm measured within 1 %
// either way with its weight unpacked once and keeps it per row; the four-pack kernels have
// no registers for it, and the weight as fp32 in shared memory after the ring instead ran
// 2 % slower in bf16 (twice the shared loads; r2).
// The column sums of one thread's packs in a row of shared memory (norm_stash_shared_sums,
// kernel_params.h): each thread reads and writes only its own columns, so no barrier; a
// 16-byte load and store a half pack a row. Exact rows only (every pack is the thread's).
template <int P, int C>
struct ColumnSharedSums {
    float* col;   // this block's row of sums in shared memory
    float* part;  // the partial row in global memory, NULL = not wanted
    OPK_DEV ColumnSharedSums(float* shared_row, float* partial_row, const Span& s)
        : col(shared_row), part(partial_row) {
        if (!part) return;
#pragma unroll
        for (int i = 0; i < C; ++i) {
            const int64_t c = int64_t(i) * s.size + s.lane;
#pragma unroll
            for (int q = 0; q < P / 4; ++q) reinterpret_cast<float4*>(col + c * P)[q] = make_float4(0, 0, 0, 0);
        }
    }
    OPK_DEV void add_pack(int64_t c, const float (&v)[P]) {
        if (!part) return;
#pragma unroll
        for (int q = 0; q < P / 4; ++q) {
            float4 t = reinterpret_cast<float4*>(col + c * P)[q];
            t.x += v[4 * q];
            t.y += v[4 * q + 1];
            t.z += v[4 * q + 2];
            t.w += v[4 * q + 3];
            reinterpret_cast<float4*>(col + c * P)[q] = t;
        }
    }
    OPK_DEV void flush(const Span& s) {
        if (!part) return;
#pragma unroll
        for (int i = 0; i < C; ++i) {
            const int64_t c = int64_t(i) * s.size + s.lane;
#pragma unroll
            for (int q = 0; q < P / 4; ++q)
                reinterpret_cast<float4*>(part + c * P)[q] = reinterpret_cast<const float4*>(col + c * P)[q];
        }
    }
};

// M = 2 (the 2-byte kernels, clusters of two blocks, each taking its own rows): after the
// last row the pair adds its column sums through distributed shared memory, each block half
// of the columns, and writes one partial row a pair: half the [groups][n] rows to write
// here and to read in opk_column_sum (17 MB at bf16 4096x16384 for layer_norm's two sums,
// against 403 MB of x, dy and dx). The ring's space takes the register sums first.
template <int B>
OPK_DEV void merge_pair_sums(float* mine, float* out, int64_t n) {
    if (!out) return;
    auto cl = cooperative_groups::this_cluster();
    const int rank = int(cl.block_rank());
    float* other = cl.map_shared_rank(mine, rank ^ 1);
    const float4* first = reinterpret_cast<const float4*>(rank == 0 ? mine : other);
    const float4* second = reinterpret_cast<const float4*>(rank == 0 ? other : mine);
    const int64_t quads = n / 4, lo = rank == 0 ? 0 : quads / 2, hi = rank == 0 ? quads / 2 : quads;
    for (int64_t q = lo + threadIdx.x; q < hi; q += B) {
        const float4 u = first[q], v = second[q];  // rank 0's, then rank 1's: a fixed order
        reinterpret_cast<float4*>(out)[q] = make_float4(u.x + v.x, u.y + v.y, u.z + v.z, u.w + v.w);
    }
}

// Bulk: the ring filled by the Tensor Memory Accelerator (BulkRing, stash_rows.cuh), thread 0
// asking for each row's x and dy whole, in place of every thread's 16-byte cp.async copies
// (kernel_params.h, norm_stash_bulk, says where). One block a row, exact rows, at most
// kBulkSlots slots.
template <typename T, int B, int C, bool Ln, bool Exact, int K = 1, int M = 1, bool Bulk = false>
OPK_DEV void norm_backward_stash(const NormArgs& a) {
    constexpr int P = Pack<T>::n;
    static_assert(!Bulk || (K == 1 && M == 1 && Exact), "the bulk ring: one block a row, exact rows");
    static_assert(M == 1 || (K == 1 && M == 2 && sizeof(T) == 2),
                  "pairs merge whole rows' sums, and their ring (8n bytes) holds two fp32 rows of n");
    constexpr bool kWeightOnce = Ln && sizeof(T) == 2 && C <= 2;
    // The fp32 kernels split over a cluster copy their rows through L1 (see copy16_async: 13 %
    // at 4096x16384) and store dx whole (see store16_whole: 1.7 %).
    constexpr bool kFp32Split = K > 1 && sizeof(T) == 4;
    // One family of column sums after the ring (kernel_params.h): layer_norm's dbias,
    // rms_norm's dweight.
    constexpr bool kSharedSums = norm_stash_shared_sums(sizeof(T), C, K, Exact);
    constexpr bool kSharedDbias = Ln && kSharedSums, kSharedDw = !Ln && kSharedSums;
    // The thread's packs of each row held in registers (kernel_params.h says where).
    constexpr bool kHoldRow =
        !Bulk && norm_stash_hold_row(sizeof(T), std::is_same_v<T, opk_bf16>, Ln, C, K, Exact);
    // The rows' reductions alternate between two scratches: one barrier each.
    __shared__ float smem[2][kReduceSlots];
    // K > 1: this block's row sums, read by the cluster's blocks; alternating as smem, so
    // that the next row's exchange barrier orders this one's readers before its rewrite.
    __shared__ float exchange[2][2];
    static_assert(int64_t(sizeof(smem) + sizeof(exchange) + sizeof(BulkRing)) <= kKernelStaticSharedMax,
                  "the host leaves kKernelStaticSharedMax free");
    const RowGroup<B> g;
    // This block's cluster (a row group), its rows, and its part of each row: with K = 1 the
    // block, g's rows, and the whole row.
    int rank = 0;
    if constexpr (K > 1) rank = int(cooperative_groups::this_cluster().block_rank());
    const int64_t cluster = K > 1 ? int64_t(blockIdx.x) / K : M > 1 ? int64_t(blockIdx.x) / M : g.group;
    const int64_t first_row = K > 1 ? cluster : g.first_row, row_step = K > 1 ? int64_t(gridDim.x) / K : g.row_step;
    const Span whole = g.span(a.n, P);
    const int64_t first_elem = K > 1 ? int64_t(rank) * (whole.packs / K) * P : 0;
    const Span sp = K > 1 ? Span{a.n - first_elem, whole.packs / K, g.lane, B} : whole;
    uint4* const ring = reinterpret_cast<uint4*>(norm_columns);  // [slots][x, dy][packs]
    const int64_t slot_packs = 2 * sp.packs;
    const T* const weight_part =
        K > 1 && a.weight ? static_cast<const T*>(a.weight) + first_elem : static_cast<const T*>(a.weight);
    RowCache<T, C> weight = WeightRegs<T, C>(weight_part, sp, a.weight_vec, 0.0f).packs;  // raw
    constexpr bool kSplitL2Ahead = kFp32Split;
    const int64_t split_ahead =
        kSplitL2Ahead ? rows_ahead(whole.n * int64_t(sizeof(T)), Ln ? kLnSplitAheadBytes : kNormBwdRegsAheadBytes) : 0;
    const float offset = !Ln && a.weight ? a.weight_offset : 0.0f;  // no weight: 1, as column_pack
    const int64_t groups = gridDim.x / (K * M);
    float* const dw_row = a.want_dweight ? a.partial + cluster * a.n + first_elem : nullptr;
    float* const db_row = Ln && a.want_dbias ? a.partial + (groups + cluster) * a.n + first_elem : nullptr;
    // M > 1: the register sums go to the ring's space (2n floats: the host launches two slots
    // at least), dweight's first, then dbias's; then, added to the partner's, out a pair.
    float* const ring_sums = reinterpret_cast<float*>(ring);
    float* const dw_regs_out = M > 1 && dw_row ? ring_sums : dw_row;
    float* const db_regs_out = M > 1 && db_row ? ring_sums + a.n : db_row;
    ColumnRegs<P, kSharedDw ? 1 : C> dw(kSharedDw ? nullptr : dw_regs_out, nullptr, sp);
    ColumnRegs<P, kSharedDbias ? 1 : C> db(kSharedDbias ? nullptr : db_regs_out, nullptr, sp);
    ColumnSharedSums<P, C> shared_sums(reinterpret_cast<float*>(ring + int64_t(a.stash_slots) * 2 * sp.packs),
                                       kSharedDbias ? db_row : kSharedDw ? dw_row : nullptr, sp);
    const int mine = first_row < a.rows ? int((a.rows - first_row + row_step - 1) / row_step) : 0;
    auto mine_packs = [&](auto&& f) {
#pragma unroll
        for (int i = 0; i < C; ++i) {
            const int64_t c = int64_t(i) * B + g.lane;
            if (Exact || c < sp.packs) f(i, c);
        }
    };
    __shared__ BulkRing bulk;  // Bulk only (nvcc drops it elsewhere)
    // Thread 0 asks for row j's x and dy whole into `slot` (Bulk).
    auto bulk_request = [&](int j, int slot) {
        if (j >= mine) return;
        const int64_t r = first_row + int64_t(j) * row_step;
        uint4* s = ring + slot * slot_packs;
        const unsigned bytes = unsigned(sp.packs * 16);
        bulk_expect(bulk, slot, 2 * bytes);
        bulk_copy(bulk, slot, s, row_ptr<const T>(a.x, r), bytes);
        bulk_copy(bulk, slot, s + sp.packs, row_ptr<const T>(a.dy, r), bytes);
    };
    BulkRowRing bulk_slots{bulk, a.stash_slots < kBulkSlots ? a.stash_slots : kBulkSlots};
    if constexpr (Bulk) bulk_slots.start(B / 32, bulk_request);
    // Row j of this block's rows into `slot`; an empty group past the last keeps the count.
    auto request = [&](int j, int slot) {
        if (j < mine) {
            const int64_t r = first_row + int64_t(j) * row_step;
            uint4* s = ring + slot * slot_packs;
            const T* xr = row_ptr<const T>(a.x, r) + first_elem;
            const T* dyr = row_ptr<const T>(a.dy, r) + first_elem;
            mine_packs([&](int, int64_t c) {
                copy16_async<kFp32Split>(&s[c], xr + c * P);
                copy16_async<kFp32Split>(&s[sp.packs + c], dyr + c * P);
            });
            // The fp32 split kernels: the block's first thread asks L2 for its part of x's
            // and dy's row split_ahead rows past this one (kNormBwdRegsAheadBytes and
            // kLnSplitAheadBytes say how far).
            if (kSplitL2Ahead && g.lane == 0 && r + split_ahead < a.rows) {
                const uint32_t bytes = uint32_t(sp.packs * 16);
                prefetch_l2(row_ptr<const T>(a.x, r + split_ahead) + first_elem, bytes);
                prefetch_l2(row_ptr<const T>(a.dy, r + split_ahead) + first_elem, bytes);
            }
        }
        async_commit();
    };
    RowRing ring_slots(Bulk ? 1 : a.stash_slots, request);  // Bulk: one slot, nothing requested
    float mu_next = 0.0f, inv_next = 0.0f;
    if (mine > 0) {
        if (Ln) mu_next = strided_get<float>(a.mean, first_row);
        inv_next = strided_get<float>(a.rstd, first_row);
    }
    const float inv_n = 1.0f / float(whole.n);
    for (int j = 0; j < mine; ++j) {
        const int64_t r = first_row + int64_t(j) * row_step;
        const float mu = mu_next, inv = inv_next;
        if (j + 1 < mine) {
            if (Ln) mu_next = strided_get<float>(a.mean, r + row_step);
            inv_next = strided_get<float>(a.rstd, r + row_step);
        }
        const int slot_index = Bulk ? bulk_slots.next(j, mine, bulk_request) : ring_slots.next(j, request);
        const uint4* slot = ring + slot_index * slot_packs;  // row j, landed
        if constexpr (!kWeightOnce)
#pragma unroll
            for (int i = 0; i < C; ++i) per_iteration_words(weight.raw[i]);
        // kHoldRow: the thread's packs of row j out of the slot into registers, every load
        // before the first use, and both passes from them.
        uint4 held_x[kHoldRow ? C : 1], held_dy[kHoldRow ? C : 1];
        if constexpr (kHoldRow)
            mine_packs([&](int i, int64_t c) {
                held_x[i] = slot[c];
                held_dy[i] = slot[sp.packs + c];
            });
        auto row_pack = [&](int i, int64_t c, float (&x)[P], float (&dy)[P], float (&wv)[P]) {
            if constexpr (kHoldRow) {
                unpack<T, P>(held_x[i], x);
                unpack<T, P>(held_dy[i], dy);
            } else {
                unpack<T, P>(slot[c], x);
                unpack<T, P>(slot[sp.packs + c], dy);
            }
            unpack<T, P>(weight.raw[i], wv);
            add_offset(offset, wv);
        };
        // layer_norm: sum(g), sum(g * xhat); rms_norm: sum(g * x). g = dy * weight.
        float sums[2] = {0.0f, 0.0f};
        const float neg_mu_inv = -mu * inv;
        mine_packs([&](int i, int64_t c) {
            float x[P], dy[P], wv[P];
            row_pack(i, c, x, dy, wv);
#pragma unroll
            for (int k = 0; k < P; ++k) {
                const float gk = dy[k] * wv[k];
                if constexpr (Ln) {
                    const float xh = sizeof(T) == 2 ? fmaf(x[k], inv, neg_mu_inv) : (x[k] - mu) * inv;
                    sums[0] += gk;
                    sums[1] += gk * xh;
                    dw.add(i, c, k, dy[k] * xh);
                    if constexpr (!kSharedDbias) db.add(i, c, k, dy[k]);
                } else {
                    sums[0] += gk * x[k];
                    if constexpr (!kSharedDw) dw.add(i, c, k, dy[k] * x[k] * inv);
                }
            }
            if constexpr (kSharedDbias) shared_sums.add_pack(c, dy);
            if constexpr (kSharedDw) {
                float t[P];
#pragma unroll
                for (int k = 0; k < P; ++k) t[k] = dy[k] * x[k] * inv;
                shared_sums.add_pack(c, t);
            }
        });
        group_sum<B, 2, true>(sums, smem[j & 1]);
        if constexpr (K > 1) cluster_sums<K>(sums, exchange[j & 1]);
        // layer_norm as ln_backward_rows' exact body; rms_norm as rms_backward_rows.
        const float cg = -sums[0] * inv_n * inv;
        const float cx = Ln ? inv * inv * sums[1] * inv_n : inv * inv * inv * sums[0] * inv_n;
        T* dxr = row_ptr<T>(a.dx, r) + first_elem;
        mine_packs([&](int i, int64_t c) {
            float x[P], dy[P], wv[P], out[P];
            row_pack(i, c, x, dy, wv);
#pragma unroll
            for (int k = 0; k < P; ++k)
                out[k] = Ln ? fmaf(-(x[k] - mu), cx, fmaf(dy[k] * wv[k], inv, cg)) : inv * dy[k] * wv[k] - cx * x[k];
            if constexpr (kFp32Split)
                store16_whole(dxr + c * P, pack_of<T, P>(out));
            else
                store_pack<T, P, CacheHint::normal, true>(dxr, c, sp.n, true, out);
        });
        if constexpr (Bulk) bulk_slots.release(slot_index);  // this warp is done with row j's slot
    }
    // The column sums (launched dependent) may take this SM as soon as this block leaves.
    allow_dependent_launch();
    // Every row was waited for in the loop; what may still be pending are the empty groups
    // committed past the last row. Waiting costs nothing and leaves no copy in flight.
    async_wait_pending<0>();
    // No block leaves while another may still read its exchange slots.
    if constexpr (K > 1) cooperative_groups::this_cluster().sync();
    if constexpr (M > 1) {
        __syncthreads();  // every thread is done with the ring: its space takes the sums
        dw.flush(sp);
        db.flush(sp);
        cooperative_groups::this_cluster().sync();  // both blocks' sums in shared memory
        merge_pair_sums<B>(kSharedDw ? shared_sums.col : ring_sums, dw_row, a.n);
        if constexpr (Ln) merge_pair_sums<B>(kSharedDbias ? shared_sums.col : ring_sums + a.n, db_row, a.n);
        cooperative_groups::this_cluster().sync();  // the partner has read this block's sums
    } else {
        dw.flush(sp);
        db.flush(sp);
        if constexpr (kSharedSums) shared_sums.flush(sp);
    }
}

#endif  // OPK_CLUSTERS

}  // namespace
}  // namespace opk

using namespace opk;

OPK_ROW_KERNELS(opk_rms_fwd, NormArgs, rms_forward, kRowConfigs)
OPK_ROW_KERNELS(opk_rms_bwd, NormArgs, rms_backward, kRowConfigsNormBwd)
OPK_ROW_KERNELS(opk_ln_fwd, NormArgs, ln_forward, kRowConfigs)
// The fp32 forwards of rows exact for eight packs a thread (kFwdWideMinPacks..MaxPacks).
OPK_ROW_KERNEL(opk_rms_fwd_wide_f32, NormArgs, rms_forward_exact, float, kRowConfigsRmsFwdWide, 1,
               OPK_ROW_RESIDENT_THREADS)
OPK_ROW_KERNEL_AT_MOST(opk_ln_fwd_wide_f32, NormArgs, ln_forward_exact, float, kRowConfigsFwdWide, 1,
                       OPK_ROW_RESIDENT_THREADS, opk::kFwdWideMaxBlock)
// The forwards of rows exact for a fixed group (FixedKernel).
OPK_RMS_FIXED_ROW_KERNELS(opk_rms_fwd_fixed, NormArgs, rms_forward_exact)
// rms_norm's forwards that read the row twice (OPK_RMS_TWICE_KERNELS names them): built for
// kRmsFwdTwiceResident threads an SM on NVIDIA (28-32 registers, no spills); on AMD for the
// row family's 1024 a CU (2048 would leave gfx900/906 32 VGPRs, where softmax's one-pack
// backward spilled).
#define OPK_RMS_TWICE_KERNEL_C(name, T, G, C, L1Hints, BlockRow)                                      \
    extern "C" __global__ void OPK_BOUNDS_RESIDENT_NV_AMD(G, opk::kRmsFwdTwiceResident, OPK_ROW_RESIDENT_THREADS) \
        name(const NormArgs a) {                                                                      \
        opk::assume_flat_rows(a);                                                                     \
        rms_forward_twice<T, G, C, L1Hints, BlockRow>(a);                                             \
    }
#define OPK_RMS_TWICE_KERNEL(name, T, G) OPK_RMS_TWICE_KERNEL_C(name, T, G, 2, false, false)
OPK_RMS_TWICE_KERNEL_C(opk_rms_fwd_twice_f32_g1024x4, float, 1024, 4, false, false)
OPK_RMS_TWICE_KERNEL_C(opk_rms_fwd_twice_f32_g512x4, float, 512, 4, true, false)
OPK_RMS_TWICE_KERNEL(opk_rms_fwd_twice_f32_g512x2, float, 512)
OPK_RMS_TWICE_KERNEL(opk_rms_fwd_twice_f16_g256x2, opk_f16, 256)
OPK_RMS_TWICE_KERNEL_C(opk_rms_fwd_twice_block_row_f16_g512x2, opk_f16, 512, 2, false, true)
OPK_RMS_TWICE_KERNEL(opk_rms_fwd_twice_bf16_g256x2, opk_bf16, 256)
OPK_RMS_TWICE_KERNEL_C(opk_rms_fwd_twice_block_row_bf16_g512x2, opk_bf16, 512, 2, false, true)
OPK_RMS_TWICE_KERNEL_C(opk_rms_fwd_twice_block_row_f16_g512x4, opk_f16, 512, 4, false, true)
OPK_RMS_TWICE_KERNEL_C(opk_rms_fwd_twice_block_row_bf16_g512x4, opk_bf16, 512, 4, false, true)
OPK_FIXED_ROW_KERNELS(opk_ln_fwd_fixed, NormArgs, ln_forward_exact)
// layer_norm's fp32 rows of 8192 with the weight and bias loaded beside x (OPK_LN_PARAMS_KERNELS):
// the row family's 1024 resident threads on NVIDIA (63 registers, no spills); on AMD 512 a
// CU, since at 1024 gfx900/906 (64 VGPRs) spilled 27-28 VGPRs (112-116 bytes of scratch).
extern "C" __global__ void OPK_BOUNDS_RESIDENT_NV_AMD(512, OPK_ROW_RESIDENT_THREADS, 512)
    opk_ln_fwd_params_f32_g512x4(const NormArgs a) {
    opk::assume_flat_rows(a);
    ln_forward_params<float, 512, 4>(a);
}
// layer_norm's backward: 2-byte types take their own configs (kRowConfigsLnBwd16 says why).
OPK_ROW_KERNELS_OF_TYPE(opk_ln_bwd, f32, NormArgs, ln_backward, float, kRowConfigsNormBwd, OPK_ROW_RESIDENT_THREADS_WIDE)
OPK_ROW_KERNELS_OF_TYPE(opk_ln_bwd, f16, NormArgs, ln_backward, opk_f16, kRowConfigsLnBwd16, OPK_ROW_RESIDENT_THREADS_WIDE)
OPK_ROW_KERNELS_OF_TYPE(opk_ln_bwd, bf16, NormArgs, ln_backward, opk_bf16, kRowConfigsLnBwd16,
                        OPK_ROW_RESIDENT_THREADS_WIDE)
OPK_ROW_KERNEL_C1_2BYTE(opk_ln_bwd_exact, NormArgs, ln_backward_exact, kRowConfigsLnBwd16,
                        OPK_ROW_RESIDENT_THREADS_WIDE)
// The same body with the block a compile-time group of G threads (the host launches them
// for exact rows whose block is 256 or 512 threads: f16/bf16 rows of 4096 and 8192):
// RowGroup's size, the packs' offsets and the reductions' warp count are constants, and the
// block stage of group_sum is shuffle_warps' instead of every thread adding the warps'
// partials (8-16 on NVIDIA, 4-8 wavefronts on wave64). Nsight Compute, bf16 8192x8192:
// 20.8 % of the instructions FADD, ~2 an element of them that serial sum (bench/results/
// 2026-11-28-s9/r2); sm_90 static FADDs 148 -> 78. H200, A/B alternating twice
// (bench/results/2026-11-29-s10/r1): bf16 0.295 -> 0.268 ms at 32768x4096, 0.177 -> 0.160
// at 8192x8192; f16 0.294 -> 0.265, 0.179 -> 0.162; outputs within the old kernel's error.
#define OPK_LN_BWD_EXACT_FIXED(name, T, G)                                                   \
    OPK_FIXED_ROW_KERNEL_RESIDENT(name, NormArgs, ln_backward_exact, T, G,                     \
                                  OPK_ROW_CHUNKS(T, kRowConfigsLnBwd16[1]),                    \
                                  OPK_ROW_RESIDENT_OF(kRowConfigsLnBwd16[1], OPK_ROW_RESIDENT_THREADS_WIDE))
OPK_LN_BWD_EXACT_FIXED(opk_ln_bwd_exact_f16_g256, opk_f16, 256)
OPK_LN_BWD_EXACT_FIXED(opk_ln_bwd_exact_f16_g512, opk_f16, 512)
OPK_LN_BWD_EXACT_FIXED(opk_ln_bwd_exact_bf16_g256, opk_bf16, 256)
OPK_LN_BWD_EXACT_FIXED(opk_ln_bwd_exact_bf16_g512, opk_bf16, 512)
OPK_ROW_KERNEL(opk_ln_bwd_regs_f32, NormArgs, ln_backward_regs, float, kRowConfigsNormBwdRegs32, 1,
               OPK_ROW_RESIDENT_THREADS_WIDE)
OPK_ROW_KERNEL(opk_rms_bwd_regs_f32, NormArgs, rms_backward_regs, float, kRowConfigsNormBwdRegs32, 1,
               OPK_ROW_RESIDENT_THREADS_WIDE)
// Both backwards, 2-byte rows of 1025 to 2048 packs, and rms_norm's exact rows from 512
// packs (kRowConfigsNormBwd16Long, kRmsBwd16ExactMinPacks).
OPK_ROW_KERNEL_C1_2BYTE(opk_ln_bwd_long, NormArgs, ln_backward_long, kRowConfigsNormBwd16Long, OPK_ROW_RESIDENT_THREADS_WIDE)
OPK_ROW_KERNEL_C1_2BYTE(opk_rms_bwd_long, NormArgs, rms_backward, kRowConfigsNormBwd16Long, OPK_ROW_RESIDENT_THREADS_WIDE)

#if OPK_CLUSTERS
// The stash backwards (kNormStashConfigs): clusters (fp32: of one block), so that the host asks
// the driver how many fit at once (cuOccupancyMaxActiveClusters) as for cross-entropy's.
// layer_norm's 2-byte rows: clusters of kNormStashPair blocks that merge their column sums
// (M above; kernel_params.h, norm_stash_pairs).
#define OPK_NORM_STASH_KERNEL(name, T, i, Ln, Exact)                                             \
    extern "C" __global__ void __cluster_dims__(opk::norm_stash_pairs(Ln, sizeof(T)) ? opk::kNormStashPair : 1, 1, 1) \
        OPK_BOUNDS_RESIDENT(opk::kNormStashConfigs[i].threads, opk::kNormStashResident) name(const NormArgs a) { \
        norm_backward_stash<T, opk::kNormStashConfigs[i].threads, opk::kNormStashConfigs[i].chunks, Ln, Exact, 1, \
                            opk::norm_stash_pairs(Ln, sizeof(T)) ? opk::kNormStashPair : 1,   \
                            opk::norm_stash_bulk(sizeof(T), i, Exact)>(a);                    \
    }
// sfx: _k2 for the pairs' kernels (kernel_params.h, OPK_LN_STASH_NAMES), empty for the rest.
#define OPK_NORM_STASH_CONFIG(stem, dt, T, i, Ln, sfx)     \
    OPK_NORM_STASH_KERNEL(stem##_##dt##_s##i##sfx, T, i, Ln, false) \
    OPK_NORM_STASH_KERNEL(stem##_##dt##_s##i##sfx##_exact, T, i, Ln, true)
#define OPK_NORM_STASH_TYPE_KERNELS(stem, dt, T, Ln, sfx) \
    OPK_NORM_STASH_CONFIG(stem, dt, T, 0, Ln, sfx)       \
    OPK_NORM_STASH_CONFIG(stem, dt, T, 1, Ln, sfx)       \
    OPK_NORM_STASH_CONFIG(stem, dt, T, 2, Ln, sfx)
#define OPK_NORM_STASH_2BYTE_KERNELS(stem, Ln, sfx)           \
    OPK_NORM_STASH_TYPE_KERNELS(stem, f16, opk_f16, Ln, sfx) \
    OPK_NORM_STASH_TYPE_KERNELS(stem, bf16, opk_bf16, Ln, sfx)
// fp32: layer_norm's configs 0 and 1 (kNormStashMaxPacks32), rms_norm's all three
// (kRmsStashMaxPacks32).
OPK_NORM_STASH_TYPE_KERNELS(opk_rms_bwd_stash, f32, float, false, )
OPK_NORM_STASH_2BYTE_KERNELS(opk_rms_bwd_stash, false, )
OPK_NORM_STASH_CONFIG(opk_ln_bwd_stash, f32, float, 0, true, )
OPK_NORM_STASH_CONFIG(opk_ln_bwd_stash, f32, float, 1, true, )
OPK_NORM_STASH_2BYTE_KERNELS(opk_ln_bwd_stash, true, _k2)
static_assert(opk::norm_stash_pairs(true, 2) && !opk::norm_stash_pairs(false, 2) && !opk::norm_stash_pairs(true, 4) &&
                  opk::kNormStashPair == 2,
              "the pairs' kernels are layer_norm's 2-byte ones, and their names say _k2");
static_assert(sizeof(opk::kNormStashConfigs) / sizeof(opk::kNormStashConfigs[0]) == 3, "a kernel for every config");
// fp32 rows split over clusters of kNormStashSplit blocks (kernel_params.h says when).
#define OPK_NORM_STASH_SPLIT_KERNEL(name, Ln, Exact)                                                  \
    extern "C" __global__ void __cluster_dims__(opk::kNormStashSplit, 1, 1)                           \
        OPK_BOUNDS_RESIDENT(opk::kNormStashSplitConfig.threads, opk::kNormStashResident) name(const NormArgs a) { \
        norm_backward_stash<float, opk::kNormStashSplitConfig.threads, opk::kNormStashSplitConfig.chunks, Ln, Exact, \
                            opk::kNormStashSplit>(a);                                               \
    }
OPK_NORM_STASH_SPLIT_KERNEL(opk_rms_bwd_stash_f32_k2, false, false)
OPK_NORM_STASH_SPLIT_KERNEL(opk_rms_bwd_stash_f32_k2_exact, false, true)
OPK_NORM_STASH_SPLIT_KERNEL(opk_ln_bwd_stash_f32_k2, true, false)
OPK_NORM_STASH_SPLIT_KERNEL(opk_ln_bwd_stash_f32_k2_exact, true, true)
#endif

// dweight / dbias: out[j] = sum over groups of partial[g][j], converted to the weight's
// type. A warp reads 32 adjacent columns of one group row (coalesced), or with quads 32
// lanes of four adjacent columns (16-byte loads: kColumnSumQuadsMinColumns says when); the
// block's slices of groups are combined in shared memory in a fixed order (deterministic,
// and the same order a column either way).
template <int V>
struct alignas(4 * V) ColumnLanes {
    float v[V];
};
template <int V>
OPK_DEV ColumnLanes<V> load_columns(const float* p) {
    if constexpr (V == 4) {
        const float4 f = *reinterpret_cast<const float4*>(p);
        return {{f.x, f.y, f.z, f.w}};
    } else {
        return {{*p}};
    }
}
template <int V>
OPK_DEV void add_columns(ColumnLanes<V>& s, const ColumnLanes<V>& x) {
#pragma unroll
    for (int i = 0; i < V; ++i) s.v[i] += x.v[i];
}
template <typename T, int V>
__device__ void column_sum(const ColumnSumArgs& a) {
    constexpr int W = kColumnSumColumns, S = kColumnSumThreads / kColumnSumColumns;
    __shared__ ColumnLanes<V> part[S][W];
    const int col = int(threadIdx.x) % W, slice = int(threadIdx.x) / W;
    // A select, not a[blockIdx.y]: indexing the parameter by a run-time value copied it to
    // the stack (40 bytes, sm_90).
    T* out = static_cast<T*>(blockIdx.y ? a.out[1] : a.out[0]);
    if (!out) return;  // the whole block alike: no barrier is left waiting
    const float* partial = a.partial + int64_t(blockIdx.y) * a.groups * a.n;
    wait_for_prior_grid();  // the row kernel's partials
    // With quads n % 4 == 0, so a lane's first column in range has its other three too.
    for (int64_t j0 = int64_t(blockIdx.x) * W * V; j0 < a.n; j0 += int64_t(gridDim.x) * W * V) {
        const int64_t j = j0 + int64_t(col) * V;
        ColumnLanes<V> s{};
        if (j < a.n)
            for (int64_t g = slice; g < a.groups; g += S) add_columns(s, load_columns<V>(partial + g * a.n + j));
        part[slice][col] = s;
        __syncthreads();
        if (slice == 0 && j < a.n) {
            ColumnLanes<V> total{};
            for (int k = 0; k < S; ++k) add_columns(total, part[k][col]);
#pragma unroll
            for (int i = 0; i < V; ++i) out[j + i] = from_f32<T>(total.v[i]);
        }
        __syncthreads();
    }
}

// The quads in kernels of their own (the host picks): each keeps only its own shared
// memory (2 KB, 8 KB) for starting beside the row kernel's draining blocks, and the
// scalar kernels stay as they were (with one kernel and a flag, layer_norm bf16 8192x8192,
// which never takes quads, measured 1.007 of its time: bench/results/2026-11-30-s29/r2).
OPK_KERNEL(opk_column_sum_f32, kColumnSumThreads)(const ColumnSumArgs a) { column_sum<float, 1>(a); }
OPK_KERNEL(opk_column_sum_f16, kColumnSumThreads)(const ColumnSumArgs a) { column_sum<opk_f16, 1>(a); }
OPK_KERNEL(opk_column_sum_bf16, kColumnSumThreads)(const ColumnSumArgs a) { column_sum<opk_bf16, 1>(a); }
OPK_KERNEL(opk_column_sum4_f32, kColumnSumThreads)(const ColumnSumArgs a) { column_sum<float, 4>(a); }
OPK_KERNEL(opk_column_sum4_f16, kColumnSumThreads)(const ColumnSumArgs a) { column_sum<opk_f16, 4>(a); }
OPK_KERNEL(opk_column_sum4_bf16, kColumnSumThreads)(const ColumnSumArgs a) { column_sum<opk_bf16, 4>(a); }
