// HIP-over-CUDA test runtime (libamdhip64.so.5): the CUDA driver API, dlopen'ed lazily.
//
// The shim must load on machines without an NVIDIA driver (CI, where it stands in for the
// real runtime's "no device" path), so libcuda.so.1 is never a link-time dependency: it
// is opened on the first hip* call that needs it and every entry point comes from
// cuGetProcAddress. cuda.h supplies the types and prototypes only.
//
// Test hook: OPKIT_HIPSHIM_LIBCUDA=<path> opens that file instead of libcuda.so.1 (a
// missing file or the toolkit's stub library lets a GPU machine exercise the no-driver
// path too). OPKIT_HIPSHIM_VERBOSE=1 prints why no device was found, once, to stderr.
#pragma once

#include <cuda.h>

namespace hipshim {

// Every driver entry point the shim calls. cuda.h maps versioned names with macros
// (cuMemAlloc is cuMemAlloc_v2, ...): decltype(&::name) is then the versioned prototype,
// the member is spelled the same way at every call site, and #name (not macro-expanded)
// is the base name that cuGetProcAddress expects.
#define HIPSHIM_DRIVER_FUNCTIONS(X) \
    X(cuInit)                       \
    X(cuDriverGetVersion)           \
    X(cuDeviceGetCount)             \
    X(cuDeviceGet)                  \
    X(cuDeviceGetName)              \
    X(cuDeviceGetAttribute)         \
    X(cuDeviceTotalMem)             \
    X(cuDevicePrimaryCtxRetain)     \
    X(cuCtxGetCurrent)              \
    X(cuCtxSetCurrent)              \
    X(cuCtxSynchronize)             \
    X(cuModuleLoadData)             \
    X(cuModuleUnload)               \
    X(cuModuleGetFunction)          \
    X(cuLaunchKernel)               \
    X(cuMemAlloc)                   \
    X(cuMemFree)                    \
    X(cuMemAllocAsync)              \
    X(cuMemFreeAsync)               \
    X(cuMemAllocFromPoolAsync)      \
    X(cuMemPoolCreate)              \
    X(cuMemPoolDestroy)             \
    X(cuMemPoolSetAttribute)        \
    X(cuMemcpyAsync)                \
    X(cuMemcpyPeerAsync)            \
    X(cuMemsetD8Async)              \
    X(cuMemsetD32Async)             \
    X(cuPointerGetAttribute)        \
    X(cuStreamCreate)               \
    X(cuStreamDestroy)              \
    X(cuStreamSynchronize)

struct Driver {
#define HIPSHIM_DRIVER_MEMBER(name) decltype(&::name) name = nullptr;
    HIPSHIM_DRIVER_FUNCTIONS(HIPSHIM_DRIVER_MEMBER)
#undef HIPSHIM_DRIVER_MEMBER
};

// The loaded table, or NULL when libcuda.so.1 is missing or unusable; *error (never NULL)
// is then the CUresult that explains it (CUDA_ERROR_STUB_LIBRARY, CUDA_ERROR_NOT_FOUND
// for "no library", ...) and the reason is kept for OPKIT_HIPSHIM_VERBOSE. Loads once,
// thread-safe. cuInit is not called here (device.cpp does that).
const Driver* driver(CUresult* error) noexcept;

// Prints the reason (OPKIT_HIPSHIM_VERBOSE=1 only, once per process).
void verbose_reason(const char* what) noexcept;

}  // namespace hipshim
