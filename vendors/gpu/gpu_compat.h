// Portability layer for the kernel sources shared by the cuda vendor (nvcc) and a later
// rocm vendor (hipcc). Kernel files include this header instead of a vendor header, so
// the .cu files compile unchanged for both: the half/bfloat16 types, the warp width and
// the shuffles are named here once.
#pragma once

#if defined(__HIP_PLATFORM_AMD__) || defined(__HIPCC__)
#include <hip/hip_bf16.h>
#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>
typedef __half opk_f16;
typedef __hip_bfloat16 opk_bf16;
// CDNA wavefronts are 64 wide; group reductions use this constant, never a literal 32.
#define OPK_WARP_SIZE 64
#define OPK_SHFL_XOR(v, lane_mask, width) __shfl_xor((v), (lane_mask), (width))
#else
#include <cuda_bf16.h>
#include <cuda_fp16.h>
typedef __half opk_f16;
typedef __nv_bfloat16 opk_bf16;
#define OPK_WARP_SIZE 32
#define OPK_SHFL_XOR(v, lane_mask, width) __shfl_xor_sync(0xffffffffu, (v), (lane_mask), (width))
#endif

#include <stdint.h>

// Kernels have C linkage so the host finds them by plain name (cuModuleGetFunction /
// hipModuleGetFunction) without knowing either compiler's mangling.
#define OPK_KERNEL(name, max_threads) extern "C" __global__ void __launch_bounds__(max_threads) name

#define OPK_DEV __device__ __forceinline__

namespace opk {

OPK_DEV float to_f32(float v) { return v; }
OPK_DEV float to_f32(opk_f16 v) { return __half2float(v); }
OPK_DEV float to_f32(opk_bf16 v) { return __bfloat162float(v); }

template <typename T>
OPK_DEV T from_f32(float v);
template <>
OPK_DEV float from_f32<float>(float v) { return v; }
template <>
OPK_DEV opk_f16 from_f32<opk_f16>(float v) { return __float2half_rn(v); }
template <>
OPK_DEV opk_bf16 from_f32<opk_bf16>(float v) { return __float2bfloat16_rn(v); }

// L2 cache hints for a row that is read twice with other traffic in between (the
// streamed rows of softmax, the norms' forwards and cross-entropy): the first pass asks L2 to keep its lines
// (evict_last), the second pass and the stores that follow mark theirs as the first to
// go, so the row's writes do not push its unread part out of L2. Plain accesses where
// the hints do not exist (before sm_80, and on AMD for now).
enum class CacheHint { normal, keep, last_use };

template <CacheHint H>
OPK_DEV uint4 load16(const void* p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if constexpr (H == CacheHint::keep) {
        uint4 v;
        asm volatile(
            "{\n\t.reg .b64 pol;\n\t"
            "createpolicy.fractional.L2::evict_last.b64 pol, 1.0;\n\t"
            "ld.global.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], pol;\n\t}"
            : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
            : "l"(p));
        return v;
    }
    if constexpr (H == CacheHint::last_use) return __ldcs(static_cast<const uint4*>(p));
#endif
    return *static_cast<const uint4*>(p);
}

template <CacheHint H>
OPK_DEV void store16(void* p, const uint4& v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if constexpr (H == CacheHint::last_use) {
        __stcs(static_cast<uint4*>(p), v);
        return;
    }
#endif
    *static_cast<uint4*>(p) = v;
}

}  // namespace opk
