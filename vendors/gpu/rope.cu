// Rotary position embedding, NeoX / Hugging Face rotate-half, on x [B,T,H,D] with
// cos/sin [T,D] or [B,T,D]. Two kernels: opk_rope_dense (rope_dense, below) for one tensor
// with dense rows whose heads fit a warp (q and k in one launch: opk_rope_qk_dense, where
// both are), the heads-in-flight kernel (opk_rope, and q and k in one launch, opk_rope_qk)
// for the rest.
//
// Thread mapping (RopeArgs::width / groups, chosen by the host): a block is
// width x groups x positions threads. The `width` lanes of a group cover the 16-byte packs
// of one half of a head (pack c of the first half pairs with pack c of the second); the
// `groups` groups of a position split its heads (group g takes heads g, g + groups, ...).
// A thread loads its position's cos/sin packs once and keeps them in registers for all of
// its heads, and loads kRopeHeads heads' x packs before it computes and stores any, so
// 8 16-byte loads are in flight (about 127 registers: 4 blocks of 128 threads per SM, 64
// KiB of loads in flight per SM). Packs stay raw (4 registers each) and convert a 32-bit
// word at a time. The only 64-bit division is position -> (b, t), once per position
// (32-bit when both fit). Heads past the last whole batch go one at a time; unaligned data
// and the half's partial last pack take an element path.
//
// forward:  y[j]   = x[j] cos[j]     - x[j+h] sin[j]
//           y[j+h] = x[j+h] cos[j+h] + x[j] sin[j+h]
// backward (rotation by -theta, the transpose):
//           dx[j]   = dy[j] cos[j]     + dy[j+h] sin[j+h]
//           dx[j+h] = dy[j+h] cos[j+h] - dy[j] sin[j]
// In place (y = x) is safe: each element is read and then written by the same thread.
#include "rows.cuh"

namespace opk {
namespace {

// q = n / d, r = n - q d for n, d >= 0 (d > 0).
OPK_DEV void div_mod(int64_t n, int64_t d, int64_t& q, int64_t& r) {
    if (((n | d) >> 32) == 0) {
        const uint32_t q32 = uint32_t(n) / uint32_t(d);
        q = q32;
        r = int64_t(uint32_t(n) - q32 * uint32_t(d));
    } else {
        q = n / d;
        r = n - q * d;
    }
}

// The 2-byte kernels ask L2 for the position kRowPrefetchAheadBytes of x ahead (as the
// fixed-group row forwards, rows.cuh prefetch_row) where a position's heads are one run
// of whole 16-byte packs, by one thread a position. On the H200 (twenty-fourth session,
// bench/results/2026-11-30-s24/r5/ab-rope.txt, two rounds alternating, 4x4096x32x128 and
// the q+k pair with 8 k heads): bf16 forward 0.0707 -> 0.0688 ms, backward 0.0710 ->
// 0.0694, the q+k pair 0.980-0.994; fp32 5-6 % slower, so not there.
template <typename T>
OPK_DEV void prefetch_position_ahead(const RopeArgs& a, int64_t pos, int64_t positions) {
    if (!a.vec || a.xs[2] != a.D) return;
    const int64_t bytes = a.H * a.D * int64_t(sizeof(T));
    const int64_t ahead = rows_ahead(bytes, kRowPrefetchAheadBytes);
    if (pos + ahead >= positions || bytes > int64_t(UINT32_MAX)) return;
    int64_t b, t;
    div_mod(pos + ahead, a.T, b, t);
    prefetch_l2(static_cast<const T*>(a.x) + b * a.xs[0] + t * a.xs[1], uint32_t(bytes));
}

// Packs are converted a 32-bit word at a time with word_to_f32 / f32_to_word
// (gpu_compat.h): bit operations and paired conversions keep a raw pack in 4 registers
// whatever T, and no pack goes through a local array.

// y[j] = x[j] c[j] - x[j+h] s[j], y[j+h] = x[j+h] c[j+h] + x[j] s[j+h] (forward) or the
// transpose (backward) on one element.
template <bool BACKWARD>
OPK_DEV void rotate1(float xl, float xh, float cl, float ch, float sl, float sh, float& lo, float& hi) {
    if (BACKWARD) {
        lo = xl * cl + xh * sh;
        hi = xh * ch - xl * sl;
    } else {
        lo = xl * cl - xh * sl;
        hi = xh * ch + xl * sh;
    }
}

// One 32-bit word of each of the six packs (x's halves, cos's, sin's) -> the two output words.
template <typename T, bool BACKWARD>
OPK_DEV void rotate_word(uint32_t xl, uint32_t xh, uint32_t cl, uint32_t ch, uint32_t sl, uint32_t sh, uint32_t& ol,
                         uint32_t& oh) {
    if constexpr (sizeof(T) == 4) {
        float lo, hi;
        rotate1<BACKWARD>(__uint_as_float(xl), __uint_as_float(xh), __uint_as_float(cl), __uint_as_float(ch),
                          __uint_as_float(sl), __uint_as_float(sh), lo, hi);
        ol = __float_as_uint(lo);
        oh = __float_as_uint(hi);
    } else {
        const float2 a = word_to_f32(xl, T()), b = word_to_f32(xh, T()), c = word_to_f32(cl, T()),
                     d = word_to_f32(ch, T()), e = word_to_f32(sl, T()), f = word_to_f32(sh, T());
        float lo0, hi0, lo1, hi1;
        rotate1<BACKWARD>(a.x, b.x, c.x, d.x, e.x, f.x, lo0, hi0);
        rotate1<BACKWARD>(a.y, b.y, c.y, d.y, e.y, f.y, lo1, hi1);
        ol = f32_to_word(lo0, lo1, T());
        oh = f32_to_word(hi0, hi1, T());
    }
}

// One pack pair rotated, all six 16-byte packs raw.
template <typename T, bool BACKWARD>
OPK_DEV void rotate_raw(const uint4& xl, const uint4& xh, const uint4& cl, const uint4& ch, const uint4& sl,
                        const uint4& sh, uint4& ol, uint4& oh) {
    rotate_word<T, BACKWARD>(xl.x, xh.x, cl.x, ch.x, sl.x, sh.x, ol.x, oh.x);
    rotate_word<T, BACKWARD>(xl.y, xh.y, cl.y, ch.y, sl.y, sh.y, ol.y, oh.y);
    rotate_word<T, BACKWARD>(xl.z, xh.z, cl.z, ch.z, sl.z, sh.z, ol.z, oh.z);
    rotate_word<T, BACKWARD>(xl.w, xh.w, cl.w, ch.w, sl.w, sh.w, ol.w, oh.w);
}

// kHeads: heads loaded before any is computed: the host's kRopeHeads, but two on AMD
// targets with a 256-entry VGPR file (gfx900/906/908), where every VGPR past 128 costs the
// second wave per SIMD: there the f32 kernel takes 111 VGPRs with two heads, 133 with
// four. The head loops handle any H whatever the batch size. (A template argument so that
// bench/experiments/rope_variants.cu can try other counts.)
// Block `block` of a grid of `blocks` over a's positions.
template <typename T, bool BACKWARD, int kHeads = OPK_SMALL_VGPR_FILE ? 2 : kRopeHeads>
OPK_DEV void rope(const RopeArgs& a, int64_t block, int64_t blocks) {
    constexpr int P = Pack<T>::n;
    const int64_t half = a.D / 2, packs = (half + P - 1) / P;
    const int width = a.width, groups = a.groups;
    const int lane = int(threadIdx.x) & (width - 1);
    const int rest = int(threadIdx.x) / width;
    const int g = rest % groups;
    const int per_block = a.per_block;
    const int64_t positions = a.B * a.T, H = a.H;
    const int64_t xh_step = int64_t(groups) * a.xs[2], yh_step = int64_t(groups) * a.ys[2];
    for (int64_t pos = block * per_block + rest / groups; pos < positions; pos += blocks * per_block) {
        int64_t b, t;
        div_mod(pos, a.T, b, t);
        // The thread's group and lane, recomputed per position on AMD (gpu_compat.h,
        // per_iteration): their per-head addresses were hoisted out of this loop.
        const int gp = per_iteration(g), lanep = per_iteration(lane);
        const T* cr = static_cast<const T*>(a.cos) + b * a.cs[0] + t * a.cs[1];
        const T* sr = static_cast<const T*>(a.sin) + b * a.ss[0] + t * a.ss[1];
        const T* xb = static_cast<const T*>(a.x) + b * a.xs[0] + t * a.xs[1] + gp * a.xs[2];
        T* yb = static_cast<T*>(a.y) + b * a.ys[0] + t * a.ys[1] + gp * a.ys[2];
        if constexpr (sizeof(T) == 2)
            if (lanep == 0 && gp == 0) prefetch_position_ahead<T>(a, pos, positions);
        for (int64_t c = lanep; c < packs; c += width) {
            const int64_t e = c * P;
            if (a.vec && e + P <= half) {  // 16-byte packs, kHeads heads in flight
                // cos/sin stay raw (4 registers a pack whatever T) and unpack per head.
                const uint4 cl = *reinterpret_cast<const uint4*>(cr + e);
                const uint4 ch = *reinterpret_cast<const uint4*>(cr + half + e);
                const uint4 sl = *reinterpret_cast<const uint4*>(sr + e);
                const uint4 sh = *reinterpret_cast<const uint4*>(sr + half + e);
                const T* xr = xb + e;
                T* yr = yb + e;
                int64_t h = gp;
                // Whole batches of kHeads heads: every load issued before the first store.
#if OPK_ROW_REMAT
                // On AMD the batch's addresses derive from the batch number, made opaque
                // in each batch (gpu_compat.h, per_iteration): with pointers stepped by
                // the loop, LLVM kept one 64-bit induction variable per load and store
                // address (16 of them, 32 VGPRs). The pointers themselves stay out of the
                // asm, or global accesses would become flat ones.
                int64_t batch = 0;
#pragma unroll 1
                for (; h + int64_t(kHeads - 1) * groups < H; h += int64_t(groups) * kHeads, ++batch) {
                    const int64_t jb = per_iteration(batch);
                    const T* xq = xr + jb * (kHeads * xh_step);
                    T* yq = yr + jb * (kHeads * yh_step);
#else
#pragma unroll 1
                for (; h + int64_t(kHeads - 1) * groups < H; h += int64_t(groups) * kHeads) {
                    const T* xq = xr;
                    T* yq = yr;
#endif
                    uint4 rl[kHeads], rh[kHeads];
#pragma unroll
                    for (int u = 0; u < kHeads; ++u) {
                        rl[u] = *reinterpret_cast<const uint4*>(xq + u * xh_step);
                        rh[u] = *reinterpret_cast<const uint4*>(xq + u * xh_step + half);
                    }
#pragma unroll
                    for (int u = 0; u < kHeads; ++u) {
                        uint4 ol, oh;
                        rotate_raw<T, BACKWARD>(rl[u], rh[u], cl, ch, sl, sh, ol, oh);
                        *reinterpret_cast<uint4*>(yq + u * yh_step) = ol;
                        *reinterpret_cast<uint4*>(yq + u * yh_step + half) = oh;
                    }
#if OPK_ROW_REMAT
                }
                xr += batch * (kHeads * xh_step);
                yr += batch * (kHeads * yh_step);
#else
                    xr += kHeads * xh_step;
                    yr += kHeads * yh_step;
                }
#endif
#pragma unroll 1
                for (; h < H; h += groups, xr += xh_step, yr += yh_step) {  // the rest, one at a time
                    const uint4 rl = *reinterpret_cast<const uint4*>(xr);
                    const uint4 rh = *reinterpret_cast<const uint4*>(xr + half);
                    uint4 ol, oh;
                    rotate_raw<T, BACKWARD>(rl, rh, cl, ch, sl, sh, ol, oh);
                    *reinterpret_cast<uint4*>(yr) = ol;
                    *reinterpret_cast<uint4*>(yr + half) = oh;
                }
            } else {  // element access: unaligned data or the half's last, partial pack
                const T* xr = xb;
                T* yr = yb;
#pragma unroll 1
                for (int64_t h = gp; h < H; h += groups, xr += xh_step, yr += yh_step) {
#pragma unroll 1
                    for (int64_t j = e; j < e + P && j < half; ++j) {
                        float lo, hi;
                        rotate1<BACKWARD>(to_f32(xr[j]), to_f32(xr[j + half]), to_f32(cr[j]), to_f32(cr[j + half]),
                                          to_f32(sr[j]), to_f32(sr[j + half]), lo, hi);
                        yr[j] = from_f32<T>(lo);
                        yr[j + half] = from_f32<T>(hi);
                    }
                }
            }
        }
    }
}

template <typename T>
OPK_DEV void rope_any(const RopeArgs& a, int64_t block, int64_t blocks) {
    if (a.backward)
        rope<T, true>(a, block, blocks);
    else
        rope<T, false>(a, block, blocks);
}

// Both launches wait at their entry, before any load or store, for the kernel before them
// and its writes: they are launched dependent on it (launch_dependent, sm_90+), so their
// blocks may be scheduled once its blocks have all left, before its grid is retired (rope
// on q then k in two calls: k's launch overlaps q's end).
template <typename T>
OPK_DEV void rope_one(const RopeArgs& a) {
    wait_for_prior_grid();
    rope_any<T>(a, int64_t(blockIdx.x), int64_t(gridDim.x));
}

// q's blocks first, then k's, in one grid: k's first blocks start while q's last run, with
// no launch between them. A block is as wide as the wider part's; the other part's spare
// threads have nothing to do (no barriers follow).
template <typename T>
OPK_DEV void rope_qk(const RopeQkArgs& a) {
    wait_for_prior_grid();
    const int64_t block = int64_t(blockIdx.x);
    const bool is_q = block < a.q_blocks;
    // Scalars selected, not a reference to either part: a run-time choice between two
    // parameter structs could copy them to the stack.
    const int threads = is_q ? a.q.width * a.q.groups * a.q.per_block : a.k.width * a.k.groups * a.k.per_block;
    if (int(threadIdx.x) >= threads) return;
    if (is_q)
        rope_any<T>(a.q, block, a.q_blocks);
    else
        rope_any<T>(a.k, block - a.q_blocks, int64_t(gridDim.x) - a.q_blocks);
}

OPK_DEV uint4 shuffle_xor(const uint4& v, int lane_mask) {
    return make_uint4(OPK_SHFL_XOR(v.x, lane_mask, 32), OPK_SHFL_XOR(v.y, lane_mask, 32),
                      OPK_SHFL_XOR(v.z, lane_mask, 32), OPK_SHFL_XOR(v.w, lane_mask, 32));
}

// Dense [B,T,H,D] x and y whose heads have row_packs 16-byte packs, a power of two from 2
// to 32 (the host checks; kernel_params.h, kRopeDensePacks): thread t of a block takes
// packs first + t and first + t + blockDim.x ... of the block's blockDim.x * U, with no
// loop. A head's packs lie in consecutive lanes of one warp (32-lane segment on AMD), so
// pack c's partner in the other half, c ^ half_packs, is lane ^ half_packs: its x (and in
// the backward its sin) comes by a shuffle, not a load. Each pack costs three loads (x,
// cos, sin) and one store at about 40 registers, where the heads-in-flight kernel above
// holds 120-127 at a quarter of the warps; Nsight Compute showed both moving the same DRAM
// bytes, it at 82.6 % of DRAM peak against Inductor's 86.7 % (f32, 4x4096x32x128;
// bench/results/2026-12-01-s35/r3). Lanes past the last pack keep to the shuffles (every
// lane of the warp takes part) and store nothing. In place is safe: a pack is read, then
// written, by its own thread; its partner's x arrives by the shuffle, read before.
//   forward:  y = x cos + sign x' sin       (sign -1 on the first half, +1 on the second)
//   backward: dx = dy cos + sign dy' sin'   (sin' the partner's; sign +1 first, -1 second)
// cos and sin are loaded with L2's evict_last policy (CacheHint::keep, as Inductor's rope
// loads them): every head of a position reads the same angles, and kept in L2 they are not
// pushed out by x and y streaming past. 2.7-3.2 % of the kernel's time in both dtypes and
// directions (H200, 4x4096x32x128; also streaming x and y, evict_first, gained nothing:
// bench/results/2026-12-01-s36/r2, ab-rh1 / ab-rh2). Plain loads on AMD (gpu_compat.h).
template <typename T, bool BACKWARD>
OPK_DEV void rope_dense(const RopeArgs& a, uint32_t block) {
    constexpr int P = Pack<T>::n, U = kRopeDensePacks;
    const uint32_t row_packs = uint32_t(a.D) / P, half_packs = row_packs / 2;
    const int head_shift = __ffs(int(row_packs)) - 1;
    const uint32_t total = uint32_t(a.B * a.T * a.H) * row_packs;  // < 2^31 (host)
    const uint32_t first = block * blockDim.x * U + threadIdx.x;
    uint4 xv[U], cv[U], sv[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {  // every load before any shuffle
        const uint32_t i = first + u * blockDim.x;
        xv[u] = cv[u] = sv[u] = make_uint4(0, 0, 0, 0);
        if (i < total) {
            const uint32_t c = i & (row_packs - 1), pos = (i >> head_shift) / uint32_t(a.H);
            const uint32_t b = pos / uint32_t(a.T), t = pos - b * uint32_t(a.T);
            xv[u] = *reinterpret_cast<const uint4*>(static_cast<const T*>(a.x) + int64_t(i) * P);
            cv[u] = load16<CacheHint::keep>(static_cast<const T*>(a.cos) + b * a.cs[0] + t * a.cs[1] + c * P);
            sv[u] = load16<CacheHint::keep>(static_cast<const T*>(a.sin) + b * a.ss[0] + t * a.ss[1] + c * P);
        }
    }
    const int partner = int(half_packs);
#pragma unroll
    for (int u = 0; u < U; ++u) {
        const uint32_t i = first + u * blockDim.x;
        const uint4 xp = shuffle_xor(xv[u], partner);
        const uint4 sp = BACKWARD ? shuffle_xor(sv[u], partner) : sv[u];
        if (i >= total) continue;
        const bool first_half = (i & (row_packs - 1)) < half_packs;
        const float sign = first_half != BACKWARD ? -1.0f : 1.0f;
        auto word = [&](uint32_t x0, uint32_t x1, uint32_t c0, uint32_t s0) -> uint32_t {
            if constexpr (sizeof(T) == 4) {
                return __float_as_uint(__uint_as_float(x0) * __uint_as_float(c0) +
                                       sign * (__uint_as_float(x1) * __uint_as_float(s0)));
            } else {
                const float2 xa = word_to_f32(x0, T()), xb = word_to_f32(x1, T()), ca = word_to_f32(c0, T()),
                             sa = word_to_f32(s0, T());
                return f32_to_word(xa.x * ca.x + sign * (xb.x * sa.x), xa.y * ca.y + sign * (xb.y * sa.y), T());
            }
        };
        uint4 out;
        out.x = word(xv[u].x, xp.x, cv[u].x, sp.x);
        out.y = word(xv[u].y, xp.y, cv[u].y, sp.y);
        out.z = word(xv[u].z, xp.z, cv[u].z, sp.z);
        out.w = word(xv[u].w, xp.w, cv[u].w, sp.w);
        *reinterpret_cast<uint4*>(static_cast<T*>(a.y) + int64_t(i) * P) = out;
    }
}

template <typename T>
OPK_DEV void rope_dense_any(const RopeArgs& a, uint32_t block) {
    if (a.backward)
        rope_dense<T, true>(a, block);
    else
        rope_dense<T, false>(a, block);
}

// Launched dependent, as rope_one.
template <typename T>
OPK_DEV void rope_dense_one(const RopeArgs& a) {
    wait_for_prior_grid();
    rope_dense_any<T>(a, blockIdx.x);
}

// q's dense blocks, then k's, in one grid, as rope_qk does for the heads-in-flight kernel
// (the host takes it where q and k are both dense rows for rope_dense). Launched dependent.
template <typename T>
OPK_DEV void rope_qk_dense(const RopeQkArgs& a) {
    wait_for_prior_grid();
    const uint32_t block = blockIdx.x;
    if (block < uint32_t(a.q_blocks))
        rope_dense_any<T>(a.q, block);
    else
        rope_dense_any<T>(a.k, block - uint32_t(a.q_blocks));
}

}  // namespace
}  // namespace opk

using namespace opk;

OPK_KERNEL(opk_rope_f32, 256)(const RopeArgs a) { rope_one<float>(a); }
OPK_KERNEL(opk_rope_f16, 256)(const RopeArgs a) { rope_one<opk_f16>(a); }
OPK_KERNEL(opk_rope_bf16, 256)(const RopeArgs a) { rope_one<opk_bf16>(a); }
OPK_KERNEL(opk_rope_qk_f32, 256)(const RopeQkArgs a) { rope_qk<float>(a); }
OPK_KERNEL(opk_rope_qk_f16, 256)(const RopeQkArgs a) { rope_qk<opk_f16>(a); }
OPK_KERNEL(opk_rope_qk_bf16, 256)(const RopeQkArgs a) { rope_qk<opk_bf16>(a); }
OPK_KERNEL(opk_rope_dense_f32, kRopeDenseThreads)(const RopeArgs a) { rope_dense_one<float>(a); }
OPK_KERNEL(opk_rope_dense_f16, kRopeDenseThreads)(const RopeArgs a) { rope_dense_one<opk_f16>(a); }
OPK_KERNEL(opk_rope_dense_bf16, kRopeDenseThreads)(const RopeArgs a) { rope_dense_one<opk_bf16>(a); }
OPK_KERNEL(opk_rope_qk_dense_f32, kRopeDenseThreads)(const RopeQkArgs a) { rope_qk_dense<float>(a); }
OPK_KERNEL(opk_rope_qk_dense_f16, kRopeDenseThreads)(const RopeQkArgs a) { rope_qk_dense<opk_f16>(a); }
OPK_KERNEL(opk_rope_qk_dense_bf16, kRopeDenseThreads)(const RopeQkArgs a) { rope_qk_dense<opk_bf16>(a); }
