// Cross-entropy over logits [rows, V] with ignore_index, label smoothing and the three
// reductions. The forward reads each row once when it fits the group's registers (twice
// when it streams), computes lse with the online softmax, and can write the gradient for
// an upstream gradient of 1 over the logits in place.
//
// A target outside [0, V) that is not ignore_index is never dereferenced: that row's loss
// is NaN and its gradient row is NaN (documented in docs/cuda-vendor.md), so the mistake
// shows up in the training loss instead of as a silent wrong answer.
#include "rows.cuh"
#include "stash_rows.cuh"

namespace opk {
namespace {

enum RowKind { kValid, kIgnored, kBad };

OPK_DEV RowKind row_kind(int64_t t, int64_t ignore_index, int64_t V) {
    if (t == ignore_index) return kIgnored;
    return t < 0 || t >= V ? kBad : kValid;
}

// Fills a gradient row with one value (0 for ignored rows, NaN for bad targets).
template <typename T>
OPK_DEV void fill_row(T* row, const Span& sp, bool vec, float value) {
    constexpr int P = Pack<T>::n;
    float v[P];
#pragma unroll
    for (int k = 0; k < P; ++k) v[k] = value;
    // One pack per iteration with the word-built packs (AMD): unrolled, the loop's extra
    // registers spilled in the cached kernels (measured with those packs on sm_90).
    OPK_AMD_NO_UNROLL
    for (int64_t c = sp.lane; c < sp.packs; c += sp.size) store_pack<T, P>(row, c, sp.n, vec, v);
}

// The gradient of one pack without the target's term: (softmax - smooth) * scale, with
// base = lse.
template <typename T, int P>
OPK_DEV void grad_pack(float (&v)[P], float base, float smooth, float scale) {
#pragma unroll
    for (int k = 0; k < P; ++k) v[k] = (exp_minus<T>(v[k], base) - smooth) * scale;
}

// The target's element lies in one pack of the row, so the thread that owns that pack
// rewrites that element after writing its packs, instead of every element being compared
// with the target: the per-element test was the largest part of the ALU work of the
// gradient pass, and a per-pack test made nvcc index the pack dynamically, in local
// memory. A thread of a group holds packs lane, lane + size, ... in both the cached and
// the streamed layouts (rows.cuh). The owner reads x[t] only when it needs it (in place
// is safe: no other thread writes its pack), so nothing extra stays live across the
// row's statistics: on AMD targets with 64 VGPRs that spilled.
template <typename T>
OPK_DEV bool owns_target(const Span& sp, bool valid, int64_t t) {
    return valid && (t / Pack<T>::n) % sp.size == sp.lane;
}

// sum += the elements of pack c of a row of n that lie inside the row.
template <int P>
OPK_DEV void add_pack_sum(float& sum, int64_t c, int64_t n, const float (&v)[P]) {
#if OPK_PACK_COUNTS
    const int m = pack_count<P>(c * P, n);
#pragma unroll
    for (int k = 0; k < P; ++k)
        if (k < m) sum += v[k];
#else
#pragma unroll
    for (int k = 0; k < P; ++k)
        if (c * P + k < n) sum += v[k];
#endif
}

// The group's (max, sum of exp(x - max), sum of x) from each thread's own: one reduction
// for the max, one for both sums. m becomes the group's max, sums its sums.
template <int G>
OPK_DEV void group_row_stats(float& m, float (&sums)[2], float* smem) {
    const float gm = group_max<G>(m, smem);
    sums[0] *= exp_shifted(m, gm);
    group_sum<G, 2>(sums, smem);
    m = gm;
}

// Row statistics: max m, sum of exp(x - m) s and sum of x (for label smoothing). Cached
// rows stay in `x`; streamed rows are folded with the online recurrence, their lines
// kept in L2 when the gradient pass will read them again (reread).
template <typename T, int G, int C>
OPK_DEV void row_stats(const T* xr, const Span& sp, bool vec, bool reread, bool want_sx,
                       RowCache<T, C ? C : 1>& x, float* smem, float& m, float& s, float& sx) {
    constexpr int P = Pack<T>::n;
    m = -INFINITY;
    float sums[2] = {0.0f, 0.0f};  // sum of exp, sum of x
    // The sum of x serves label smoothing only (want_sx: a branch uniform over the grid).
    auto add_x = [&](int64_t c, const float(&v)[P]) {
        if (want_sx) add_pack_sum<P>(sums[1], c, sp.n, v);
    };
    if constexpr (C > 0) {
        x.load(xr, sp, vec, -INFINITY);
        x.each(sp, [&](int, int64_t c, const float(&v)[P]) {
#pragma unroll
            for (int k = 0; k < P; ++k) m = fmaxf(m, v[k]);
            add_x(c, v);
        });
        const float base = exp_base(m);
        x.each(sp, [&](int, int64_t, const float(&v)[P]) {
#pragma unroll
            for (int k = 0; k < P; ++k) sums[0] += exp_minus<T>(v[k], base);
        });
    } else {
        auto fold = [&](int, int64_t c, const float(&v)[P]) {
            online_add<T, P>(m, sums[0], v);
            add_x(c, v);
        };
        if (reread)
            stream_row<T, CacheHint::keep>(xr, sp, vec, -INFINITY, fold);
        else
            stream_row<T>(xr, sp, vec, -INFINITY, fold);
    }
    group_row_stats<G>(m, sums, smem);
    s = sums[0];
    sx = sums[1];
}

// Writes the gradient row: cached packs from registers, streamed ones read again.
// owns: this thread holds the target's pack (owns_target), whose logit is xt.
template <typename T, bool kCached, class Cache>
OPK_DEV void write_grad(const T* xr, bool xvec, T* gr, bool gvec, const Span& sp, const Cache& x, float lse,
                        bool owns, float xt, int64_t t, float smooth, float hit, float scale) {
    constexpr int P = Pack<T>::n;
    // lse itself, not exp_base(lse): a row that is all -inf has lse = -inf, and its
    // softmax, exp(-inf - -inf), is NaN, as in PyTorch and the CPU default.
    const float base = lse;
    // The target's gradient: (softmax - smooth) * scale - hit * scale.
    const float target_grad = (exp_minus<T>(xt, base) - smooth) * scale - hit * scale;
    auto emit = [&](int, int64_t c, const float(&v)[P]) {
        float u[P];
#pragma unroll
        for (int k = 0; k < P; ++k) u[k] = v[k];
        grad_pack<T, P>(u, base, smooth, scale);
        store_pack<T, P, kStoreHint<kCached>>(gr, c, sp.n, gvec, u);
    };
    if constexpr (kCached)
        x.each(sp, emit);
    else
        stream_row_back<T>(xr, sp, xvec, -INFINITY, emit);
    if (owns) gr[t] = from_f32<T>(target_grad);  // after the pack store: this store wins
}

// A valid row's loss, lse - (1 - eps) x[t] - (eps / V) sum(x), from hit = 1 - eps and
// smooth = eps / V (sx, the sum, is 0 when eps is: it is only accumulated for smoothing).
OPK_DEV float target_loss(float lse, float xt, float sx, float hit, float smooth) {
    return lse - hit * xt - smooth * sx;
}

// logits and dlogits are [rows, V]: the host's views of them (rows_view(t, 1)) have at most
// one outer dimension, so every kernel here takes its rows through flat_row_ptr, without
// row_offset's division (whose call held registers: measured with it gone, the bf16
// backward at V 32000 3 % faster on the H200, bench/results/2026-11-29-s17/r2).

// Grad = false: the loss alone, the gradient code compiled out (opk_ce_fwd_loss_*).
template <typename T, int G, int C, bool Grad = true>
OPK_DEV void ce_forward(const CrossEntropyArgs& a) {
    constexpr int P = Pack<T>::n;
    __shared__ float smem[kReduceSlots];
    const RowGroup<G> g;
    const Span rows_span = g.span(a.V, P);
    const int64_t V = a.V;
    const float eps = a.label_smoothing, smooth = eps / float(V), hit = 1.0f - eps;
    float scale = 1.0f;
    if (a.valid_rows) scale = *a.valid_rows ? 1.0f / float(*a.valid_rows) : 0.0f;
    for (int64_t r = g.first_row; r < a.rows; r += g.row_step) {
        const Span sp = per_row(rows_span);
        const int64_t t = load_index(a.target, r, a.target64);
        const RowKind kind = row_kind(t, a.ignore_index, V);
        T* gr = Grad && a.grad.data ? flat_row_ptr<T>(a.grad, r) : nullptr;
        const float row_loss = kind == kIgnored ? 0.0f : NAN;
        if (kind != kValid && !a.lse.data) {  // nothing of the row is needed
            if (gr) fill_row<T>(gr, sp, a.grad.vec, kind == kIgnored ? 0.0f : NAN);
            if (g.lane == 0 && a.loss.data) strided_set<float>(a.loss, r, row_loss);
            continue;
        }
        const T* xr = flat_row_ptr<const T>(a.logits, r);
        // A valid row's loss needs x[t]: the target's owner reads it, with the row's own
        // loads (in the backward, where AMD's 64-VGPR targets spilled with it, only after
        // the statistics; on the H100 the early read is 1-2 % faster in bf16), and writes
        // the loss.
        const bool owns = owns_target<T>(sp, kind == kValid, t);
        const float xt = owns ? to_f32(xr[t]) : 0.0f;
        compiler_fence();  // x[t] is read before the pack stores that may overwrite it
        RowCache<T, C ? C : 1> x;
        float m, s, sx;
        row_stats<T, G, C>(xr, sp, a.logits.vec, gr != nullptr, eps > 0.0f, x, smem, m, s, sx);
        const float lse = m + logf(s);
        if (g.lane == 0 && a.lse.data) strided_set<float>(a.lse, r, lse);
        if (a.loss.data && (kind == kValid ? owns : g.lane == 0))
            strided_set<float>(a.loss, r, kind == kValid ? target_loss(lse, xt, sx, hit, smooth) : row_loss);
        if (!gr) continue;
        if (kind != kValid) {
            fill_row<T>(gr, sp, a.grad.vec, kind == kIgnored ? 0.0f : NAN);
            continue;
        }
        // In place (gradient over the logits) is safe: a thread reads and writes only the
        // packs it owns.
        write_grad<T, (C > 0)>(xr, a.logits.vec, gr, a.grad.vec, sp, x, lse, owns, xt, t, smooth, hit, scale);
    }
}

template <typename T, int G, int C>
OPK_DEV void ce_forward_loss(const CrossEntropyArgs& a) {
    ce_forward<T, G, C, false>(a);
}

// dlogits = (softmax(x) - (1-eps) onehot(t) - eps/V) * scale * dloss. With lse given the
// row is read once; without it the statistics are recomputed first.
template <typename T, int G, int C>
OPK_DEV void ce_backward(const CrossEntropyArgs& a) {
    __shared__ float smem[kReduceSlots];
    const RowGroup<G> g;
    const Span rows_span = g.span(a.V, Pack<T>::n);
    const int64_t V = a.V;
    const float eps = a.label_smoothing, smooth = eps / float(V), hit = 1.0f - eps;
    float scale = 1.0f;
    if (a.valid_rows) scale = *a.valid_rows ? 1.0f / float(*a.valid_rows) : 0.0f;
    const float upstream = a.dloss_per_row ? 0.0f : strided_get<float>(a.dloss, 0);
    for (int64_t r = g.first_row; r < a.rows; r += g.row_step) {
        const Span sp = per_row(rows_span);
        const int64_t t = load_index(a.target, r, a.target64);
        const RowKind kind = row_kind(t, a.ignore_index, V);
        T* gr = flat_row_ptr<T>(a.grad, r);
        if (kind != kValid) {
            fill_row<T>(gr, sp, a.grad.vec, kind == kIgnored ? 0.0f : NAN);
            continue;
        }
        const T* xr = flat_row_ptr<const T>(a.logits, r);
        const float sc = scale * (a.dloss_per_row ? strided_get<float>(a.dloss, r) : upstream);
        RowCache<T, C ? C : 1> x;
        float lse;
        if (a.lse.data) {
            lse = strided_get<float>(a.lse, r);
        } else {
            float m, s, sx;
            row_stats<T, G, C>(xr, sp, a.logits.vec, true, false, x, smem, m, s, sx);
            lse = m + logf(s);
        }
        // x[t] read before the owner writes its pack (the gradient may overwrite the logits).
        const bool owns = owns_target<T>(sp, true, t);
        const float xt = owns ? to_f32(xr[t]) : 0.0f;
        compiler_fence();  // as in the forward
        // With lse known, one streaming pass suffices: cached configs read as they write.
        if (a.lse.data)
            write_grad<T, false>(xr, a.logits.vec, gr, a.grad.vec, sp, x, lse, owns, xt, t, smooth, hit, sc);
        else
            write_grad<T, (C > 0)>(xr, a.logits.vec, gr, a.grad.vec, sp, x, lse, owns, xt, t, smooth, hit, sc);
    }
}

#if OPK_CLUSTERS
// A stashed row's lse from each thread's online (m, sums = {sum of exp, sum of x}) over its
// slots: the block's statistics, then (K > 1) the cluster's; sums[1] becomes the row's sum
// of x. exchange and parity: cluster_row_stats's two slot pairs and the one whose turn it
// is, flipped by each exchange (only rows that exchange flip it: ce_forward_stash).
template <int B, int K>
OPK_DEV float stash_row_lse(float m, float (&sums)[2], float* smem, float (&exchange)[2][3], int& parity) {
    group_row_stats<B>(m, sums, smem);
    if constexpr (K > 1) {
        cluster_row_stats<K>(m, sums[0], sums[1], exchange[parity]);
        parity ^= 1;
    }
    return m + logf(sums[0]);
}

// The forward with dlogits, each row read once (stash_rows.cuh): the K blocks of a cluster
// share a row, the grid is a whole number of clusters, and a cluster's blocks step over the
// same rows. The row kind and lse.data are the same in every block of a cluster, so the
// cluster barrier of cluster_row_stats is reached by all of them or by none.
// B: threads a block (kCeStashBlock; bench/experiments/ce_stash_cluster.cu tries others).
template <typename T, int K, int B = kCeStashBlock>
OPK_DEV void ce_forward_stash(const CrossEntropyArgs& a) {
    constexpr int P = Pack<T>::n;
    extern __shared__ uint4 stash[];
    __shared__ float smem[kReduceSlots];
    // cluster_row_stats's slots, alternating between the rows that exchange: a block that
    // writes one pair has passed the cluster barrier of the last exchange that read the
    // other (a row that skips the statistics has no barrier, so it must not flip them).
    __shared__ float exchange[2][3];
    int parity = 0;
    const int rank = K > 1 ? int(cooperative_groups::this_cluster().block_rank()) : 0;
    const StashPart part = stash_part<T, B, K>(a.V, rank);
    const Span& sp = part.span;
    const int64_t first_elem = part.first * P;
    const float eps = a.label_smoothing, smooth = eps / float(a.V), hit = 1.0f - eps;
    float scale = 1.0f;
    if (a.valid_rows) scale = *a.valid_rows ? 1.0f / float(*a.valid_rows) : 0.0f;
    const bool lead = rank == 0 && sp.lane == 0;  // writes lse, and the loss of a row without a valid target
    const int64_t step = gridDim.x / K;
    int64_t r = blockIdx.x / K;
    // The cluster kernels' copies through L1 (see copy16_async).
    if (r < a.rows) stash_part_async<T, (K > 1)>(stash, flat_row_ptr<const T>(a.logits, r) + first_elem, sp, a.logits.vec);
    for (; r < a.rows; r += step) {
        const int64_t t = load_index(a.target, r, a.target64);
        const RowKind kind = row_kind(t, a.ignore_index, a.V);
        const T* xr = flat_row_ptr<const T>(a.logits, r) + first_elem;
        T* gr = flat_row_ptr<T>(a.grad, r) + first_elem;
        const T* next = r + step < a.rows ? flat_row_ptr<const T>(a.logits, r + step) + first_elem : nullptr;
        const int64_t tp = t - first_elem;  // the target's place in this block's part
        const bool owns = kind == kValid && tp >= 0 && tp / P < sp.packs && (tp / P) % B == sp.lane;
        const float xt = owns ? to_f32(xr[tp]) : 0.0f;  // before any store: dlogits may be the logits
        async_wait_all();  // this thread's slots hold row r
        float lse = 0.0f;
        if (kind == kValid || a.lse.data) {
            float m = -INFINITY, sums[2] = {0.0f, 0.0f};  // sum of exp, sum of x
            for (int64_t c = sp.lane; c < sp.packs; c += B) {
                float v[P];
                unpack<T, P>(stash[c], v);
                online_add<T, P>(m, sums[0], v);
                if (eps > 0.0f) add_pack_sum<P>(sums[1], c, sp.n, v);
            }
            lse = stash_row_lse<B, K>(m, sums, smem, exchange, parity);
            if (lead && a.lse.data) strided_set<float>(a.lse, r, lse);
            if (owns && a.loss.data) strided_set<float>(a.loss, r, target_loss(lse, xt, sums[1], hit, smooth));
        }
        if (kind != kValid && lead && a.loss.data) strided_set<float>(a.loss, r, kind == kIgnored ? 0.0f : NAN);
        // The gradient row (a fill for a row without a valid target); each slot, once read,
        // takes the next row's pack.
        const float fill = kind == kIgnored ? 0.0f : NAN;
        for (int64_t c = sp.lane; c < sp.packs; c += B) {
            float v[P];
            if (kind == kValid) {
                unpack<T, P>(stash[c], v);
                grad_pack<T, P>(v, lse, smooth, scale);
            } else {
#pragma unroll
                for (int k = 0; k < P; ++k) v[k] = fill;
            }
            if (next) stash_pack<T, (K > 1)>(&stash[c], next, c, sp, a.logits.vec);
            store_pack<T, P, CacheHint::last_use>(gr, c, sp.n, a.grad.vec, v);
        }
        async_commit();
        if (owns) gr[tp] = from_f32<T>((exp_minus<T>(xt, lse) - smooth) * scale - hit * scale);
    }
    // No block leaves while another may still read its exchange slots.
    if constexpr (K > 1) cooperative_groups::this_cluster().sync();
}
#endif

}  // namespace
}  // namespace opk

using namespace opk;

OPK_ROW_KERNELS(opk_ce_fwd, CrossEntropyArgs, ce_forward, kRowConfigs)
OPK_ROW_KERNELS(opk_ce_bwd, CrossEntropyArgs, ce_backward, kRowConfigs)
// The forwards of long rows streamed by a fixed group (kCeFwdGroup says why): the loss
// alone in every dtype, with dlogits in the 2-byte types.
#define OPK_CE_FWD_FIXED(name, body, T)                                                \
    OPK_FIXED_ROW_KERNEL_RESIDENT(name, CrossEntropyArgs, body, T, opk::kCeFwdGroup, 0, \
                                  OPK_ROW_RESIDENT_THREADS)
OPK_CE_FWD_FIXED(opk_ce_fwd_loss_f32, ce_forward_loss, float)
OPK_CE_FWD_FIXED(opk_ce_fwd_loss_f16, ce_forward_loss, opk_f16)
OPK_CE_FWD_FIXED(opk_ce_fwd_loss_bf16, ce_forward_loss, opk_bf16)
OPK_CE_FWD_FIXED(opk_ce_fwd_grad_f16, ce_forward, opk_f16)
OPK_CE_FWD_FIXED(opk_ce_fwd_grad_bf16, ce_forward, opk_bf16)

#if OPK_CLUSTERS
// The stash forwards (kCeStashBlock), clusters of 1, 2, 4 and 8 blocks.
#define OPK_CE_FWD_STASH(T, dtype, K)                                                       \
    extern "C" __global__ void __cluster_dims__(K, 1, 1)                                    \
        OPK_BOUNDS_RESIDENT(opk::kCeStashBlock, opk::kCeStashBlock) opk_ce_fwd_stash_##dtype##_k##K( \
            const CrossEntropyArgs a) {                                                     \
        ce_forward_stash<T, K>(a);                                                          \
    }
#define OPK_CE_FWD_STASH_ALL(T, dtype) \
    OPK_CE_FWD_STASH(T, dtype, 1) OPK_CE_FWD_STASH(T, dtype, 2) OPK_CE_FWD_STASH(T, dtype, 4) OPK_CE_FWD_STASH(T, dtype, 8)
OPK_CE_FWD_STASH_ALL(float, f32)
OPK_CE_FWD_STASH_ALL(opk_f16, f16)
OPK_CE_FWD_STASH_ALL(opk_bf16, bf16)
static_assert(opk::kCeStashMaxCluster == 8, "a stash kernel for every cluster size up to kCeStashMaxCluster");
#endif

// Non-ignored targets (bad ones included: they make the loss NaN either way). Integer
// atomics, so the count is exact and order-independent. One atomic per warp of the
// target's width (OPK_WARP_SIZE: 32, or 64 on CDNA); the 256-thread block is a whole
// number of warps on both.
OPK_KERNEL(opk_ce_count_valid, 256)(const CountValidArgs a) {
    unsigned long long mine = 0;
    for (int64_t r = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; r < a.rows;
         r += int64_t(gridDim.x) * blockDim.x)
        mine += load_index(a.target, r, a.target64) != a.ignore_index;
    for (int m = OPK_WARP_SIZE / 2; m > 0; m >>= 1) mine += OPK_SHFL_XOR(mine, m, OPK_WARP_SIZE);
    if (threadIdx.x % OPK_WARP_SIZE == 0 && mine) atomicAdd(a.count, mine);
}

// The sum of every thread's v over the block, in a fixed order (deterministic): a
// butterfly in each warp (which leaves the same bits in every lane: IEEE addition
// commutes), then every warp the same butterfly over the warps' sums. Two barriers where
// a tree in shared memory takes one a level.
OPK_DEV double block_sum_fixed(double (&warp_sums)[32], double v) {
    for (int m = OPK_WARP_SIZE / 2; m > 0; m >>= 1) v += OPK_SHFL_XOR(v, m, OPK_WARP_SIZE);
    const int lane = int(threadIdx.x % OPK_WARP_SIZE), warps = int(blockDim.x / OPK_WARP_SIZE);
    if (lane == 0) warp_sums[threadIdx.x / OPK_WARP_SIZE] = v;
    __syncthreads();
    double t = lane < warps ? warp_sums[lane] : 0.0;  // warps <= 32 <= the warp's width
    for (int m = OPK_WARP_SIZE / 2; m > 0; m >>= 1) t += OPK_SHFL_XOR(t, m, OPK_WARP_SIZE);
    __syncthreads();  // warp_sums free again for the caller's next sum
    return t;
}

// One block sums the per-row losses in double, in a fixed order (deterministic, and as
// exact as the CPU reference's double accumulator); with count_targets it also counts the
// non-ignored targets (as opk_ce_count_valid; exact in double below 2^53 rows). Launched
// dependent on the forward kernel that wrote the losses (launch_dependent). A thread
// loads eight of its values before it adds them, so that the loads are in flight together
// (8192 rows are eight a thread: one at a time, eight L2 round trips in a row); the sum's
// order stays the thread's values in index order.
OPK_KERNEL(opk_ce_loss_sum, 1024)(const LossSumArgs a) {
    constexpr int kBatch = 8;
    __shared__ double warp_sums[32];
    wait_for_prior_grid();
    double s = 0.0, valid = 0.0;
    const int64_t step = blockDim.x;
    int64_t i = threadIdx.x;
    for (; i + (kBatch - 1) * step < a.count; i += kBatch * step) {
        float v[kBatch];
        bool counts[kBatch];
#pragma unroll
        for (int u = 0; u < kBatch; ++u) {
            v[u] = a.values[i + u * step];
            counts[u] = a.count_targets && load_index(a.target, i + u * step, a.target64) != a.ignore_index;
        }
#pragma unroll
        for (int u = 0; u < kBatch; ++u) {
            s += double(v[u]);
            valid += counts[u];
        }
    }
    for (; i < a.count; i += step) {
        s += double(a.values[i]);
        if (a.count_targets) valid += load_index(a.target, i, a.target64) != a.ignore_index;
    }
    const double total = block_sum_fixed(warp_sums, s);
    const double counted = a.count_targets ? block_sum_fixed(warp_sums, valid) : 0.0;
    if (threadIdx.x == 0) {
        double out = total;
        if (a.divisor) out = total / double(*a.divisor);  // 0 rows: 0/0 = NaN, like PyTorch
        if (a.count_targets) out = total / counted;
        *a.out = float(out);
    }
}
