// Softmax over the last dimension, forward and backward. Cached rows are read once;
// streamed rows use the online (max, sum) recurrence in the first pass, so the row is
// read twice in total, never three times.
#include "rows.cuh"

namespace opk {
namespace {

// WordMode: how bf16 packs convert (rows.cuh, unpack).
// BlockRow: the block's group takes row first_row alone (a block for every row).
template <typename T, int G, int C, bool Exact, int WordMode = -1, bool BlockRow = false>
OPK_DEV void softmax_forward_rows(const SoftmaxArgs& a, float* smem) {
    constexpr int P = Pack<T>::n;
    constexpr bool cached = C > 0;  // the host picks C = 0 (streaming) for long rows
    const RowGroup<G> g;
    const Span rows_span = g.span(a.n, P);
    for (int64_t r = g.first_row; r < a.rows; r = BlockRow ? a.rows : r + g.row_step) {
        const Span sp = per_row(rows_span);
        const T* xr = row_ptr<const T>(a.a, r);
        T* yr = row_ptr<T>(a.out, r);
        float m = -INFINITY, s = 0.0f;
        RowCache<T, C ? C : 1> x;
        if constexpr (cached) {
            // This thread's own max first (no exp), then one (max, sum) reduction.
            x.template load<Exact>(xr, sp, a.a.vec, -INFINITY);
            if constexpr (Exact && G > 0) prefetch_row_ahead<T, G, C>(a.a, r, a.rows, g.lane);
            x.template each<Exact, WordMode>(sp, [&](int, int64_t, const float(&v)[P]) {
#pragma unroll
                for (int k = 0; k < P; ++k) m = fmaxf(m, v[k]);
            });
            const float base = exp_base(m);
            x.template each<Exact, WordMode>(sp, [&](int, int64_t, const float(&v)[P]) {
#pragma unroll
                for (int k = 0; k < P; ++k) s += exp_minus<T>(v[k], base);
            });
        } else {
            stream_row<T, CacheHint::keep>(xr, sp, a.a.vec, -INFINITY,
                                           [&](int, int64_t, const float(&v)[P]) { online_add<T, P>(m, s, v); });
        }
        group_online<G>(m, s, smem);
        const float rs = 1.0f / s, base = exp_base(m);
        auto emit = [&](int, int64_t c, const float(&v)[P]) {
            float out[P];
#pragma unroll
            for (int k = 0; k < P; ++k) out[k] = exp_minus<T>(v[k], base) * rs;
            store_pack<T, P, kStoreHint<cached>, Exact>(yr, c, sp.n, a.out.vec, out);
        };
        if constexpr (cached)
            x.template each<Exact, WordMode>(sp, emit);
        else
            stream_row_back<T>(xr, sp, a.a.vec, -INFINITY, emit);
    }
}

// One reduction scratch for both bodies (two would double the LDS on AMD).
template <typename T, int G, int C>
OPK_DEV void softmax_forward(const SoftmaxArgs& a) {
    __shared__ float smem[kReduceSlots];
    if constexpr (kExactPath<G, C>)
        if (a.exact) return softmax_forward_rows<T, G, C, true>(a, smem);
    softmax_forward_rows<T, G, C, false>(a, smem);
}

// The exact-row body alone, so that no general body shares its registers: the fp32
// forward of rows exact for eight packs a thread (kRowConfigsFwdWide) and the fixed-group
// forwards (FixedKernel; kernel_params.h has the measurements). Without kExactPath
// (gfx900/906/908) it is the general body. How bf16 packs convert (unpack's WordMode): a
// word at a time in groups of 256 threads or more; the groups of 128 (rows of 4096) convert
// through to_f32, as before kBf16WordUnpack. On the H200 (A/B alternating twice,
// bench/results/2026-11-28-s8/ and -s9/): with the fixed groups' shuffle stage
// (group_reduce.cuh) the word form took bf16 4096x16384 0.0755 -> 0.0721 ms and 8192x8192
// 0.0710 -> 0.0692, but 32768x4096 0.1318 -> 0.1332 (and 0.1320 -> 0.1327 without it).
template <int G>
constexpr int kSoftmaxFwdExactWordMode = G >= 256 ? -1 : 0;
// The fixed-group kernels that softmax_fwd_block_row picks take one row a block.
template <typename T, int G, int C>
OPK_DEV void softmax_forward_exact(const SoftmaxArgs& a) {
    __shared__ float smem[kReduceSlots];
    constexpr int W = kSoftmaxFwdExactWordMode<G>;
    if constexpr (softmax_fwd_block_row(int(sizeof(T)), G))
        softmax_forward_rows<T, G, C, kExactPath<G, C>, W, true>(flat_rows_copy(a), smem);
    else
        softmax_forward_rows<T, G, C, kExactPath<G, C>, W>(a, smem);
}

// dx = y * (dy - sum(dy * y)). Exact: the rows are exact for the group (kExactPath), as
// in softmax_forward_rows.
template <typename T, int G, int C, bool Exact>
OPK_DEV void softmax_backward_rows(const SoftmaxArgs& a, float* smem) {
    constexpr int P = Pack<T>::n;
    constexpr bool cached = C > 0;
    const RowGroup<G> g;
    const Span rows_span = g.span(a.n, P);
    for (int64_t r = g.first_row; r < a.rows; r += g.row_step) {
        const Span sp = per_row(rows_span);
        const T* dyr = row_ptr<const T>(a.a, r);
        const T* yr = row_ptr<const T>(a.b, r);
        T* dxr = row_ptr<T>(a.out, r);
        RowCache<T, C ? C : 1> dyc, yc;
        float dot = 0.0f;
        auto first = [&](int, int64_t, const float(&dy)[P], const float(&y)[P]) {
#pragma unroll
            for (int k = 0; k < P; ++k) dot += dy[k] * y[k];
        };
        auto emit = [&](int, int64_t c, const float(&dy)[P], const float(&y)[P]) {
            float out[P];
#pragma unroll
            for (int k = 0; k < P; ++k) out[k] = y[k] * (dy[k] - dot);
            store_pack<T, P, CacheHint::normal, Exact>(dxr, c, sp.n, a.out.vec, out);
        };
        if constexpr (cached) {
            dyc.template load<Exact>(dyr, sp, a.a.vec);
            yc.template load<Exact>(yr, sp, a.b.vec);
            each2<Exact>(dyc, yc, sp, first);
        } else {
            stream_rows2<T>(dyr, a.a.vec, yr, a.b.vec, sp, first);
        }
        dot = group_sum1<G>(dot, smem);
        if constexpr (cached)
            each2<Exact>(dyc, yc, sp, emit);
        else
            stream_rows2<T>(dyr, a.a.vec, yr, a.b.vec, sp, emit);
    }
}

// The general body only: rows exact for the cached config take the kernels below.
template <typename T, int G, int C>
OPK_DEV void softmax_backward(const SoftmaxArgs& a) {
    __shared__ float smem[kReduceSlots];
    softmax_backward_rows<T, G, C, false>(a, smem);
}

// The exact-row body alone (kRowConfigsBwdExact, kRowConfigsBwdWide16 in kernel_params.h
// say where and by how much); without kExactPath (gfx900/906/908) the general body.
template <typename T, int G, int C>
OPK_DEV void softmax_backward_exact(const SoftmaxArgs& a) {
    __shared__ float smem[kReduceSlots];
    softmax_backward_rows<T, G, C, kExactPath<G, C>>(a, smem);
}

// The backward of rows of exactly blockDim.x packs on views of at most one outer dimension
// (kBwdOnePackThreads in kernel_params.h says where, with its measurements): one pack of dy and y
// a thread, one block a row, no row walk and no bounds. Register-lean so that it is built
// for 2048 resident threads (32 registers on NVIDIA), as Inductor's kernel runs, where the
// exact kernel holding two packs needs 40 (1536). The row's sum goes through group_sum's
// fixed-group stage (a warp reads the warps' partials one a lane and shuffles: 1.2 % faster
// at bf16 32768x4096 than each thread adding them all from shared memory, whose
// instructions Nsight Compute had at 1.4x Inductor's) on two alternating scratches, so one
// barrier a row.
template <typename T>
OPK_DEV void softmax_backward_one_pack(const SoftmaxArgs& a) {
    constexpr int P = Pack<T>::n;
    __shared__ float smem[2][kReduceSlots];
    const int64_t c = int64_t(threadIdx.x) * P;
    int parity = 0;
    for (int64_t r = blockIdx.x; r < a.rows; r += gridDim.x, parity ^= 1) {
        float dy[P], y[P], dot[1] = {0.0f};
        unpack<T, P>(load16<CacheHint::normal>(flat_row_ptr<const T>(a.a, r) + c), dy);
        unpack<T, P>(load16<CacheHint::normal>(flat_row_ptr<const T>(a.b, r) + c), y);
#pragma unroll
        for (int k = 0; k < P; ++k) dot[0] += dy[k] * y[k];
        // Fresh: the scratch was last read two rows ago, before the last row's barrier.
        group_sum<kBwdOnePackThreads, 1, true>(dot, smem[parity]);
        float out[P];
#pragma unroll
        for (int k = 0; k < P; ++k) out[k] = y[k] * (dy[k] - dot[0]);
        store16<CacheHint::normal>(flat_row_ptr<T>(a.out, r) + c, pack_of<T, P>(out));
    }
}

// The backward of 2-byte rows of exactly kBwdBlockRowThreads x kBwdBlockRowPacks packs on
// views of at most one outer dimension (kBwdBlockRowThreads in kernel_params.h says where,
// with its measurements): one block a row, and a block for every row, so no row walk and
// nothing kept from one row to the next. A thread's packs of dy and y are all loaded before
// any is used and stay raw across the barrier of the row's sum: unpacked for the dot
// product, then again for dx (refresh_pack keeps the compiler from holding the floats).
template <typename T>
OPK_DEV void softmax_backward_block_row(const SoftmaxArgs& a) {
    constexpr int P = Pack<T>::n, G = kBwdBlockRowThreads, C = kBwdBlockRowPacks;
    __shared__ float smem[kReduceSlots];
    const int64_t r = blockIdx.x;
    const T* dyr = flat_row_ptr<const T>(a.a, r);
    const T* yr = flat_row_ptr<const T>(a.b, r);
    uint4 dyraw[C], yraw[C];
#pragma unroll
    for (int i = 0; i < C; ++i) {
        const int c = (i * G + int(threadIdx.x)) * P;
        dyraw[i] = load16<CacheHint::normal>(dyr + c);
        yraw[i] = load16<CacheHint::normal>(yr + c);
    }
    float dot[1] = {0.0f};
#pragma unroll
    for (int i = 0; i < C; ++i) {
        float dy[P], y[P];
        unpack<T, P>(dyraw[i], dy);
        unpack<T, P>(yraw[i], y);
#pragma unroll
        for (int k = 0; k < P; ++k) dot[0] += dy[k] * y[k];
    }
    group_sum<G, 1, true>(dot, smem);  // the block's only reduction: no earlier reader
#pragma unroll
    for (int i = 0; i < C; ++i) {
        refresh_pack(dyraw[i]);
        refresh_pack(yraw[i]);
    }
    T* dxr = flat_row_ptr<T>(a.out, r);
#pragma unroll
    for (int i = 0; i < C; ++i) {
        float dy[P], y[P], out[P];
        unpack<T, P>(dyraw[i], dy);
        unpack<T, P>(yraw[i], y);
#pragma unroll
        for (int k = 0; k < P; ++k) out[k] = y[k] * (dy[k] - dot[0]);
        store16<CacheHint::normal>(dxr + (i * G + int(threadIdx.x)) * P, pack_of<T, P>(out));
    }
}

}  // namespace
}  // namespace opk

using namespace opk;

OPK_ROW_KERNELS(opk_softmax_fwd, SoftmaxArgs, softmax_forward, kRowConfigs)
OPK_ROW_KERNEL_AT_MOST(opk_softmax_fwd_wide_f32, SoftmaxArgs, softmax_forward_exact, float, kRowConfigsFwdWide, 1,
                       OPK_ROW_RESIDENT_THREADS, opk::kFwdWideMaxBlock)
OPK_ROW_KERNELS(opk_softmax_bwd, SoftmaxArgs, softmax_backward, kRowConfigsBwd)
OPK_FIXED_ROW_KERNELS(opk_softmax_fwd_fixed, SoftmaxArgs, softmax_forward_exact)
// The backward of exact rows: four packs a thread in fp32, two in 2-byte types, and 2-byte
// rows of kBwdWideMinPacks or more at eight (blocks of at most 512 threads: AMD's bounds
// say so, as the fp32 wide forwards').
OPK_ROW_KERNEL(opk_softmax_bwd_exact_f32, SoftmaxArgs, softmax_backward_exact, float, kRowConfigsBwdExact, 1,
               OPK_ROW_RESIDENT_THREADS)
// The 2-byte ones at 40 registers on NVIDIA, three 512-thread blocks an SM (no spills; at
// 32 they spilled 60 bytes). With the family's bounds they took 48, two blocks an SM, where
// Liger-Kernel's bf16 backward runs four at 32 registers (Nsight Compute, bf16 8192x8192:
// 46 % against 90 % achieved occupancy; bench/results/2026-11-28-s9/). fp32 spilled at 40.
#define OPK_SOFTMAX_BWD_EXACT_16(name, T)                                             \
    OPK_ROW_KERNEL_BOUNDED(name, SoftmaxArgs, softmax_backward_exact, T, kRowConfigsBwdExact, 1, \
                           OPK_BOUNDS_NV_REGS(opk::max_block(kRowConfigsBwdExact[1]), OPK_ROW_RESIDENT_THREADS, 40))
OPK_SOFTMAX_BWD_EXACT_16(opk_softmax_bwd_exact_f16, opk_f16)
OPK_SOFTMAX_BWD_EXACT_16(opk_softmax_bwd_exact_bf16, opk_bf16)
// Built for kBwdOnePackResident threads an SM in blocks of kBwdOnePackThreads (32 registers
// on NVIDIA, no spills). AMD asks for the row family's 1024 resident threads a CU instead:
// 2048 leave 32 VGPRs on gfx900/906, where the kernel spilled 4 (20 bytes of scratch).
#define OPK_SOFTMAX_BWD_ONE_PACK(name, T)                                                            \
    extern "C" __global__ void OPK_BOUNDS_RESIDENT_NV_AMD(opk::kBwdOnePackThreads, opk::kBwdOnePackResident, \
                                                          OPK_ROW_RESIDENT_THREADS)                         \
        name(const SoftmaxArgs a) {                                                                  \
        softmax_backward_one_pack<T>(a);                                                             \
    }
OPK_SOFTMAX_BWD_ONE_PACK(opk_softmax_bwd_one_pack_f16, opk_f16)
OPK_SOFTMAX_BWD_ONE_PACK(opk_softmax_bwd_one_pack_bf16, opk_bf16)
// Built for kBwdBlockRowResident threads an SM in blocks of kBwdBlockRowThreads (63
// registers on NVIDIA, no spills); AMD asks for the row family's resident threads.
#define OPK_SOFTMAX_BWD_BLOCK_ROW(name, T)                                                            \
    extern "C" __global__ void OPK_BOUNDS_RESIDENT_NV_AMD(opk::kBwdBlockRowThreads, opk::kBwdBlockRowResident, \
                                                          OPK_ROW_RESIDENT_THREADS)                         \
        name(const SoftmaxArgs a) {                                                                   \
        opk::assume_flat_rows(a);                                                                     \
        softmax_backward_block_row<T>(a);                                                             \
    }
OPK_SOFTMAX_BWD_BLOCK_ROW(opk_softmax_bwd_block_row_f16_g512x4, opk_f16)
OPK_SOFTMAX_BWD_BLOCK_ROW(opk_softmax_bwd_block_row_bf16_g512x4, opk_bf16)
OPK_ROW_KERNEL_AT_MOST(opk_softmax_bwd_wide_f16, SoftmaxArgs, softmax_backward_exact, opk_f16,
                       kRowConfigsBwdWide16, 1, OPK_ROW_RESIDENT_THREADS, opk::max_block(kRowConfigsBwdWide16[1]))
OPK_ROW_KERNEL_AT_MOST(opk_softmax_bwd_wide_bf16, SoftmaxArgs, softmax_backward_exact, opk_bf16,
                       kRowConfigsBwdWide16, 1, OPK_ROW_RESIDENT_THREADS, opk::max_block(kRowConfigsBwdWide16[1]))
