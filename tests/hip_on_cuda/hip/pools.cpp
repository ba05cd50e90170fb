// HIP-over-CUDA test runtime: memory pools.
//
// hipMemPoolProps and CUmemPoolProps are different structs (CUDA added maxSize and usage
// where HIP 5.2 has a 64-byte reserved block), so the properties are copied field by
// field. The enum values happen to agree today (pinned = 1, device location = 1, handle
// type bits 1/2/4, and hipMemPoolAttr 1..8 in CUDA's order, release threshold = 4), but
// each is still translated by name in a switch: an AMD value CUDA lacks is rejected
// instead of passed through. HIP requires the reserved bytes to be zero; a caller that
// leaves them uninitialized is told so (hipErrorInvalidValue).
//
// What this cannot prove: how AMD's pools trim or reuse memory.
#include "device.h"
#include "errors.h"

using hipshim::Driver;
using hipshim::entry;

namespace {

bool to_cu(hipMemPoolAttr a, CUmemPool_attribute* out) noexcept {
    switch (a) {
        case hipMemPoolReuseFollowEventDependencies: *out = CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES; return true;
        case hipMemPoolReuseAllowOpportunistic: *out = CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC; return true;
        case hipMemPoolReuseAllowInternalDependencies: *out = CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES; return true;
        case hipMemPoolAttrReleaseThreshold: *out = CU_MEMPOOL_ATTR_RELEASE_THRESHOLD; return true;
        case hipMemPoolAttrReservedMemCurrent: *out = CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT; return true;
        case hipMemPoolAttrReservedMemHigh: *out = CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH; return true;
        case hipMemPoolAttrUsedMemCurrent: *out = CU_MEMPOOL_ATTR_USED_MEM_CURRENT; return true;
        case hipMemPoolAttrUsedMemHigh: *out = CU_MEMPOOL_ATTR_USED_MEM_HIGH; return true;
        default: return false;
    }
}

// The handle-type bitmask, bit by bit.
bool to_cu(unsigned hip_bits, unsigned* out) noexcept {
    unsigned cu_bits = 0;
    if (hip_bits & hipMemHandleTypePosixFileDescriptor) cu_bits |= CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    if (hip_bits & hipMemHandleTypeWin32) cu_bits |= CU_MEM_HANDLE_TYPE_WIN32;
    if (hip_bits & hipMemHandleTypeWin32Kmt) cu_bits |= CU_MEM_HANDLE_TYPE_WIN32_KMT;
    const unsigned known = hipMemHandleTypePosixFileDescriptor | hipMemHandleTypeWin32 | hipMemHandleTypeWin32Kmt;
    *out = cu_bits;
    return (hip_bits & ~known) == 0;
}

hipError_t to_cu(const hipMemPoolProps& p, CUmemPoolProps* out) noexcept {
    *out = CUmemPoolProps{};
    if (p.allocType != hipMemAllocationTypePinned) return hipErrorInvalidValue;
    out->allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    unsigned handles = 0;
    if (!to_cu(unsigned(p.handleTypes), &handles)) return hipErrorInvalidValue;
    out->handleTypes = CUmemAllocationHandleType(handles);
    if (p.location.type != hipMemLocationTypeDevice) return hipErrorInvalidValue;
    if (!hipshim::valid_device(p.location.id)) return hipErrorInvalidDevice;
    out->location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    out->location.id = int(hipshim::cu_device(p.location.id));
    out->win32SecurityAttributes = p.win32SecurityAttributes;
    for (unsigned char b : p.reserved)
        if (b != 0) return hipErrorInvalidValue;
    return hipSuccess;
}

}  // namespace

extern "C" hipError_t hipMemPoolCreate(hipMemPool_t* mem_pool, const hipMemPoolProps* pool_props) {
    return entry([&]() -> hipError_t {
        if (!mem_pool || !pool_props) return hipErrorInvalidValue;
        const Driver* cu = nullptr;
        if (hipError_t e = hipshim::enter(&cu)) return e;
        CUmemPoolProps props;
        if (hipError_t e = to_cu(*pool_props, &props)) return e;
        CUmemoryPool pool = nullptr;
        if (CUresult r = cu->cuMemPoolCreate(&pool, &props)) return hipshim::from_cu(r);
        *mem_pool = reinterpret_cast<hipMemPool_t>(pool);
        return hipSuccess;
    });
}

extern "C" hipError_t hipMemPoolDestroy(hipMemPool_t mem_pool) {
    return entry([&]() -> hipError_t {
        const Driver* cu = nullptr;
        if (hipError_t e = hipshim::enter(&cu)) return e;
        if (!mem_pool) return hipErrorInvalidValue;
        return hipshim::from_cu(cu->cuMemPoolDestroy(reinterpret_cast<CUmemoryPool>(mem_pool)));
    });
}

// The value's type follows the attribute, as in CUDA: int for the reuse flags, uint64_t
// for the byte counts (the release threshold).
extern "C" hipError_t hipMemPoolSetAttribute(hipMemPool_t mem_pool, hipMemPoolAttr attr, void* value) {
    return entry([&]() -> hipError_t {
        const Driver* cu = nullptr;
        if (hipError_t e = hipshim::enter(&cu)) return e;
        if (!mem_pool || !value) return hipErrorInvalidValue;
        CUmemPool_attribute a{};
        if (!to_cu(attr, &a)) return hipErrorInvalidValue;
        return hipshim::from_cu(cu->cuMemPoolSetAttribute(reinterpret_cast<CUmemoryPool>(mem_pool), a, value));
    });
}
