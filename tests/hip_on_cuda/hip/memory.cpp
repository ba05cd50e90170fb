// HIP-over-CUDA test runtime: device allocation (plain and stream-ordered).
//
// hipDeviceptr_t and the void* of hipMalloc are CUdeviceptr values (unified addressing).
// HIP differences from the driver API that are reproduced: a zero-byte allocation
// succeeds with NULL (cuMemAlloc rejects size 0), hipFree(NULL) and hipFreeAsync(NULL)
// succeed, and a failed allocation leaves *ptr NULL. An impossible size (1 PiB) is
// CUDA_ERROR_OUT_OF_MEMORY = hipErrorOutOfMemory (2).
//
// What this cannot prove: AMD's allocator (fine/coarse-grained memory, its pool
// trimming and its out-of-memory behaviour near the limit).
#include "device.h"
#include "errors.h"

using hipshim::Driver;
using hipshim::entry;

namespace {

// Takes the address of the pointer the allocation wrote, not its value: the call and the
// read of `p` must not be arguments of one call, whose evaluation order C++ leaves open
// (GCC read p before the allocation ran, and every pointer came back NULL).
hipError_t finish_alloc(CUresult r, const CUdeviceptr* p, void** ptr) noexcept {
    *ptr = r == CUDA_SUCCESS ? reinterpret_cast<void*>(*p) : nullptr;
    return hipshim::from_cu(r);
}

}  // namespace

extern "C" hipError_t hipMalloc(void** ptr, size_t size) {
    return entry([&]() -> hipError_t {
        if (!ptr) return hipErrorInvalidValue;
        const Driver* cu = nullptr;
        if (hipError_t e = hipshim::enter(&cu)) return e;
        *ptr = nullptr;
        if (size == 0) return hipSuccess;
        CUdeviceptr p = 0;
        const CUresult r = cu->cuMemAlloc(&p, size);
        return finish_alloc(r, &p, ptr);
    });
}

extern "C" hipError_t hipFree(void* ptr) {
    return entry([&]() -> hipError_t {
        const Driver* cu = nullptr;
        if (hipError_t e = hipshim::enter(&cu)) return e;
        if (!ptr) return hipSuccess;
        return hipshim::from_cu(cu->cuMemFree(reinterpret_cast<CUdeviceptr>(ptr)));
    });
}

extern "C" hipError_t hipMallocAsync(void** dev_ptr, size_t size, hipStream_t stream) {
    return entry([&]() -> hipError_t {
        if (!dev_ptr) return hipErrorInvalidValue;
        const Driver* cu = nullptr;
        if (hipError_t e = hipshim::enter(&cu)) return e;
        *dev_ptr = nullptr;
        if (size == 0) return hipSuccess;
        CUdeviceptr p = 0;
        const CUresult r = cu->cuMemAllocAsync(&p, size, reinterpret_cast<CUstream>(stream));
        return finish_alloc(r, &p, dev_ptr);
    });
}

extern "C" hipError_t hipFreeAsync(void* dev_ptr, hipStream_t stream) {
    return entry([&]() -> hipError_t {
        const Driver* cu = nullptr;
        if (hipError_t e = hipshim::enter(&cu)) return e;
        if (!dev_ptr) return hipSuccess;
        return hipshim::from_cu(
            cu->cuMemFreeAsync(reinterpret_cast<CUdeviceptr>(dev_ptr), reinterpret_cast<CUstream>(stream)));
    });
}

extern "C" hipError_t hipMallocFromPoolAsync(void** dev_ptr, size_t size, hipMemPool_t mem_pool,
                                             hipStream_t stream) {
    return entry([&]() -> hipError_t {
        if (!dev_ptr || !mem_pool) return hipErrorInvalidValue;
        const Driver* cu = nullptr;
        if (hipError_t e = hipshim::enter(&cu)) return e;
        *dev_ptr = nullptr;
        if (size == 0) return hipSuccess;
        CUdeviceptr p = 0;
        const CUresult r = cu->cuMemAllocFromPoolAsync(&p, size, reinterpret_cast<CUmemoryPool>(mem_pool),
                                                       reinterpret_cast<CUstream>(stream));
        return finish_alloc(r, &p, dev_ptr);
    });
}
