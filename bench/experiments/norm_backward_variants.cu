// The rms_norm / layer_norm backward kernels (bf16, f32) under other launch shapes: threads
// per row (B), packs per thread (C), the resident threads the launch bounds ask for (Res:
// 1024 = 64 registers as in the library, 768 = 80, 512 = 128), with or without the
// next-row prefetch (pf), and with the weight read from global memory at each use or (sw)
// from a copy of the weight row in dynamic shared memory (kNormBwdSharedWeight). First
// question (2026-11-27): the library's bf16 backwards held one pack per thread (two
// spilled at 64 registers) and reached 0.40-0.57 of the copy bandwidth, the 16384-element
// rows streamed; would more packs per thread at fewer resident threads (more registers)
// keep more bytes in flight, and cache the long rows? Second (2026-11-28): nvcc kept the
// weight packs' fp32 values live across a row's two passes, and the four-pack shapes
// spilled at 128 registers; does reading the weight from shared memory help? One wave of
// blocks per line. Each line times the row kernel plus the column sums that finish
// dweight / dbias, as the library launches them, and is checked against the library's
// plan ("today": dx on the first and last four rows, dweight and dbias whole). Not part of
// the build:
//
//   nvcc -std=c++17 -O3 -arch=sm_90 -Xptxas -v -o norm_backward_variants \
//        bench/experiments/norm_backward_variants.cu 2> ptxas.txt
//   ./norm_backward_variants        # on the GPU machine
//
// Against a norms.cu from before the shared weight row, add -DOPK_NO_SHARED_WEIGHT (the
// sw lines are left out). Its "today" line times the library's kernels of the first
// table (the rows of 1025 to 2048 packs show the streamed config 2, not the *_bwd_long
// kernels the library takes for 2-byte types there). -DOPK_F32_EXACT_SWEEP: only the fp32
// question of 2026-11-28 (H200: layer_norm's fp32 backward, shared-memory sums in the
// library, trailed Liger-Kernel 0.69x at 8192x8192): exact-body shapes with register sums.
#include "../../vendors/gpu/norms.cu"
#include "norm_backward_harness.cuh"

#ifndef OPK_NO_SHARED_WEIGHT
#define OPK_SW_ARG , Sw
#else  // built against a norms.cu from before kNormBwdSharedWeight (2026-11-28)
#define OPK_SW_ARG
#endif

// Ex: the exact-row body (kExactPath; the library took it for fp32 only before 2026-11-28,
// then for rms_norm's 2-byte four-pack kernel too): no bounds
// tests, plain 16-byte accesses. Every shape here is exact for its variant.
template <int Op, typename T, int B, int C, int Res, bool Pf, bool Sw, bool Ex>
__global__ void __launch_bounds__(B, Res / B) variant(const NormArgs a) {
    __shared__ float smem[kReduceSlots];
    if constexpr (Op == kRms)
        opk::rms_backward_rows<T, 0, C, Ex, Pf OPK_SW_ARG>(a, smem);
    else
        opk::ln_backward_rows<T, 0, C, Ex, Pf OPK_SW_ARG>(a, smem);
}

// Sw: the weight row in dynamic shared memory (kNormBwdSharedWeight). One wave of blocks
// (two were slower in every line of the first runs).
template <int Op, typename T, int B, int C, int Res, bool Pf, bool Sw, bool Ex = false>
static void run_variant(Shape& s) {
    auto k = variant<Op, T, B, C, Res, Pf, Sw, Ex>;
    const size_t smem = Sw ? size_t(s.n) * s.esize : 0;
    int per_sm = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, B, smem);
    cudaFuncAttributes attr{};
    cudaFuncGetAttributes(&attr, k);
    char tag[96];
    std::snprintf(tag, sizeof tag, "B%d C%d R%d%s%s%s %dreg%s %dblk/SM", B, C, Res, Pf ? " pf" : "", Sw ? " sw" : "",
                  Ex ? " ex" : "", attr.numRegs, attr.localSizeBytes ? " SPILL" : "", per_sm);
    const int64_t grid = std::min<int64_t>(s.rows, int64_t(sms) * per_sm);
    const float ms = time_call(s, k, grid, B, smem, false);
    print_line<T>(s, tag, ms, true);
}


#define OPK_V(B, C, Res, Pf) run_variant<Op, T, B, C, Res, Pf, false>(s);
#ifndef OPK_NO_SHARED_WEIGHT
#define OPK_VS(B, C, Res, Pf) run_variant<Op, T, B, C, Res, Pf, true>(s);
#else
#define OPK_VS(B, C, Res, Pf)
#endif

// Each line with the weight read from global memory at each use, then (sw) from shared.
#define OPK_V2(B, C, Res, Pf) OPK_V(B, C, Res, Pf) OPK_VS(B, C, Res, Pf)
// The exact-row body (2026-11-28), weight from global (0) or shared memory (1).
#define OPK_VE(B, C, Res, Pf, Sw) run_variant<Op, T, B, C, Res, Pf, Sw, true>(s);

template <int Op, typename T>
static void sweep(Shape& s) {
    constexpr int P = 16 / sizeof(T);
    const int64_t packs = s.n / P;
    if constexpr (sizeof(T) == 2) {
#if defined(OPK_F32_EXACT_SWEEP)
        return;  // the fp32 question alone
#elif defined(OPK_EXACT_SWEEP)  // only the library's shapes, general body then exact (2026-11-28)
        if (packs == 512) {  // bf16 4096
            OPK_V(512, 1, 1024, true) OPK_VE(512, 1, 1024, true, false)
            OPK_V(256, 2, 512, true) OPK_VE(256, 2, 512, true, false) OPK_VE(256, 2, 512, true, true)
            OPK_VE(256, 2, 512, false, false) OPK_VE(256, 2, 512, false, true)
            OPK_VS(128, 4, 512, false) OPK_VE(128, 4, 512, false, true)
        } else if (packs == 1024) {  // bf16 8192
            OPK_V(1024, 1, 1024, true) OPK_VE(1024, 1, 1024, true, false)
            OPK_V(512, 2, 512, true) OPK_VE(512, 2, 512, true, false) OPK_VE(512, 2, 512, true, true)
            OPK_VE(512, 2, 512, false, false) OPK_VE(512, 2, 512, false, true)
            OPK_VS(256, 4, 512, false) OPK_VE(256, 4, 512, false, true)
        } else if (packs == 2048) {  // bf16 16384
            OPK_VS(512, 4, 512, false) OPK_VE(512, 4, 512, false, true)
        }
#else
        if (packs == 512) {  // bf16 4096
            OPK_V2(512, 1, 1024, true) OPK_V2(256, 2, 512, true) OPK_V2(256, 2, 512, false)
            OPK_V2(256, 2, 1024, false) OPK_V2(128, 4, 512, false) OPK_V2(128, 4, 512, true)
        } else if (packs == 1024) {  // bf16 8192
            OPK_V2(1024, 1, 1024, true) OPK_V2(512, 2, 512, true) OPK_V2(512, 2, 512, false)
            OPK_V2(512, 2, 1024, false) OPK_V2(256, 4, 512, false) OPK_V2(256, 4, 512, true)
        } else if (packs == 2048) {  // bf16 16384
            OPK_V2(1024, 2, 1024, false) OPK_V2(1024, 2, 1024, true)
            OPK_V2(512, 4, 512, false) OPK_V2(512, 4, 512, true)
        }
#endif
    } else {
#ifdef OPK_EXACT_SWEEP
        return;  // the library takes the exact body for fp32 already
#endif
#ifdef OPK_F32_EXACT_SWEEP  // layer_norm's fp32 backward with register sums (2026-11-28, H200)
        if (packs == 1024) {  // f32 4096
            OPK_VE(512, 2, 1024, false, false) OPK_VE(512, 2, 512, false, false)
            OPK_VE(256, 4, 512, false, false) OPK_VE(256, 4, 512, false, true)
        } else if (packs == 2048) {  // f32 8192
            OPK_VE(1024, 2, 1024, false, false) OPK_VE(512, 4, 512, false, false)
            OPK_VE(512, 4, 512, false, true) OPK_VE(256, 8, 256, false, true)
        }
        return;
#endif
        if (packs == 1024) {  // f32 4096
            OPK_V2(512, 2, 1024, false) OPK_V2(512, 2, 1024, true)
        } else if (packs == 2048) {  // f32 8192
            OPK_V2(1024, 2, 1024, false)
        }
    }
}

template <typename T>
static void sweep_op(int op, Shape& s) {
    if (op == kRms)
        sweep<kRms, T>(s);
    else
        sweep<kLn, T>(s);
}

int main() {
    return experiment_main([](const Buffers& b, int64_t elems) {
        all_shapes<opk_bf16>(b, elems, false, sweep_op<opk_bf16>);
        all_shapes<float>(b, elems, false, sweep_op<float>);
    });
}
