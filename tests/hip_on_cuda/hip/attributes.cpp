// HIP-over-CUDA test runtime: hipDeviceGetAttribute and hipGetDeviceProperties.
//
// hipDeviceAttribute_t is AMD's own sequential enum (WarpSize = 87, MultiprocessorCount
// = 63, L2CacheSize = 19, MaxSharedMemoryPerBlock = 74, ...), unrelated to
// CUdevice_attribute, so every attribute is translated by name in a switch. Only the
// attributes a driver-style vendor asks for (plus a few plain ones with an exact CUDA
// counterpart) are mapped; anything else is hipErrorInvalidValue, so a vendor asking for
// something the shim has not thought about fails loudly instead of reading a wrong
// number.
//
// The values are the NVIDIA device's: warpSize is 32 (the RDNA case; CDNA is 64),
// MaxSharedMemoryPerBlock is the 48 KiB usable without opt-in (AMD: 64 KiB). gcnArchName
// is "sm_<major><minor>" (e.g. "sm_90"), because the test build of the vendor embeds nvcc
// images for such targets and compares the name with them.
//
// What this cannot prove: any AMD value. A vendor that works with warpSize 32 here still
// has to be right for wave64 (CDNA, GCN), 64 KiB LDS and AMD's CU counts; only the
// compile-time metadata gate and a real AMD run show that.
#include "device.h"
#include "errors.h"

#include <cstdio>
#include <cstring>

namespace hipshim {
namespace {

bool to_cu(hipDeviceAttribute_t a, CUdevice_attribute* out) noexcept {
    switch (a) {
        case hipDeviceAttributeMaxThreadsPerBlock: *out = CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK; return true;
        case hipDeviceAttributeWarpSize: *out = CU_DEVICE_ATTRIBUTE_WARP_SIZE; return true;
        case hipDeviceAttributeMultiprocessorCount: *out = CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT; return true;
        case hipDeviceAttributeL2CacheSize: *out = CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE; return true;
        case hipDeviceAttributeMaxSharedMemoryPerBlock: *out = CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK; return true;
        case hipDeviceAttributeSharedMemPerBlockOptin: *out = CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN; return true;
        // AMD has two names for the per-multiprocessor LDS size (one AMD-specific, 10002).
        case hipDeviceAttributeMaxSharedMemoryPerMultiprocessor:
        case hipDeviceAttributeSharedMemPerMultiprocessor:
            *out = CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR; return true;
        case hipDeviceAttributeMaxThreadsPerMultiProcessor: *out = CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR; return true;
        case hipDeviceAttributeComputeCapabilityMajor: *out = CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR; return true;
        case hipDeviceAttributeComputeCapabilityMinor: *out = CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR; return true;
        case hipDeviceAttributeMemoryPoolsSupported: *out = CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED; return true;
        case hipDeviceAttributeMaxGridDimX: *out = CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X; return true;
        case hipDeviceAttributeMaxGridDimY: *out = CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y; return true;
        case hipDeviceAttributeMaxGridDimZ: *out = CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z; return true;
        case hipDeviceAttributeMaxBlockDimX: *out = CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X; return true;
        case hipDeviceAttributeMaxBlockDimY: *out = CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y; return true;
        case hipDeviceAttributeMaxBlockDimZ: *out = CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z; return true;
        case hipDeviceAttributeMaxRegistersPerMultiprocessor: *out = CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR; return true;
        case hipDeviceAttributeMaxRegistersPerBlock: *out = CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK; return true;
        case hipDeviceAttributeMaxBlocksPerMultiProcessor: *out = CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR; return true;
        case hipDeviceAttributeConcurrentKernels: *out = CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS; return true;
        case hipDeviceAttributeUnifiedAddressing: *out = CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING; return true;
        case hipDeviceAttributeIntegrated: *out = CU_DEVICE_ATTRIBUTE_INTEGRATED; return true;
        case hipDeviceAttributeManagedMemory: *out = CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY; return true;
        case hipDeviceAttributeEccEnabled: *out = CU_DEVICE_ATTRIBUTE_ECC_ENABLED; return true;
        case hipDeviceAttributeMemoryBusWidth: *out = CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH; return true;
        case hipDeviceAttributePciBusId: *out = CU_DEVICE_ATTRIBUTE_PCI_BUS_ID; return true;
        case hipDeviceAttributePciDeviceId: *out = CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID; return true;
        case hipDeviceAttributePciDomainID: *out = CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID; return true;
        default: return false;
    }
}

// One attribute into *out; a failed query leaves *out as it was (properties are best
// effort beyond the fields the vendor reads).
void query(const Driver* cu, CUdevice dev, CUdevice_attribute a, int* out) noexcept {
    int v = 0;
    if (cu->cuDeviceGetAttribute(&v, a, dev) == CUDA_SUCCESS) *out = v;
}

}  // namespace
}  // namespace hipshim

using hipshim::Driver;
using hipshim::entry;

extern "C" hipError_t hipDeviceGetAttribute(int* pi, hipDeviceAttribute_t attr, int deviceId) {
    return entry([&]() -> hipError_t {
        if (!pi) return hipErrorInvalidValue;
        const Driver* cu = nullptr;
        if (hipError_t e = hipshim::runtime_or_invalid_device(&cu)) return e;
        if (!hipshim::valid_device(deviceId)) return hipErrorInvalidDevice;
        CUdevice_attribute a{};
        if (!hipshim::to_cu(attr, &a)) return hipErrorInvalidValue;
        return hipshim::from_cu(cu->cuDeviceGetAttribute(pi, a, hipshim::cu_device(deviceId)));
    });
}

// Fills the fields with a CUDA counterpart; the AMD-only ones (arch flags, HDP
// registers, asicRevision, ...) stay zero. name, totalGlobalMem, major/minor and
// gcnArchName are required: a failure there fails the call.
extern "C" hipError_t hipGetDeviceProperties(hipDeviceProp_t* prop, int deviceId) {
    return entry([&]() -> hipError_t {
        if (!prop) return hipErrorInvalidValue;
        const Driver* cu = nullptr;
        if (hipError_t e = hipshim::runtime_or_invalid_device(&cu)) return e;
        if (!hipshim::valid_device(deviceId)) return hipErrorInvalidDevice;
        const CUdevice dev = hipshim::cu_device(deviceId);
        std::memset(prop, 0, sizeof *prop);
        if (CUresult r = cu->cuDeviceGetName(prop->name, int(sizeof prop->name), dev)) return hipshim::from_cu(r);
        size_t bytes = 0;
        if (CUresult r = cu->cuDeviceTotalMem(&bytes, dev)) return hipshim::from_cu(r);
        prop->totalGlobalMem = bytes;
        if (CUresult r = cu->cuDeviceGetAttribute(&prop->major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev))
            return hipshim::from_cu(r);
        if (CUresult r = cu->cuDeviceGetAttribute(&prop->minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev))
            return hipshim::from_cu(r);
        std::snprintf(prop->gcnArchName, sizeof prop->gcnArchName, "sm_%d%d", prop->major, prop->minor);
        prop->gcnArch = prop->major * 10 + prop->minor;  // deprecated numeric form, e.g. 90

        int v = 0;
        using hipshim::query;
        query(cu, dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, &v);
        prop->sharedMemPerBlock = size_t(v);
        query(cu, dev, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, &prop->regsPerBlock);
        query(cu, dev, CU_DEVICE_ATTRIBUTE_WARP_SIZE, &prop->warpSize);
        query(cu, dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &prop->maxThreadsPerBlock);
        query(cu, dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, &prop->maxThreadsDim[0]);
        query(cu, dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, &prop->maxThreadsDim[1]);
        query(cu, dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, &prop->maxThreadsDim[2]);
        query(cu, dev, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, &prop->maxGridSize[0]);
        query(cu, dev, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, &prop->maxGridSize[1]);
        query(cu, dev, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, &prop->maxGridSize[2]);
        query(cu, dev, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, &prop->clockRate);
        query(cu, dev, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, &prop->memoryClockRate);
        query(cu, dev, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, &prop->memoryBusWidth);
        v = 0;
        query(cu, dev, CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY, &v);
        prop->totalConstMem = size_t(v);
        query(cu, dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &prop->multiProcessorCount);
        query(cu, dev, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, &prop->l2CacheSize);
        query(cu, dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, &prop->maxThreadsPerMultiProcessor);
        query(cu, dev, CU_DEVICE_ATTRIBUTE_COMPUTE_MODE, &prop->computeMode);
        query(cu, dev, CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS, &prop->concurrentKernels);
        query(cu, dev, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, &prop->pciDomainID);
        query(cu, dev, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, &prop->pciBusID);
        query(cu, dev, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, &prop->pciDeviceID);
        v = 0;
        query(cu, dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, &v);
        prop->maxSharedMemoryPerMultiProcessor = size_t(v);
        query(cu, dev, CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD, &prop->isMultiGpuBoard);
        query(cu, dev, CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY, &prop->canMapHostMemory);
        query(cu, dev, CU_DEVICE_ATTRIBUTE_INTEGRATED, &prop->integrated);
        query(cu, dev, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, &prop->cooperativeLaunch);
        query(cu, dev, CU_DEVICE_ATTRIBUTE_ECC_ENABLED, &prop->ECCEnabled);
        query(cu, dev, CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, &prop->managedMemory);
        query(cu, dev, CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS, &prop->concurrentManagedAccess);
        query(cu, dev, CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS, &prop->pageableMemoryAccess);
        return hipSuccess;
    });
}
