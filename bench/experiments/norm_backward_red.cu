// The bf16 rms_norm backward at rows of 16384 with no persistent grid: one block a row (or
// R rows), replaced as soon as it finishes, like softmax's wide backward, which moves the
// same bytes (read two rows, write one) at 0.976 of the copy bandwidth where the norm's
// persistent stash kernel reaches 0.89 (its call 0.86; docs/PERFORMANCE.md, thirtieth and
// thirty-first sessions). A persistent grid was kept because each block must leave its
// dweight column sums somewhere: one partial row (64 KB of fp32) a block, summed by the
// column-sum launch. Question (2026-12-02): may the blocks instead add their rows' dweight
// into a few partial rows by L2 reductions (red.global.add.v4.f32, sm_90), so that the row
// pass needs no persistence? Each line times one whole call (partials zeroed where the
// kernel reduces into them, the row kernel, the column sums into dweight) and checks it
// against the harness's reference plan (dx of the first and last four rows, dweight whole):
//
//   stash (library)      opk_rms_bwd_stash_bf16_s2_exact as the library launches it: the
//                        persistent ring kernel of today (norms.cu), a partial row a block
//   rows R, no dweight   the row pass alone, dweight not computed (an upper bound, not a
//                        result: its check line compares dx only in effect, as dweight's
//                        buffer keeps what the line before wrote)
//   rows R, red P        R rows a block (dweight summed over them in shared memory when
//                        R > 1), then added into partial row blockIdx % P by reductions;
//                        the partials zeroed by the column sum that reads them (so the
//                        next call finds them zero: the first call's memset is not timed;
//                        a library would zero its scratch once when it allocates it)
//   rows R, own partial  R rows a block, a partial row of its own (plain stores), no
//                        zeroing: the persistent grid's bookkeeping at rows / R groups
//   persistent           the one-row register kernel looping over rows (a grid of the
//                        blocks that fit), dweight sums in shared memory or none; "row
//                        called": its row a __noinline__ function, which removes the spill
//   reds only            the reductions of "rows 1, red P" with no row traffic, then the
//                        column sum that zeroes the partials behind it (as every "red"
//                        line's): about what the L2's reduction units alone take
//
// Not part of the build:
//
//   nvcc -std=c++17 -O3 -arch=sm_90 -Xptxas -v -o norm_backward_red \
//        bench/experiments/norm_backward_red.cu 2> ptxas.txt
//   ./norm_backward_red        # on the GPU machine (RED_LINES=all: every line;
//                                 RED_LINES=tail: the grid's last round)
#include "../../vendors/gpu/norms.cu"
#include "norm_backward_harness.cuh"

#include <cuda_bf16.h>

#include <cstdlib>
#include <cstring>

namespace red {

constexpr int kWidth = 16384;  // the row this experiment is about

enum Mode { kNoDweight, kReduce, kOwnPartial, kReducesOnly };

struct RowArgs {
    const uint4* x;
    const uint4* dy;
    const uint4* w;
    uint4* dx;
    const float* rstd;
    float* partial;
    int parts;  // kReduce: the partial rows the blocks share
    int64_t rows;
    // rms_bwd_persistent<..., Dynamic>: the rows handed out by a counter that only grows;
    // this launch's rows are base, base + 1, ... (each block also takes one past the last).
    unsigned long long* counter;
    unsigned long long base;
};

__device__ __forceinline__ void unpack(const uint4 v, float f[8]) {
    const unsigned u[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        f[2 * i] = __uint_as_float(u[i] << 16);
        f[2 * i + 1] = __uint_as_float(u[i] & 0xffff0000u);
    }
}

__device__ __forceinline__ unsigned pack2(float lo, float hi) {
    const __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<const unsigned*>(&h);
}

// A 16-byte shared-memory load the compiler may not move: hoisted out of the row loop
// as invariant, the weight's packs were held in registers and spilled.
__device__ __forceinline__ uint4 lds128_here(const uint4* p) {
    uint4 v;
    const unsigned a = unsigned(__cvta_generic_to_shared(p));
    asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "r"(a));
    return v;
}

// The block's sum of v, every thread gets it; slot alternates a row so that one barrier
// a row is enough (a warp may not overwrite a slot another warp is still reading).
template <int B>
__device__ __forceinline__ float block_sum(float v, float (*slots)[B / 32], int slot) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    if (threadIdx.x % 32 == 0) slots[slot][threadIdx.x / 32] = v;
    __syncthreads();
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < B / 32; ++i) s += slots[slot][i];
    return s;
}

// B threads of C packs (8 bf16 each) cover a row: thread t's packs are t, t + B, ...
// (coalesced). The weight is read again from L1 at each use (x and dy of the row take the
// registers; blocks of 512 and 1024 at 64 registers, two and one an SM, as the library's
// softmax backward of these rows; R > 1 spilled 216-468 bytes so, even with no dweight,
// and asks for one block an SM instead). R == 1: each pack's dweight terms go out as
// reductions as soon as they are made; R > 1: they are summed in the block's shared memory (thread-owned columns, no
// barrier) and go out after the last row.
template <int B, int C, int R, int M>
__global__ void __launch_bounds__(B, R > 1 ? 1 : B == 256 ? 2 : 1024 / B) rms_bwd_rows(const RowArgs a) {
    static_assert(B * C * 8 == kWidth, "one row is B x C packs");
    __shared__ float slots[2][B / 32];
    extern __shared__ float4 acc[];  // [C * B][2]: R > 1 only
    constexpr bool kSumInShared = R > 1 && M != kNoDweight;
    const int64_t prow = M == kOwnPartial ? int64_t(blockIdx.x) : int64_t(blockIdx.x % unsigned(a.parts ? a.parts : 1));
    float4* part = reinterpret_cast<float4*>(a.partial + prow * kWidth);
    auto emit = [&](int q, float4 v) {  // q: the float4 of the row
        if constexpr (M == kOwnPartial)
            part[q] = v;
        else
            atomicAdd(part + q, v);  // no result used: a RED
    };
    if constexpr (M == kReducesOnly) {
#pragma unroll
        for (int c = 0; c < C; ++c)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const float f = 1.0f / float(1 + threadIdx.x + c + h);
                emit((threadIdx.x + c * B) * 2 + h, make_float4(f, f, f, f));
            }
        return;
    }
    const int64_t row0 = int64_t(blockIdx.x) * R;
#pragma unroll 1  // unrolled, R = 2 and 4 held two and four rows' packs and spilled
    for (int r = 0; r < R; ++r) {
        const int64_t row = row0 + r;
        if (row >= a.rows) break;
        const uint4* xr = a.x + row * (kWidth / 8);
        const uint4* gr = a.dy + row * (kWidth / 8);
        uint4 xv[C], gv[C];
#pragma unroll
        for (int c = 0; c < C; ++c) {
            xv[c] = xr[threadIdx.x + c * B];
            gv[c] = gr[threadIdx.x + c * B];
        }
        const float rs = a.rstd[row];
        // The weight pointer laundered each row: its loads are loop-invariant, and hoisted
        // out of the row loop they held the weight's packs (32-64 registers) and spilled.
        const uint4* wrow = a.w;
        asm volatile("" : "+l"(wrow));
        float dot = 0.0f;
#pragma unroll
        for (int c = 0; c < C; ++c) {
            float xf[8], gf[8], wf[8];
            unpack(xv[c], xf);
            unpack(gv[c], gf);
            unpack(__ldg(wrow + threadIdx.x + c * B), wf);
#pragma unroll
            for (int i = 0; i < 8; ++i) dot += wf[i] * gf[i] * xf[i];
        }
        dot = block_sum<B>(dot, slots, r & 1);
        // Raw across the barrier, unpacked again below (the library's softmax backward
        // does the same: otherwise the compiler holds the floats).
#pragma unroll
        for (int c = 0; c < C; ++c) {
            opk::refresh_pack(xv[c]);
            opk::refresh_pack(gv[c]);
        }
        const float k = rs * rs * rs * dot * (1.0f / kWidth);
        uint4* dxr = a.dx + row * (kWidth / 8);
#pragma unroll
        for (int c = 0; c < C; ++c) {
            float xf[8], gf[8], wf[8], o[8];
            unpack(xv[c], xf);
            unpack(gv[c], gf);
            unpack(__ldg(wrow + threadIdx.x + c * B), wf);
#pragma unroll
            for (int i = 0; i < 8; ++i) o[i] = rs * wf[i] * gf[i] - xf[i] * k;
            dxr[threadIdx.x + c * B] = make_uint4(pack2(o[0], o[1]), pack2(o[2], o[3]), pack2(o[4], o[5]),
                                                  pack2(o[6], o[7]));
            if constexpr (M == kNoDweight) continue;
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int q = (threadIdx.x + c * B) * 2 + h;
                float4 d = make_float4(gf[4 * h] * xf[4 * h] * rs, gf[4 * h + 1] * xf[4 * h + 1] * rs,
                                       gf[4 * h + 2] * xf[4 * h + 2] * rs, gf[4 * h + 3] * xf[4 * h + 3] * rs);
                if constexpr (kSumInShared) {
                    if (r) {
                        const float4 s = acc[q];
                        d.x += s.x;
                        d.y += s.y;
                        d.z += s.z;
                        d.w += s.w;
                    }
                    acc[q] = d;
                } else {
                    emit(q, d);
                }
            }
        }
    }
    if constexpr (kSumInShared) {
#pragma unroll
        for (int c = 0; c < C; ++c)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int q = (threadIdx.x + c * B) * 2 + h;
                emit(q, acc[q]);
            }
    }
}

// The persistent form of the B x C one-row kernel: a grid of the blocks that fit at once
// (two an SM at 256 x 8), each taking rows blockIdx.x, + gridDim.x, ... with the same
// per-row code. Sums: 0 none (is persistence itself slower than a block a row?), 1 the
// dweight sums in the block's shared memory (thread-owned columns, a 16-byte load and
// store a half pack a row, no barrier), written as the block's own partial row at the end.
// The weight's packs sit in shared memory, each thread's own (no barrier): held in
// registers or read from L1 in the loop (ptxas hoisted those loads out of it, as
// invariant), the weight spilled the kernel 92-568 bytes.
// Its per-row code repeats rms_bwd_rows' on purpose: how the weight is read and where the
// dweight terms go are what these kernels vary, and ptxas's spills followed those forms.
// Call: the row's code a function of its own (__noinline__), called once a row. Inlined
// into the row loop, the one-row body that fits 128 registers with no spill as a kernel of
// its own spilled 72-568 bytes (every variant tried on 2026-12-02: 32-bit row offsets, no
// refresh, the weight from L1 or a laundered shared pointer); called, it takes 108-115
// registers and spills nothing (the kernel's 32-byte stack frame is PersistentRow, whose
// address the call takes), so persistence is measured without the spill. One more
// difference: through the call, x, dy, dx and rstd are read and written with generic
// loads and stores (ld / st, not ld.global / st.global): the pointers reach the row's code
// through memory.
struct PersistentRow {
    const uint4* x;
    const uint4* dy;
    uint4* dx;
    const float* rstd;
};

// The dweight terms of pack c of a row, added where a kernel keeps its sums: nowhere
// (NoSums), the block's shared row (SharedSums: thread-owned columns, a 16-byte load and store
// a half pack), or the thread's registers (rms_bwd_register_sums' lambda).
struct NoSums {
    __device__ void operator()(int, const float (&)[8], const float (&)[8], float) const {}
};

template <int B>
struct SharedSums {
    float4* acc;  // [C * B][2]
    __device__ __forceinline__ void operator()(int c, const float (&xf)[8], const float (&gf)[8], float rs) const {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            float4& s = acc[(threadIdx.x + c * B) * 2 + h];
            float4 v = s;
            v.x += gf[4 * h] * xf[4 * h] * rs;
            v.y += gf[4 * h + 1] * xf[4 * h + 1] * rs;
            v.z += gf[4 * h + 2] * xf[4 * h + 2] * rs;
            v.w += gf[4 * h + 3] * xf[4 * h + 3] * rs;
            s = v;
        }
    }
};

template <int B, int C, class Add>
__device__ __forceinline__ void persistent_row(const PersistentRow& a, unsigned row, int parity, const uint4* wsh,
                                               float (*slots)[B / 32], const Add& add) {
    const uint4* xr = a.x + size_t(row) * (kWidth / 8);
    const uint4* gr = a.dy + size_t(row) * (kWidth / 8);
    uint4 xv[C], gv[C];
#pragma unroll
    for (int c = 0; c < C; ++c) {
        xv[c] = xr[threadIdx.x + c * B];
        gv[c] = gr[threadIdx.x + c * B];
    }
    const float rs = a.rstd[row];
    float dot = 0.0f;
#pragma unroll
    for (int c = 0; c < C; ++c) {
        float xf[8], gf[8], wf[8];
        unpack(xv[c], xf);
        unpack(gv[c], gf);
        unpack(lds128_here(wsh + threadIdx.x + c * B), wf);
#pragma unroll
        for (int i = 0; i < 8; ++i) dot += wf[i] * gf[i] * xf[i];
    }
    dot = block_sum<B>(dot, slots, parity);
#pragma unroll
    for (int c = 0; c < C; ++c) {
        opk::refresh_pack(xv[c]);
        opk::refresh_pack(gv[c]);
    }
    const float k = rs * rs * rs * dot * (1.0f / kWidth);
    uint4* dxr = a.dx + size_t(row) * (kWidth / 8);
#pragma unroll
    for (int c = 0; c < C; ++c) {
        float xf[8], gf[8], wf[8], o[8];
        unpack(xv[c], xf);
        unpack(gv[c], gf);
        unpack(lds128_here(wsh + threadIdx.x + c * B), wf);
#pragma unroll
        for (int i = 0; i < 8; ++i) o[i] = rs * wf[i] * gf[i] - xf[i] * k;
        dxr[threadIdx.x + c * B] =
            make_uint4(pack2(o[0], o[1]), pack2(o[2], o[3]), pack2(o[4], o[5]), pack2(o[6], o[7]));
        add(c, xf, gf, rs);
    }
}

// Sums: the row's terms added to the block's shared row (acc), else none.
template <int B, int C, int Sums>
__device__ __forceinline__ void persistent_row_shared(const PersistentRow& a, unsigned row, int parity,
                                                      const uint4* wsh, float4* acc, float (*slots)[B / 32]) {
    if constexpr (Sums)
        persistent_row<B, C>(a, row, parity, wsh, slots, SharedSums<B>{acc});
    else
        persistent_row<B, C>(a, row, parity, wsh, slots, NoSums{});
}

// The rows a block takes from a.counter (rms_bwd_persistent<..., Dynamic>): f(row, parity)
// for each. next[p] is the row the block takes after the one it is on; thread 0 asks for it
// before f, whose row has a barrier, and writes a slot one row after the others last read
// it, that barrier between. on_next(row): thread 0's, with each next row as it gets it.
struct NoNext {
    __device__ void operator()(unsigned) const {}
};

template <class F, class N = NoNext>
__device__ __forceinline__ void for_each_counted_row(const RowArgs& a, F f, N on_next = {}) {
    __shared__ unsigned next[2];
    if (threadIdx.x == 0) next[0] = unsigned(atomicAdd(a.counter, 1ull) - a.base);
    __syncthreads();
    int parity = 0;
    for (unsigned row = next[0]; row < unsigned(a.rows); row = next[parity]) {
        if (threadIdx.x == 0) {
            const unsigned n = unsigned(atomicAdd(a.counter, 1ull) - a.base);
            next[parity ^ 1] = n;
            on_next(n);
        }
        f(row, parity);
        parity ^= 1;
    }
}

template <int B, int C, int Sums>
__device__ __noinline__ void persistent_row_call(const PersistentRow& a, unsigned row, int parity, const uint4* wsh,
                                                 float4* acc, float (*slots)[B / 32]) {
    persistent_row_shared<B, C, Sums>(a, row, parity, wsh, acc, slots);
}

// Dynamic (with Call): each block takes its next row from a.counter instead of striding by
// the grid, thread 0 asking for it before the row's own barrier (inside the call), so a
// block that runs ahead takes more rows, as blocks of a one-row grid do.
template <int B, int C, int Sums, bool Call, bool Dynamic = false>
__global__ void __launch_bounds__(B, B == 256 ? 2 : 1024 / B) rms_bwd_persistent(const RowArgs a) {
    static_assert(!Dynamic || Call, "the dynamic rows are measured on the spill-free form");
    static_assert(B * C * 8 == kWidth, "one row is B x C packs");
    __shared__ float slots[2][B / 32];
    extern __shared__ uint4 dyn[];  // the weight's C * B packs, then acc
    uint4* wsh = dyn;
    float4* acc = reinterpret_cast<float4*>(dyn + C * B);  // [C * B][2]: Sums only
#pragma unroll
    for (int c = 0; c < C; ++c) wsh[threadIdx.x + c * B] = a.w[threadIdx.x + c * B];
    // Without a barrier here nvcc kept the stored packs in registers for the whole loop
    // (nothing else writes them), which is the spill the shared copy is meant to avoid.
    __syncthreads();
    if constexpr (Sums) {
#pragma unroll
        for (int c = 0; c < C; ++c)
#pragma unroll
            for (int h = 0; h < 2; ++h) acc[(threadIdx.x + c * B) * 2 + h] = make_float4(0.f, 0.f, 0.f, 0.f);
    }
    const PersistentRow r{a.x, a.dy, a.dx, a.rstd};
    int parity = 0;
    if constexpr (Dynamic) {
        for_each_counted_row(a, [&](unsigned row, int p) { persistent_row_call<B, C, Sums>(r, row, p, wsh, acc, slots); });
    } else {
        for (unsigned row = blockIdx.x; row < unsigned(a.rows); row += gridDim.x, parity ^= 1) {
            if constexpr (Call)
                persistent_row_call<B, C, Sums>(r, row, parity, wsh, acc, slots);
            else
                persistent_row_shared<B, C, Sums>(r, row, parity, wsh, acc, slots);
        }
    }
    if constexpr (Sums) {
        float4* part = reinterpret_cast<float4*>(a.partial + int64_t(blockIdx.x) * kWidth);
#pragma unroll
        for (int c = 0; c < C; ++c)
#pragma unroll
            for (int h = 0; h < 2; ++h) part[(threadIdx.x + c * B) * 2 + h] = acc[(threadIdx.x + c * B) * 2 + h];
    }
}

// Dynamic rows with the dweight sums in registers: one block an SM (B x C at 128 registers a
// thread for B = 512), each thread's C packs of sums held across its rows (32 floats at
// 512 x 4), so that no row pays the shared-memory load and store of the sums (16 µs of
// 205 in the called kernel's profile, 2026-12-02). Half the bytes in flight an SM of two
// 256 x 8 blocks, and nothing in flight while the block reduces a row: what that costs is
// the question. The row inlined (the sums cannot cross a call); ptxas's spills are printed.
// Prefetch: thread 0 asks L2 for the next row's x and dy (cp.async.bulk.prefetch) as soon as
// the counter gives it, so that the row's barrier and reduction have loads in flight.
template <int B, int C, int Sums, bool Prefetch = false>
__global__ void __launch_bounds__(B, 1) rms_bwd_register_sums(const RowArgs a) {
    static_assert(B * C * 8 == kWidth, "one row is B x C packs");
    __shared__ float slots[2][B / 32];
    extern __shared__ uint4 dyn[];  // the weight's C * B packs
    uint4* wsh = dyn;
#pragma unroll
    for (int c = 0; c < C; ++c) wsh[threadIdx.x + c * B] = a.w[threadIdx.x + c * B];
    __syncthreads();
    float acc[C][8];
#pragma unroll
    for (int c = 0; c < C; ++c)
#pragma unroll
        for (int i = 0; i < 8; ++i) acc[c][i] = 0.0f;
    const PersistentRow r{a.x, a.dy, a.dx, a.rstd};
    for_each_counted_row(a, [&](unsigned row, int parity) {
        if constexpr (Sums)
            persistent_row<B, C>(r, row, parity, wsh, slots,
                                 [&](int c, const float (&xf)[8], const float (&gf)[8], float rs) {
#pragma unroll
                                     for (int i = 0; i < 8; ++i) acc[c][i] += gf[i] * xf[i] * rs;
                                 });
        else
            persistent_row<B, C>(r, row, parity, wsh, slots, NoSums{});
    }, [&](unsigned n) {
        if (Prefetch && n < unsigned(a.rows)) {
            prefetch_l2(a.x + size_t(n) * (kWidth / 8), kWidth * 2);
            prefetch_l2(a.dy + size_t(n) * (kWidth / 8), kWidth * 2);
        }
    });
    if constexpr (Sums) {
        float4* part = reinterpret_cast<float4*>(a.partial + int64_t(blockIdx.x) * kWidth);
#pragma unroll
        for (int c = 0; c < C; ++c)
#pragma unroll
            for (int h = 0; h < 2; ++h)
                part[(threadIdx.x + c * B) * 2 + h] =
                    make_float4(acc[c][4 * h], acc[c][4 * h + 1], acc[c][4 * h + 2], acc[c][4 * h + 3]);
    }
}

// The library's quad column sum (norms.cu column_sum<T, 4>) plus the partials set back to
// zero behind the reads (Zero), for the next call's reductions.
constexpr int kSumColumns = 32, kSumThreads = 512;
template <bool Zero>
__global__ void __launch_bounds__(kSumThreads) column_sum(const float* partial_c, int64_t groups, opk_bf16* out) {
    constexpr int S = kSumThreads / kSumColumns;
    __shared__ float4 part[S][kSumColumns];
    float* partial = const_cast<float*>(partial_c);
    const int col = int(threadIdx.x) % kSumColumns, slice = int(threadIdx.x) / kSumColumns;
    const int64_t j = (int64_t(blockIdx.x) * kSumColumns + col) * 4;
    float4 s = make_float4(0.f, 0.f, 0.f, 0.f);
    for (int64_t g = slice; g < groups; g += S) {
        float4* q = reinterpret_cast<float4*>(partial + g * kWidth + j);
        const float4 v = *q;
        if (Zero) *q = make_float4(0.f, 0.f, 0.f, 0.f);
        s.x += v.x;
        s.y += v.y;
        s.z += v.z;
        s.w += v.w;
    }
    part[slice][col] = s;
    __syncthreads();
    if (slice == 0) {
        float4 t = make_float4(0.f, 0.f, 0.f, 0.f);
        for (int k = 0; k < S; ++k) {
            t.x += part[k][col].x;
            t.y += part[k][col].y;
            t.z += part[k][col].z;
            t.w += part[k][col].w;
        }
        out[j] = __float2bfloat16_rn(t.x);
        out[j + 1] = __float2bfloat16_rn(t.y);
        out[j + 2] = __float2bfloat16_rn(t.z);
        out[j + 3] = __float2bfloat16_rn(t.w);
    }
}

RowArgs row_args(const Shape& s, int parts) {
    RowArgs a{};
    a.x = static_cast<const uint4*>(s.b.x);
    a.dy = static_cast<const uint4*>(s.b.dy);
    a.w = static_cast<const uint4*>(s.b.w);
    a.dx = static_cast<uint4*>(s.b.dx);
    a.rstd = s.b.stats;
    a.partial = s.b.partial;
    a.parts = parts;
    a.rows = s.rows;
    return a;
}

// One line: mode M at B x C, R rows a block; parts: kReduce's partial rows.
template <int B, int C, int R, int M>
void run_rows(Shape& s, int parts = 0) {
    auto k = rms_bwd_rows<B, C, R, M>;
    const size_t smem = R > 1 && M != kNoDweight ? size_t(kWidth) * 4 : 0;
    if (smem) cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
    cudaFuncAttributes attr{};
    cudaFuncGetAttributes(&attr, k);
    int per_sm = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, B, smem);
    const int64_t grid = (s.rows + R - 1) / R;
    const int64_t groups = M == kOwnPartial ? grid : parts;
    if (size_t(groups) * kWidth * 4 > s.b.partial_bytes) {
        std::printf("partial buffer too small for %lld groups\n", (long long)groups);
        return;
    }
    cudaMemset(s.b.partial, 0, size_t(groups) * kWidth * 4);  // once: the column sum zeroes behind itself
    cudaMemset(s.b.dx, 0, size_t(s.rows) * kWidth * 2);
    const RowArgs a = row_args(s, parts);
    const unsigned col_grid = kWidth / (4 * kSumColumns);
    const float ms = median_ms([&] {
        k<<<unsigned(grid), B, smem>>>(a);
        if (M != kNoDweight)
            column_sum<M != kOwnPartial><<<col_grid, kSumThreads>>>(s.b.partial, groups, static_cast<opk_bf16*>(s.b.dw));
    });
    static const char* names[] = {"no dweight", "red", "own partial", "reds only"};
    char tag[96];
    std::snprintf(tag, sizeof tag, "rows B%d C%d R%d %s P%lld %dreg%s %dblk/SM", B, C, R, names[M], (long long)groups,
                  attr.numRegs, attr.localSizeBytes ? " SPILL" : "", per_sm);
    print_line<opk_bf16>(s, tag, ms, M != kReducesOnly);
}

// One line of a kernel on a grid of the blocks that fit at once (occupancy), with its
// column sums when it keeps dweight sums (partial row blockIdx.x). Dynamic: the rows from a
// counter that is never reset (each launch's base is what the launches before took: rows +
// grid each). local_is_spill: whether ptxas's local bytes are a spill (the called form's are
// its call's arguments). zero_each: the counter set to zero by a cudaMemsetAsync before each
// launch instead (base 0), as a library call with the counter in its stream-ordered scratch
// would have to: what that memset adds to the call is in the line's time.
void run_grid(Shape& s, void (*k)(RowArgs), int threads, size_t smem, bool sums, bool dynamic, const char* what,
              bool local_is_spill = true, bool zero_each = false) {
    static unsigned long long* counter = nullptr;
    static unsigned long long taken = 0;
    if (dynamic && !counter) {
        cudaMalloc(&counter, sizeof *counter);
        cudaMemset(counter, 0, sizeof *counter);
    }
    cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
    cudaFuncAttributes attr{};
    cudaFuncGetAttributes(&attr, k);
    int per_sm = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, threads, smem);
    const int64_t grid = std::min<int64_t>(s.rows, int64_t(sms) * per_sm);
    cudaMemset(s.b.dx, 0, size_t(s.rows) * kWidth * 2);
    RowArgs a = row_args(s, 0);
    a.counter = counter;
    const unsigned col_grid = kWidth / (4 * kSumColumns);
    const float ms = median_ms([&] {
        if (zero_each) {
            cudaMemsetAsync(counter, 0, sizeof *counter);
            a.base = 0;
        } else {
            a.base = taken;
            if (dynamic) taken += static_cast<unsigned long long>(s.rows + grid);
        }
        k<<<unsigned(grid), threads, smem>>>(a);
        if (sums) column_sum<false><<<col_grid, kSumThreads>>>(s.b.partial, grid, static_cast<opk_bf16*>(s.b.dw));
    });
    if (zero_each) taken = static_cast<unsigned long long>(s.rows + grid);  // where the last launch left it
    char tag[128];
    std::snprintf(tag, sizeof tag, "%s%s %s %dreg%s %dblk/SM", what, zero_each ? " memset" : "",
                  sums ? "shared sums" : "no dweight", attr.numRegs,
                  attr.localSizeBytes ? (local_is_spill ? " SPILL" : " local") : "", per_sm);
    print_line<opk_bf16>(s, tag, ms, sums);
}

template <int B, int C, int Sums, bool Call = false, bool Dynamic = false>
void run_persistent(Shape& s) {
    char what[64];
    std::snprintf(what, sizeof what, "persistent%s%s B%d C%d", Call ? " (row called)" : "",
                  Dynamic ? " dynamic rows" : "", B, C);
    run_grid(s, rms_bwd_persistent<B, C, Sums, Call, Dynamic>, B, size_t(kWidth) * 2 + (Sums ? size_t(kWidth) * 4 : 0),
             Sums != 0, Dynamic, what, !Call);
}

// rms_bwd_register_sums: "shared sums" in its line means its partial row (the sums are in
// registers until the block's last row).
template <int B, int C, int Sums, bool Prefetch = false>
void run_register_sums(Shape& s, bool zero_each = false) {
    char what[64];
    std::snprintf(what, sizeof what, "register sums, dynamic rows%s B%d C%d", Prefetch ? ", next row to L2" : "", B, C);
    run_grid(s, rms_bwd_register_sums<B, C, Sums, Prefetch>, B, size_t(kWidth) * 2, Sums != 0, true, what, true,
             zero_each);
}

// The library's kernel for this shape as its host launches it (stash_backward_plan): a
// block an SM, two ring slots of x and dy plus the fp32 dweight sums after them.
struct LibraryLaunch {
    void (*kernel)(NormArgs);
    int per_sm;
    int64_t grid;
    unsigned threads;
    size_t smem;
};

LibraryLaunch library_launch(const Shape& s) {
    LibraryLaunch l{opk_rms_bwd_stash_bf16_s2_exact, 0, 0, unsigned(opk::kNormStashConfigs[2].threads),
                    size_t(opk::kNormStashSlots) * 2 * kWidth * 2 + size_t(kWidth) * 4};
    cudaFuncSetAttribute(l.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(l.smem));
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&l.per_sm, l.kernel, int(l.threads), l.smem);
    l.grid = std::min<int64_t>(s.rows, int64_t(sms) * l.per_sm);
    return l;
}

float time_library(const Shape& s, const LibraryLaunch& l) {
    return time_call(s, l.kernel, l.grid, l.threads, l.smem, false, opk::kNormStashSlots);
}

void run_library(Shape& s) {
    const LibraryLaunch l = library_launch(s);
    const float ms = time_library(s, l);
    char tag[96];
    std::snprintf(tag, sizeof tag, "stash (library) %dblk/SM", l.per_sm);
    print_line<opk_bf16>(s, tag, ms, true);
}

// The library's kernel with no dweight wanted (want_dweight 0: the ring and the row pass,
// no column sums kept or summed): what its dweight costs it.
void run_library_no_dweight(Shape& s) {
    const LibraryLaunch l = library_launch(s);
    NormArgs a = args(s, l.grid, false, opk::kNormStashSlots);
    a.want_dweight = 0;
    const float ms = median_ms([&] { l.kernel<<<unsigned(l.grid), l.threads, l.smem>>>(a); });
    print_line<opk_bf16>(s, "stash (library), no dweight", ms, false);
}

// The persistent grid's last round (RED_LINES=tail): the library's kernel and the block-a-row
// kernel at row counts around whole rounds of the grid (132 blocks on the H200: 4092 rows
// are 31 rows a block, 4096 rows leave 4 blocks a 32nd, 4224 are 32 each). If the last,
// partly filled round costs a whole round, 4096 rows take about as long as 4224. dx and
// dweight not checked (the reference is the 8192-row shape's).
void tail_lines(const Shape& full) {
    for (int64_t rows : {int64_t(3960), int64_t(4092), int64_t(4096), int64_t(4224), int64_t(7920), int64_t(8184),
                         int64_t(8192)}) {
        Shape s = full;
        s.rows = rows;
        s.bytes = 3.0 * double(rows) * double(s.n) * double(s.esize);
        const LibraryLaunch l = library_launch(s);
        const float ms = time_library(s, l);
        char tag[96];
        std::snprintf(tag, sizeof tag, "tail: stash (library), grid %lld", (long long)l.grid);
        print_line<opk_bf16>(s, tag, ms, false);
        auto r = rms_bwd_rows<256, 8, 1, kNoDweight>;
        const RowArgs a = row_args(s, 0);
        const float rms = median_ms([&] { r<<<unsigned(rows), 256>>>(a); });
        print_line<opk_bf16>(s, "tail: rows B256 C8 R1 no dweight", rms, false);
    }
}

// RED_LINES unset: the questions of 2026-12-02's second look, persistence measured without
// the spill (the row called) and with dynamic rows; all: every line of the forty-fifth
// session's calls too; tail: tail_lines alone. Each set runs twice (two passes).
void sweep(int op, Shape& s) {
    if (op != kRms || s.n != kWidth) return;
    const char* lines = std::getenv("RED_LINES");
    const bool all = lines && std::strcmp(lines, "all") == 0;
    if (lines && !all && std::strcmp(lines, "tail") != 0) {
        std::fprintf(stderr, "RED_LINES=%s: unset, all or tail\n", lines);
        std::exit(2);
    }
    if (lines && std::strcmp(lines, "tail") == 0) {
        for (int pass = 0; pass < 2; ++pass) tail_lines(s);
        return;
    }
    for (int round = 0; round < 2; ++round) {
        run_library(s);
        run_library_no_dweight(s);
        run_rows<256, 8, 1, kNoDweight>(s);
        run_persistent<256, 8, 0>(s);
        run_persistent<256, 8, 1>(s);
        run_persistent<256, 8, 0, true>(s);
        run_persistent<256, 8, 1, true>(s);
        run_persistent<256, 8, 0, true, true>(s);
        run_persistent<256, 8, 1, true, true>(s);
        run_register_sums<512, 4, 0>(s);
        run_register_sums<512, 4, 1>(s);
        run_register_sums<1024, 2, 0>(s);
        run_register_sums<1024, 2, 1>(s);
        run_register_sums<512, 4, 0, true>(s);
        run_register_sums<512, 4, 1, true>(s);
        run_register_sums<512, 4, 1>(s, true);
        run_register_sums<512, 4, 1, true>(s, true);
        if (!all) continue;
        run_rows<512, 4, 1, kNoDweight>(s);
        run_rows<1024, 2, 1, kNoDweight>(s);
        run_persistent<512, 4, 0>(s);
        run_persistent<512, 4, 1>(s);
        for (int parts : {66, 132, 264, 528}) run_rows<256, 8, 1, kReduce>(s, parts);
        for (int parts : {132, 264}) run_rows<512, 4, 1, kReduce>(s, parts);
        for (int parts : {132, 264}) run_rows<256, 8, 1, kReducesOnly>(s, parts);
        for (int parts : {132, 264}) {
            run_rows<512, 4, 2, kReduce>(s, parts);
            run_rows<512, 4, 4, kReduce>(s, parts);
            run_rows<256, 8, 4, kReduce>(s, parts);
            run_rows<256, 8, 16, kReduce>(s, parts);
        }
        run_rows<512, 4, 8, kOwnPartial>(s);
        run_rows<512, 4, 16, kOwnPartial>(s);
        run_rows<512, 4, 32, kOwnPartial>(s);
        run_rows<256, 8, 4, kOwnPartial>(s);
        run_rows<256, 8, 16, kOwnPartial>(s);
        run_rows<256, 8, 32, kOwnPartial>(s);
    }
}

}  // namespace red

int main() {
    return experiment_main([](const Buffers& b, int64_t elems) { all_shapes<opk_bf16>(b, elems, true, red::sweep); });
}
