// The CUDA driver API, reached only through dlopen("libcuda.so.1") and
// cuGetProcAddress: the vendor has no link-time dependency on any CUDA library, so it
// loads (and reports "no device") on machines without the driver.
#pragma once

#include <cuda.h>  // types and prototypes only; nothing from it is linked

#include <string>

namespace opkit_cuda {

// Every entry point used. cuda.h maps versioned names with macros (cuMemAlloc is
// cuMemAlloc_v2, ...), so decltype(&::name) is the versioned prototype and the member is
// spelled the same way at every call site; #name is the base name cuGetProcAddress wants.
#define OPKIT_CUDA_DRIVER_FUNCTIONS(X) \
    X(cuInit)                          \
    X(cuDriverGetVersion)              \
    X(cuGetErrorName)                  \
    X(cuGetErrorString)                \
    X(cuDeviceGetCount)                \
    X(cuDeviceGet)                     \
    X(cuDeviceGetName)                 \
    X(cuDeviceGetAttribute)            \
    X(cuDevicePrimaryCtxRetain)        \
    X(cuDevicePrimaryCtxRelease)       \
    X(cuCtxPushCurrent)                \
    X(cuCtxPopCurrent)                 \
    X(cuCtxSynchronize)                \
    X(cuModuleLoadData)                \
    X(cuModuleUnload)                  \
    X(cuModuleGetFunction)             \
    X(cuFuncSetAttribute)              \
    X(cuLaunchKernel)                  \
    X(cuLaunchKernelEx)                \
    X(cuOccupancyMaxActiveClusters)    \
    X(cuMemAlloc)                      \
    X(cuMemFree)                       \
    X(cuMemAllocAsync)                 \
    X(cuMemFreeAsync)                  \
    X(cuMemPoolCreate)                 \
    X(cuMemPoolDestroy)                \
    X(cuMemPoolSetAttribute)           \
    X(cuMemAllocFromPoolAsync)         \
    X(cuMemcpyAsync)                   \
    X(cuMemcpyPeerAsync)               \
    X(cuMemsetD8Async)                 \
    X(cuMemsetD32Async)                \
    X(cuMemsetD2D32Async)              \
    X(cuStreamCreate)                  \
    X(cuStreamDestroy)                 \
    X(cuStreamSynchronize)

struct Driver {
#define OPKIT_CUDA_MEMBER(name) decltype(&::name) name = nullptr;
    OPKIT_CUDA_DRIVER_FUNCTIONS(OPKIT_CUDA_MEMBER)
#undef OPKIT_CUDA_MEMBER
    int version = 0;  // cuDriverGetVersion, e.g. 13000
};

// Loads libcuda.so.1, resolves every entry point and runs cuInit(0). Returns the number
// of devices; 0 with *why set when the driver is missing, too old or finds no device.
int load_driver(std::string* why);

// The table filled by load_driver (valid only after it returned a device count > 0).
const Driver& drv();

// "CUDA_ERROR_OUT_OF_MEMORY (out of memory)"; works before cuInit too.
std::string cu_error_text(CUresult r);

}  // namespace opkit_cuda
