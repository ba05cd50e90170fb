// Rows read once into shared memory ("stashed") and split over the K blocks of a
// thread-block cluster, for kernels that need a long row twice: statistics first, then an
// output computed from the row and those statistics (cross-entropy's forward with
// dlogits). Block k of a cluster holds the k-th K-th of the row's 16-byte packs; the blocks
// combine their partial statistics through distributed shared memory. The packs arrive by
// cp.async, all of a block's part at once, and the next row's pack c is requested as soon
// as the output pass has read slot c, so the next row streams in while this one's output
// goes out. NVIDIA sm_90 and later only (OPK_CLUSTERS, gpu_compat.h).
//
// Each thread reads only the slots it filled itself (pack c of a part is thread c % B's in
// both passes), so the stash needs no barrier: cp.async.wait_all orders a thread's own
// copies before its reads.
#pragma once

#include "rows.cuh"

#if OPK_CLUSTERS
#include <cooperative_groups.h>

namespace opk {

// A shared-memory address as the 32-bit operand PTX's shared-state-space instructions take.
OPK_DEV unsigned smem_u32(const void* p) { return unsigned(__cvta_generic_to_shared(p)); }

// 16 bytes from global to shared memory without passing through registers: by default
// past L1 (cp.async.cg), since every stash reads its bytes once. ThroughL1 (cp.async.ca)
// where it was measured to pay (twenty-sixth session, docs/PERFORMANCE.md):
//   - the fp32 cluster norm backwards: Nsight Compute counted each LDGSTS.BYPASS.128 warp
//     instruction as 32 L2 sectors for the 16 its addresses span (1.07 GB over the
//     crossbar for 537 MB read from DRAM at 4096x16384); through L1 a sector is asked for
//     once and the kernels are 13 % faster. Their one-block (s1) kernels, with no doubled
//     sectors, gain nothing, and the 2-byte stash backwards were 18 % slower through L1;
//   - cross-entropy's cluster stash (K > 1): no doubled sectors there, yet the forward with
//     dlogits at V 128256 was 1.2-1.5 % (bf16, two calls) and 0.5 % (fp32, one) faster; its
//     one-block kernel stays as it was.
template <bool ThroughL1 = false>
OPK_DEV void copy16_async(uint4* dst, const void* src) {
    const unsigned d = smem_u32(dst);
    if constexpr (ThroughL1)
        asm volatile("cp.async.ca.shared.global [%0], [%1], 16;\n" ::"r"(d), "l"(src) : "memory");
    else
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(d), "l"(src) : "memory");
}
// A 16-byte store that stays one instruction. nvcc (CUDA 13, sm_90) wrote the first dx pack
// of the fp32 cluster stash backwards as four 4-byte stores (PTX st.global.f32, the other
// three packs st.global.v4), each warp instruction then a quarter of every sector it
// touches; the asm leaves it no choice.
OPK_DEV void store16_whole(void* p, const uint4& v) {
    asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};" ::"l"(__cvta_generic_to_global(p)), "r"(v.x), "r"(v.y),
                 "r"(v.z), "r"(v.w)
                 : "memory");
}
OPK_DEV void async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
OPK_DEV void async_wait_all() { asm volatile("cp.async.wait_all;\n" ::: "memory"); }
// Waits until at most N of this thread's newest committed groups are still in flight.
template <int N>
OPK_DEV void async_wait_pending() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}
// The same for a run-time count (a uniform branch: wait_group takes a constant); counts
// past kMaxPending wait for kMaxPending.
constexpr int kMaxPending = 7;
OPK_DEV void async_wait_pending(int n) {
    switch (n) {
        case 0: return async_wait_pending<0>();
        case 1: return async_wait_pending<1>();
        case 2: return async_wait_pending<2>();
        case 3: return async_wait_pending<3>();
        case 4: return async_wait_pending<4>();
        case 5: return async_wait_pending<5>();
        case 6: return async_wait_pending<6>();
        default: return async_wait_pending<kMaxPending>();
    }
}

// p, as the loop iteration that calls this sees it (NVIDIA's counterpart of per_iteration):
// an empty asm that claims to change the words keeps nvcc from hoisting what the loop
// computes from them (a weight pack's fp32 values) out of the loop, where they would hold
// twice the registers for the whole loop.
OPK_DEV void per_iteration_words(uint4& p) { asm volatile("" : "+r"(p.x), "+r"(p.y), "+r"(p.z), "+r"(p.w)); }

// A ring of rows in shared memory filled by the Tensor Memory Accelerator (cp.async.bulk:
// one thread asks for a whole row part, the copy engine moves it) instead of every thread's
// own 16-byte cp.async copies. Each slot has two mbarriers: `full` completes when the
// slot's bytes have landed (its producer's arrive with the bytes expected, then the copies'
// completions), `empty` when every warp of the block has read the slot (one arrive a
// warp), so that the producer may fill it again. Phases alternate with each fill of a slot:
// fill f of a slot is waited for with parity f & 1. Up to kBulkSlots slots.
constexpr int kBulkSlots = 4;
struct BulkRing {
    unsigned long long full[kBulkSlots], empty[kBulkSlots];
};
// Thread 0, before any other thread touches the ring: `warps` arrivals empty each slot.
OPK_DEV void bulk_ring_init(BulkRing& b, int slots, int warps) {
    for (int s = 0; s < slots; ++s) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_u32(&b.full[s])) : "memory");
        asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(&b.empty[s])), "r"(warps) : "memory");
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
// The producer: `bytes` will land on slot s's full barrier (the sum of the copies' sizes).
OPK_DEV void bulk_expect(BulkRing& b, int s, unsigned bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_u32(&b.full[s])), "r"(bytes)
                 : "memory");
}
// The producer: `bytes` (a multiple of 16, both addresses 16-byte aligned) from global
// memory into shared memory, completing on slot s's full barrier.
OPK_DEV void bulk_copy(BulkRing& b, int s, void* dst, const void* src, unsigned bytes) {
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                     smem_u32(dst)),
                 "l"(src), "r"(bytes), "r"(smem_u32(&b.full[s]))
                 : "memory");
}
OPK_DEV void mbarrier_wait(const unsigned long long* bar, unsigned parity) {
    asm volatile(
        "{\n .reg .pred done;\n wait_%=:\n mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
        " @!done bra wait_%=;\n}" ::"r"(smem_u32(bar)),
        "r"(parity)
        : "memory");
}
// Every thread: fill f of slot s has landed.
OPK_DEV void bulk_wait_full(BulkRing& b, int s, int f) { mbarrier_wait(&b.full[s], unsigned(f & 1)); }
// Every thread, after its last read of fill f of slot s: one arrive a warp.
OPK_DEV void bulk_release(BulkRing& b, int s) {
    __syncwarp();
    if (threadIdx.x % 32 == 0) asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_u32(&b.empty[s])) : "memory");
}
// The producer, before fill f >= 1 of slot s: every warp has read fill f - 1; then its
// generic-proxy reads are ordered before the copy engine's writes.
OPK_DEV void bulk_wait_empty(BulkRing& b, int s, int f) {
    mbarrier_wait(&b.empty[s], unsigned((f - 1) & 1));
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

// The slot bookkeeping of a ring of `slots` rows in shared memory that a block's threads
// fill by cp.async while they work on an earlier row (norms.cu's stash backwards): the
// first slots - 1 rows are requested up front, and at row j the row
// j + slots - 1 goes into the slot row j - 1 left, so slots - 1 rows stay in flight.
// request(j, slot) copies this thread's packs of its j-th row (if it has one) into `slot`
// and commits one cp.async group either way, so that the pending count stays exact.
struct RowRing {
    int slots, read = 0, fill;
    template <class Request>
    OPK_DEV RowRing(int ring_slots, Request&& request) : slots(ring_slots), fill(ring_slots - 1) {
        for (int j = 0; j + 1 < slots; ++j) request(j, j);
    }
    // Requests row j + slots - 1 into the slot row j - 1 left, waits for row j's copies
    // and returns row j's slot.
    template <class Request>
    OPK_DEV int next(int j, Request&& request) {
        request(j + slots - 1, fill);
        async_wait_pending(slots - 1);
        const int slot = read;
        fill = read;
        read = read + 1 == slots ? 0 : read + 1;
        return slot;
    }
};

// The slot bookkeeping of a BulkRing (norms.cu's fp32 stash backward of rows of 8192):
// thread 0 requests the first `slots` rows up front; at row j it waits until every warp
// has released row j - 1's slot and requests row j - 1 + slots into it, then every thread
// waits for row j's fill. Row j is fill j / slots of slot j % slots. request(j, slot) is
// thread 0's: it arms the slot's full barrier with the row's bytes and starts its copies
// (nothing past the block's last row). start() ends in a barrier, so that no thread waits
// on an mbarrier before thread 0 has initialized it.
struct BulkRowRing {
    BulkRing& bars;
    int slots;
    // Every thread, once, before next().
    template <class Request>
    OPK_DEV void start(int warps, Request&& request) {
        if (threadIdx.x == 0) {
            bulk_ring_init(bars, slots, warps);
            for (int j = 0; j < slots; ++j) request(j, j);
        }
        __syncthreads();
    }
    // Row j's slot, its bytes landed (rows: the block's row count).
    template <class Request>
    OPK_DEV int next(int j, int rows, Request&& request) {
        if (threadIdx.x == 0 && j >= 1 && j - 1 + slots < rows) {
            const int refill = (j - 1) % slots;
            bulk_wait_empty(bars, refill, (j - 1) / slots + 1);
            request(j - 1 + slots, refill);
        }
        const int slot = j % slots;
        bulk_wait_full(bars, slot, j / slots);
        return slot;
    }
    // Every thread, after its last read of `slot` for this row.
    OPK_DEV void release(int slot) { bulk_release(bars, slot); }
};

// Packs of a row in each block's part: the last block's part may be shorter or empty.
OPK_DEV int64_t stash_chunk(int64_t packs, int K) { return (packs + K - 1) / K; }

// This block's part of a row of n elements: packs [first, first + span.packs), seen as a
// row of its own that starts at element first * P (span.n counts from there to the row's
// end, so bounds tests against it stay those of the whole row).
struct StashPart {
    int64_t first;
    Span span;
};

template <typename T, int B, int K>
OPK_DEV StashPart stash_part(int64_t n, int rank) {
    constexpr int P = Pack<T>::n;
    const int64_t packs = (n + P - 1) / P, chunk = stash_chunk(packs, K);
    const int64_t lo = packs < int64_t(rank) * chunk ? packs : int64_t(rank) * chunk;
    const int64_t hi = packs < lo + chunk ? packs : lo + chunk;
    return {lo, {n - lo * P > 0 ? n - lo * P : 0, hi - lo, int(threadIdx.x), B}};
}

// Pack c of a part (row: the part's first element) into its slot: asynchronously when the
// pack is whole and the row 16-byte aligned (vec), else from element loads, -inf past the
// row's end.
template <typename T, bool ThroughL1 = false>
OPK_DEV void stash_pack(uint4* slot, const T* row, int64_t c, const Span& sp, bool vec) {
    constexpr int P = Pack<T>::n;
    if (vec && (c + 1) * P <= sp.n) {
        copy16_async<ThroughL1>(slot, row + c * P);
    } else {
        uint4 raw;
        load_raw<T, P>(row, c, sp.n, vec, raw, -INFINITY);
        *slot = raw;
    }
}

// Requests every pack of a part into the stash.
template <typename T, bool ThroughL1 = false>
OPK_DEV void stash_part_async(uint4* stash, const T* row, const Span& sp, bool vec) {
    for (int64_t c = sp.lane; c < sp.packs; c += sp.size) stash_pack<T, ThroughL1>(&stash[c], row, c, sp, vec);
    async_commit();
}

// The row's (max, sum of exp(x - max), sum of x) from every block's (m, s, sx) of its part,
// the same in every block of the cluster: each combines the K partials in rank order.
// exchange: this block's slots for one of two alternating exchanges (a block writes the
// other pair for its next exchange while a slower block may still read these: the cluster
// barrier of that next exchange orders the one after it, which reuses these).
template <int K>
OPK_DEV void cluster_row_stats(float& m, float& s, float& sx, float* exchange) {
    cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
    if (threadIdx.x == 0) {
        exchange[0] = m;
        exchange[1] = s;
        exchange[2] = sx;
    }
    cluster.sync();
    float pm[K], ps[K], px[K];
#pragma unroll
    for (int j = 0; j < K; ++j) {
        const float* e = cluster.map_shared_rank(exchange, j);
        pm[j] = e[0];
        ps[j] = e[1];
        px[j] = e[2];
    }
    m = pm[0];
#pragma unroll
    for (int j = 1; j < K; ++j) m = fmaxf(m, pm[j]);
    s = 0.0f;
    sx = 0.0f;
#pragma unroll
    for (int j = 0; j < K; ++j) {
        s += ps[j] * exp_shifted(pm[j], m);
        sx += px[j];
    }
}

// The sums v of every block of a cluster of K, the same in each: every block's thread 0
// puts its values in `exchange` (this block's slots for one of two alternating exchanges,
// as in cluster_row_stats), and every thread adds the K blocks' in rank order.
template <int K, int N>
OPK_DEV void cluster_sums(float (&v)[N], float* exchange) {
    cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
    if (threadIdx.x == 0)
#pragma unroll
        for (int n = 0; n < N; ++n) exchange[n] = v[n];
    cluster.sync();
#pragma unroll
    for (int n = 0; n < N; ++n) v[n] = 0.0f;
#pragma unroll
    for (int j = 0; j < K; ++j) {
        const float* e = cluster.map_shared_rank(exchange, j);
#pragma unroll
        for (int n = 0; n < N; ++n) v[n] += e[n];
    }
}

}  // namespace opk

#endif  // OPK_CLUSTERS
