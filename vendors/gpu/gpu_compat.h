// Portability layer for the kernel sources shared by the cuda vendor (nvcc) and a later
// rocm vendor (hipcc / clang -x hip). Kernel files include this header instead of a vendor
// header, so the .cu files compile unchanged for both: the half/bfloat16 types, the warp
// width, the shuffles and the launch bounds are named here once. docs/gpu-kernels-portability.md
// explains each choice; ../shared/reference/rocm.md has the measurements behind them.
//
// Rules for code under vendors/gpu (the reasons are in the doc):
// - OPK_WARP_SIZE is the width of the target being compiled, a device-side constant. Host
//   code never uses it: it queries the device (warpSize 32 or 64) and rounds block sizes
//   to that.
// - Register-resident data is never reached through a type-punned local array (no
//   `alignas(16) T t[P]` accessed as a uint4): AMDGPU moves such arrays to LDS or scratch.
//   16-byte packs are uint4 values whose 32-bit words are split and built with shifts
//   (rows.cuh: unpack, pack_of); scalars change type through memcpy or __float_as_uint.
// - Two-argument launch bounds are spelled OPK_BOUNDS_RESIDENT, never __launch_bounds__(a, b),
//   whose second argument means blocks per SM to nvcc and waves per EU to hipcc.
// - A loop over rows, positions or stream steps takes the thread's place in them through
//   per_iteration (per_row for a row Span): on AMD, values derived from it are otherwise
//   hoisted out of the loop for every pack and spill (docs/rocm-code-objects.md §5).
#pragma once

#include <stdint.h>
#include <string.h>

#if defined(__HIP_PLATFORM_AMD__) || defined(__HIPCC__)
#define OPK_HIP 1
#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>
typedef __half opk_f16;
#if __has_include(<hip/hip_bf16.h>)
// ROCm 6 and later (the header appeared after 5.x).
#include <hip/hip_bf16.h>
typedef __hip_bfloat16 opk_bf16;
#define OPK_BF16_NATIVE 1
#else
// HIP 5.2 (Debian 12) has only hip_bfloat16.h, whose host/device class is not the type
// the kernels want: a 2-byte value with the conversions below (opk::to_f32 / from_f32).
struct opk_bf16 {
    unsigned short bits;
};
#define OPK_BF16_NATIVE 0
#endif

// The wavefront width of the target being compiled, from the target's generation: GFX9
// (CDNA: gfx908, gfx90a, gfx94x) and GFX8 run wave64; RDNA (gfx10 and later) runs wave32,
// the only width HIP supports there. Never __AMDGCN_WAVEFRONT_SIZE (deprecated in ROCm
// 6.3, an error from ROCm 7.2) and never warpSize (not constexpr from ROCm 7).
// The host pass of a HIP compile defines no __GFXn__ and gets 32: it only parses the
// device code (nothing in it runs with this value), and the host side queries the width.
#if defined(__GFX9__) || defined(__GFX8__)
#define OPK_WARP_SIZE 64
#else
#define OPK_WARP_SIZE 32
#endif
#if defined(__HIP_DEVICE_COMPILE__) && (defined(__GFX6__) || defined(__GFX7__))
#error "opkit kernels: GFX6/GFX7 (wave64, not supported by ROCm) are not a target"
#endif
#define OPK_SHFL_XOR(v, lane_mask, width) __shfl_xor((v), (lane_mask), (width))

// At most max_threads per block, and the compiler should plan registers so that
// resident_threads threads fit on one CU. hipcc reads __launch_bounds__'s second argument
// as waves per EU (SIMD), not blocks per SM, so the intent is spelled out: a CU has 4
// SIMDs (CDNA; an RDNA work-group processor, where HIP work-groups run by default, too),
// so resident_threads / width / 4 waves per SIMD.
#if defined(__HIP_DEVICE_COMPILE__)
// VGPRs per lane in one SIMD's register file, which the waves on that SIMD share: 512 on
// CDNA2/3 (ArchVGPRs and AGPRs in one file), 1024 on RDNA in wave32, 256 on GCN5 and
// CDNA1 (gfx908's 256 AGPRs come on top and take spills). docs/rocm-code-objects.md.
#if defined(__gfx90a__) || defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__) || \
    defined(__gfx950__)
#define OPK_AMD_VGPR_FILE 512
#elif OPK_WARP_SIZE == 32
#define OPK_AMD_VGPR_FILE 1024
#else
#define OPK_AMD_VGPR_FILE 256
#endif
// Resident threads per CU that leave each thread `vgprs` VGPRs (4 SIMDs a CU).
#define OPK_AMD_RESIDENT_FOR_VGPRS(vgprs) (OPK_AMD_VGPR_FILE / (vgprs) * OPK_WARP_SIZE * 4)
// 1 where a 1024-thread block leaves a thread 64 VGPRs, as NVIDIA's 64 registers but with
// LLVM's appetite for them: the kernels keep fewer loads in flight there (rows.cuh).
#define OPK_SMALL_VGPR_FILE (OPK_AMD_VGPR_FILE == 256)
#define OPK_WAVES_PER_EU(resident_threads) \
    ((resident_threads) / (OPK_WARP_SIZE * 4) > 0 ? (resident_threads) / (OPK_WARP_SIZE * 4) : 1)
#define OPK_BOUNDS_RESIDENT(max_threads, resident_threads)     \
    __attribute__((amdgpu_flat_work_group_size(1, max_threads), \
                   amdgpu_waves_per_eu(OPK_WAVES_PER_EU(resident_threads))))
// Bounds for kernels built for another occupancy on AMD than on NVIDIA (the register
// files differ: softmax's one-pack backward and rms_norm's twice forwards at 2048 resident
// threads on NVIDIA, 1024 a CU here; layer_norm's params forward at 1024 there, 512 here).
#define OPK_BOUNDS_RESIDENT_NV_AMD(max_threads, nv_resident, amd_resident) \
    OPK_BOUNDS_RESIDENT(max_threads, amd_resident)
#else
#define OPK_BOUNDS_RESIDENT(max_threads, resident_threads) __launch_bounds__(max_threads)
#define OPK_SMALL_VGPR_FILE 0
#endif
// AMD: the bounds (the register cap is NVIDIA's; the CUDA branch below says why).
#define OPK_BOUNDS_NV_REGS(max_threads, resident_threads, nv_registers) \
    OPK_BOUNDS_RESIDENT(max_threads, resident_threads)
// 16-byte packs built from words, never punned local arrays (rows.cuh says why), and loops
// that must stay rolled for the smaller code that gives (OPK_AMD_NO_UNROLL).
#define OPK_WORD_PACKS 1
#define OPK_AMD_NO_UNROLL _Pragma("unroll 1")
// Per-element tests of a pack against a pack count, not 64-bit element indices (rows.cuh,
// pack_count says why).
#define OPK_PACK_COUNTS 1
// Row loops recompute per-pack positions for each row (rows.cuh, per_row says why).
#define OPK_ROW_REMAT 1

#else  // CUDA
#include <cuda_bf16.h>
#include <cuda_fp16.h>
typedef __half opk_f16;
typedef __nv_bfloat16 opk_bf16;
#define OPK_BF16_NATIVE 1
#define OPK_WARP_SIZE 32
#define OPK_SHFL_XOR(v, lane_mask, width) __shfl_xor_sync(0xffffffffu, (v), (lane_mask), (width))
// resident_threads per SM = resident_threads / max_threads blocks of the largest size.
#define OPK_BOUNDS_RESIDENT(max_threads, resident_threads) \
    __launch_bounds__((max_threads), (resident_threads) / (max_threads))
#define OPK_BOUNDS_RESIDENT_NV_AMD(max_threads, nv_resident, amd_resident) \
    OPK_BOUNDS_RESIDENT(max_threads, nv_resident)
// At most nv_registers registers a thread, whatever the block (at most 1024 threads): for
// an occupancy between the blocks-per-SM steps that __launch_bounds__ can ask for (nvcc
// takes one or the other on a kernel, not both). AMD takes the bounds, and so does nvcc
// before 12.4, which has no __maxnreg__ (the kernels are then as fast as before the cap).
#if defined(__CUDACC_VER_MAJOR__) && (__CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 4))
#define OPK_BOUNDS_NV_REGS(max_threads, resident_threads, nv_registers) __maxnreg__(nv_registers)
#else
#define OPK_BOUNDS_NV_REGS(max_threads, resident_threads, nv_registers) \
    OPK_BOUNDS_RESIDENT(max_threads, resident_threads)
#endif
#define OPK_SMALL_VGPR_FILE 0
#define OPK_WORD_PACKS 0
#define OPK_AMD_NO_UNROLL
#define OPK_PACK_COUNTS 0
#define OPK_ROW_REMAT 0
#endif

// 1 where thread-block clusters and cp.async exist: nvcc's sm_90+ machine code, and its
// host pass (which declares the kernels). The kernels that need them (cross-entropy's
// stash forwards and the norm backwards' stash kernels, stash_rows.cuh) are not built for HIP or older NVIDIA targets, and the
// host launches them only on devices that report cluster launch (DeviceAttributes).
#if !defined(OPK_HIP) && (!defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900)
#define OPK_CLUSTERS 1
#else
#define OPK_CLUSTERS 0
#endif

namespace opk {
// v, as the loop iteration that calls this sees it. On AMD (OPK_ROW_REMAT) an empty asm
// that claims to change v hides from the optimizer that v is the same in every iteration,
// so what a loop derives from it (per-thread element indices, addresses, bounds masks) is
// recomputed in each iteration instead of being hoisted out of the loop and kept live
// across all of it: LLVM's loop-invariant code motion did that for every pack a thread
// handles, and the kernels spilled (cross-entropy) or took 256 VGPRs (rope). A few integer
// operations per iteration cost far less than scratch traffic or lost occupancy. On
// NVIDIA it is v.
template <typename T>
__device__ __forceinline__ T per_iteration(T v) {
#if OPK_ROW_REMAT
    asm volatile("" : "+v"(v));
#endif
    return v;
}
// No instruction: claims to change a raw 16-byte pack, so that what the compiler derived
// from it before this point (its unpacked floats) cannot be reused after it and is derived
// again. For a kernel that keeps raw packs across a barrier and unpacks them on both sides:
// nvcc otherwise kept the floats, twice the registers (opk_softmax_bwd_block_row: 64
// registers and 36 bytes of spills at four packs of dy and y a thread, 63 and none with it).
__device__ __forceinline__ void refresh_pack(uint4& p) {
#if defined(__CUDA_ARCH__)
    asm volatile("" : "+r"(p.x), "+r"(p.y), "+r"(p.z), "+r"(p.w));
#elif defined(__HIP_DEVICE_COMPILE__)
    asm volatile("" : "+v"(p.x), "+v"(p.y), "+v"(p.z), "+v"(p.w));
#endif
}
// No instruction: keeps the compiler from moving memory accesses across this point. For a
// load that must happen before stores of another type to the same bytes (type-based alias
// analysis would let the compiler assume they cannot overlap).
__device__ __forceinline__ void compiler_fence() { asm volatile("" ::: "memory"); }
}  // namespace opk

// Kernels have C linkage so the host finds them by plain name (cuModuleGetFunction /
// hipModuleGetFunction) without knowing either compiler's mangling. One launch-bound
// argument means the same on both compilers.
#define OPK_KERNEL(name, max_threads) extern "C" __global__ void __launch_bounds__(max_threads) name

#define OPK_DEV __device__ __forceinline__

namespace opk {

// 2^x from the hardware's approximate exp2 alone: relative error about 2^-22, a result
// below 2^-126 flushed to 0 (and 2^-inf = 0), for values computed from 2-byte inputs,
// whose resolution is 2^-8 (bf16) or 2^-11 (f16). The flush is an absolute error below
// 1.2e-38, which bf16 could hold (softmax of [0, -88] is 6e-39 on the CPU, 0 here): within
// every tolerance's absolute term. Without fast math nvcc wraps the same MUFU.EX2 of
// exp2f in a denormal guard of six more instructions, mostly on the ALU pipe, which Nsight
// Compute found to be the busiest pipe of the softmax and cross-entropy kernels
// (docs/PERFORMANCE.md, 2026-11-27). On AMD the builtin is v_exp_f32 where the compiler
// has it (not Debian's clang 15); exp2f elsewhere.
OPK_DEV float exp2_approx(float x) {
#if defined(__CUDA_ARCH__)
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
#elif defined(__HIP_DEVICE_COMPILE__) && defined(__has_builtin)
#if __has_builtin(__builtin_amdgcn_exp2f)
    return __builtin_amdgcn_exp2f(x);
#else
    return exp2f(x);
#endif
#else
    return exp2f(x);
#endif
}

// A kernel the host launches with launch_dependent (device.h) may start while the
// stream's previous grid drains: it calls this before it reads anything that grid wrote.
// Waits until that grid has finished and its writes are visible (griddepcontrol.wait,
// sm_90+); returns at once after a plain launch, and is nothing on HIP and older NVIDIA
// targets, where every launch waits for the previous grid anyway.
OPK_DEV void wait_for_prior_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// Lets the kernel the host launches next with launch_dependent be scheduled as this one's
// blocks leave, before the whole grid has finished (griddepcontrol.launch_dependents,
// sm_90+; nothing elsewhere). Without it that happens when every block has exited. What
// this grid writes after it stays safe: the next kernel's wait_for_prior_grid waits for
// the whole grid and its writes either way.
OPK_DEV void allow_dependent_launch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// The bits of a scalar as the low bits of a 32-bit word, and back (memcpy: no punning).
OPK_DEV uint32_t bits_of(float v) { return __float_as_uint(v); }
template <typename T>
OPK_DEV uint32_t bits_of(T v) {
    static_assert(sizeof(T) == 2, "bits_of: 2- or 4-byte scalars");
    unsigned short b;
    memcpy(&b, &v, 2);
    return b;
}
template <typename T>
OPK_DEV T from_bits(uint32_t b) {
    if constexpr (sizeof(T) == 4) {
        return __uint_as_float(b);
    } else {
        const unsigned short s = (unsigned short)b;
        T v;
        memcpy(&v, &s, 2);
        return v;
    }
}

// bfloat16 <-> fp32 on the bits: bf16 is the top half of an fp32. To bf16: round to
// nearest even; a NaN keeps its sign and top payload bits with the quiet bit set.
OPK_DEV float bf16_bits_to_f32(uint32_t b) { return __uint_as_float(b << 16); }
OPK_DEV uint32_t f32_to_bf16_bits(float v) {
    const uint32_t u = __float_as_uint(v);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (u >> 16) | 0x40u;
    return (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
}

OPK_DEV float to_f32(float v) { return v; }
OPK_DEV float to_f32(opk_f16 v) { return __half2float(v); }
#if OPK_BF16_NATIVE
OPK_DEV float to_f32(opk_bf16 v) { return __bfloat162float(v); }
#else
OPK_DEV float to_f32(opk_bf16 v) { return bf16_bits_to_f32(v.bits); }
#endif

template <typename T>
OPK_DEV T from_f32(float v);
template <>
OPK_DEV float from_f32<float>(float v) { return v; }
template <>
OPK_DEV opk_f16 from_f32<opk_f16>(float v) { return __float2half_rn(v); }
template <>
#if OPK_BF16_NATIVE
OPK_DEV opk_bf16 from_f32<opk_bf16>(float v) { return __float2bfloat16_rn(v); }
#else
OPK_DEV opk_bf16 from_f32<opk_bf16>(float v) { return opk_bf16{(unsigned short)f32_to_bf16_bits(v)}; }
#endif

// The two 2-byte elements of one 32-bit word (element 2i in the low half, 2i + 1 in the
// high half) as fp32, and back with round to nearest even. Paired conversions keep a raw
// pack in 4 registers whatever T (per-element 16-bit values would take a register each).
OPK_DEV float2 word_to_f32(uint32_t w, opk_bf16) {
    return make_float2(__uint_as_float(w << 16), __uint_as_float(w & 0xffff0000u));
}
OPK_DEV float2 word_to_f32(uint32_t w, opk_f16) {
    return make_float2(__half2float(from_bits<opk_f16>(w & 0xffffu)), __half2float(from_bits<opk_f16>(w >> 16)));
}
OPK_DEV uint32_t f32_to_word(float lo, float hi, opk_bf16) {
#if defined(OPK_HIP)
    return bits_of(from_f32<opk_bf16>(lo)) | (bits_of(from_f32<opk_bf16>(hi)) << 16);
#else
    const __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);  // one packed conversion
    uint32_t w;
    memcpy(&w, &h, 4);
    return w;
#endif
}
OPK_DEV uint32_t f32_to_word(float lo, float hi, opk_f16) {
    const __half2 h = __floats2half2_rn(lo, hi);
    uint32_t w;
    memcpy(&w, &h, 4);
    return w;
}

// L2 cache hints for a row that is read twice with other traffic in between (the
// streamed rows of softmax, the norms' forwards and cross-entropy): the first pass asks L2 to keep its lines
// (evict_last), the second pass and the stores that follow mark theirs as the first to
// go, so the row's writes do not push its unread part out of L2. Plain accesses where
// the hints do not exist (before sm_80, and on AMD for now). keep_l1 / last_use_l1 are the
// same two hints given to L1 as well (L1::evict_last, then L1::evict_first with L2's
// evict_first policy), as Inductor's fp32 rms_norm forward asks: they won only where a
// block's row is 32 KB and two rows share an SM (rms_norm's fp32 rows of 8192, 0.995 of the
// time; 0.999-1.001 on the other fp32 rows, 1.005 slower on bf16 rows of 8192; kernel_params.h,
// kRmsFwdTwiceResident).
enum class CacheHint { normal, keep, last_use, keep_l1, last_use_l1 };

template <CacheHint H>
OPK_DEV uint4 load16(const void* p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
// One 16-byte load under an L2 eviction policy (L2: evict_last or evict_first) with an L1
// qualifier (L1: "" or ".L1::evict_last" / ".L1::evict_first"). PTX text must be a literal,
// hence a macro rather than a template; it exists for load16 alone.
#define OPK_LOAD16_POLICY(v, p, L2, L1)                                                  \
    asm volatile("{\n\t.reg .b64 pol;\n\t"                                              \
                 "createpolicy.fractional.L2::" L2 ".b64 pol, 1.0;\n\t"                  \
                 "ld.global" L1 ".L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], pol;\n\t}" \
                 : "=r"((v).x), "=r"((v).y), "=r"((v).z), "=r"((v).w)                     \
                 : "l"(p))
    if constexpr (H == CacheHint::last_use) {
        return __ldcs(static_cast<const uint4*>(p));
    } else if constexpr (H != CacheHint::normal) {
        uint4 v;
        if constexpr (H == CacheHint::keep)
            OPK_LOAD16_POLICY(v, p, "evict_last", "");
        else if constexpr (H == CacheHint::keep_l1)
            OPK_LOAD16_POLICY(v, p, "evict_last", ".L1::evict_last");
        else if constexpr (H == CacheHint::last_use_l1)
            OPK_LOAD16_POLICY(v, p, "evict_first", ".L1::evict_first");
        else
            static_assert(H == CacheHint::normal, "load16: a CacheHint without its load");
        return v;
    }
#undef OPK_LOAD16_POLICY
#endif
    return *static_cast<const uint4*>(p);
}

// Stores take normal, keep (a plain store) or last_use; the L1 hints are the loads' alone.
template <CacheHint H>
OPK_DEV void store16(void* p, const uint4& v) {
    static_assert(H != CacheHint::keep_l1 && H != CacheHint::last_use_l1, "store16: the L1 hints are for loads");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if constexpr (H == CacheHint::last_use) {
        __stcs(static_cast<uint4*>(p), v);
        return;
    }
#endif
    *static_cast<uint4*>(p) = v;
}

}  // namespace opk
