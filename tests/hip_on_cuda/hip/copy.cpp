// HIP-over-CUDA test runtime: copies and fills.
//
// Both platforms have unified addressing, so every hipMemcpyAsync becomes cuMemcpyAsync,
// which infers the direction from the pointers (hipMemcpyDefault means exactly that).
// For the explicit kinds the shim is stricter than either runtime: it checks the
// pointers against the declared direction (cuPointerGetAttribute) and answers
// hipErrorInvalidMemcpyDirection on a mismatch, so a vendor that declares the wrong
// kind is caught here rather than on an AMD machine. A kind outside hipMemcpyKind is
// hipErrorInvalidMemcpyDirection too.
//
// What this cannot prove: AMD's copy engines, staging of pageable memory, or the speed
// of any copy.
#include "device.h"
#include "errors.h"

using hipshim::Driver;
using hipshim::entry;

namespace {

enum class Where { host, device, either };

// Unregistered (pageable) host memory is unknown to the driver: the query fails, which
// means host.
Where where(const Driver* cu, const void* p) noexcept {
    unsigned type = 0;
    const CUdeviceptr addr = reinterpret_cast<CUdeviceptr>(p);
    if (cu->cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, addr) != CUDA_SUCCESS)
        return Where::host;
    if (type == CU_MEMORYTYPE_HOST) return Where::host;
    if (type == CU_MEMORYTYPE_UNIFIED) return Where::either;
    int managed = 0;  // managed memory reports DEVICE but is reachable from both sides
    if (cu->cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, addr) == CUDA_SUCCESS && managed)
        return Where::either;
    return Where::device;
}

bool is(Where w, Where want) noexcept { return w == want || w == Where::either; }

hipError_t check_direction(const Driver* cu, void* dst, const void* src, hipMemcpyKind kind) noexcept {
    switch (kind) {
        case hipMemcpyDefault:
            return hipSuccess;
        case hipMemcpyHostToHost:
            return is(where(cu, dst), Where::host) && is(where(cu, src), Where::host) ? hipSuccess
                                                                                       : hipErrorInvalidMemcpyDirection;
        case hipMemcpyHostToDevice:
            return is(where(cu, dst), Where::device) && is(where(cu, src), Where::host) ? hipSuccess
                                                                                         : hipErrorInvalidMemcpyDirection;
        case hipMemcpyDeviceToHost:
            return is(where(cu, dst), Where::host) && is(where(cu, src), Where::device) ? hipSuccess
                                                                                         : hipErrorInvalidMemcpyDirection;
        case hipMemcpyDeviceToDevice:
            return is(where(cu, dst), Where::device) && is(where(cu, src), Where::device) ? hipSuccess
                                                                                           : hipErrorInvalidMemcpyDirection;
        default:
            return hipErrorInvalidMemcpyDirection;
    }
}

}  // namespace

extern "C" hipError_t hipMemcpyAsync(void* dst, const void* src, size_t sizeBytes, hipMemcpyKind kind,
                                     hipStream_t stream) {
    return entry([&]() -> hipError_t {
        const Driver* cu = nullptr;
        if (hipError_t e = hipshim::enter(&cu)) return e;
        if (sizeBytes == 0) return hipSuccess;
        if (!dst || !src) return hipErrorInvalidValue;
        if (hipError_t e = check_direction(cu, dst, src, kind)) return e;
        return hipshim::from_cu(cu->cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(dst),
                                                  reinterpret_cast<CUdeviceptr>(src), sizeBytes,
                                                  reinterpret_cast<CUstream>(stream)));
    });
}

extern "C" hipError_t hipMemcpyPeerAsync(void* dst, int dstDeviceId, const void* src, int srcDevice,
                                         size_t sizeBytes, hipStream_t stream) {
    return entry([&]() -> hipError_t {
        const Driver* cu = nullptr;
        if (hipError_t e = hipshim::enter(&cu)) return e;
        if (!hipshim::valid_device(dstDeviceId) || !hipshim::valid_device(srcDevice)) return hipErrorInvalidDevice;
        if (sizeBytes == 0) return hipSuccess;
        if (!dst || !src) return hipErrorInvalidValue;
        CUcontext dst_ctx = nullptr;
        CUcontext src_ctx = nullptr;
        if (hipError_t e = hipshim::primary_context(dstDeviceId, &dst_ctx)) return e;
        if (hipError_t e = hipshim::primary_context(srcDevice, &src_ctx)) return e;
        return hipshim::from_cu(cu->cuMemcpyPeerAsync(reinterpret_cast<CUdeviceptr>(dst), dst_ctx,
                                                      reinterpret_cast<CUdeviceptr>(src), src_ctx, sizeBytes,
                                                      reinterpret_cast<CUstream>(stream)));
    });
}

extern "C" hipError_t hipMemsetD8Async(hipDeviceptr_t dest, unsigned char value, size_t count, hipStream_t stream) {
    return entry([&]() -> hipError_t {
        const Driver* cu = nullptr;
        if (hipError_t e = hipshim::enter(&cu)) return e;
        if (count == 0) return hipSuccess;
        if (!dest) return hipErrorInvalidValue;
        return hipshim::from_cu(cu->cuMemsetD8Async(reinterpret_cast<CUdeviceptr>(dest), value, count,
                                                    reinterpret_cast<CUstream>(stream)));
    });
}

extern "C" hipError_t hipMemsetD32Async(hipDeviceptr_t dst, int value, size_t count, hipStream_t stream) {
    return entry([&]() -> hipError_t {
        const Driver* cu = nullptr;
        if (hipError_t e = hipshim::enter(&cu)) return e;
        if (count == 0) return hipSuccess;
        if (!dst) return hipErrorInvalidValue;
        return hipshim::from_cu(cu->cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(dst), unsigned(value), count,
                                                     reinterpret_cast<CUstream>(stream)));
    });
}
