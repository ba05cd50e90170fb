// The HIP runtime, reached only through dlopen("libamdhip64.so[.N]") and dlsym: the vendor
// has no link-time dependency on any ROCm library, so it loads (and reports "no device")
// on machines without ROCm. AMD's hip_runtime_api.h (built with __HIP_PLATFORM_AMD__)
// supplies the types and prototypes at compile time only, so every entry point below is
// checked against AMD's own declaration; nothing from it is linked.
//
// This list is also the contract of the HIP-over-CUDA test runtime (tests/hip_on_cuda):
// it implements exactly these functions.
#pragma once

#include <hip/hip_runtime_api.h>  // types and prototypes only
#include <hip/hip_version.h>

#include <string>

namespace opkit_rocm {

// Every entry point used, with decltype(&::name) as its type. HIP 5.2 marks hipError_t
// [[nodiscard]]: every result is consumed.
#define OPKIT_HIP_FUNCTIONS(X)  \
    X(hipInit)                  \
    X(hipDriverGetVersion)      \
    X(hipRuntimeGetVersion)     \
    X(hipGetErrorName)          \
    X(hipGetErrorString)        \
    X(hipGetLastError)          \
    X(hipGetDeviceCount)        \
    X(hipGetDevice)             \
    X(hipSetDevice)             \
    X(hipDeviceGet)             \
    X(hipDeviceGetName)         \
    X(hipDeviceGetAttribute)    \
    X(hipDeviceSynchronize)     \
    X(hipModuleLoadData)        \
    X(hipModuleUnload)          \
    X(hipModuleGetFunction)     \
    X(hipModuleLaunchKernel)    \
    X(hipFree)                  \
    X(hipFreeAsync)             \
    X(hipMemPoolCreate)         \
    X(hipMemPoolDestroy)        \
    X(hipMemPoolSetAttribute)   \
    X(hipMemcpyAsync)           \
    X(hipMemcpyPeerAsync)       \
    X(hipMemsetD8Async)         \
    X(hipMemsetD32Async)        \
    X(hipStreamCreateWithFlags) \
    X(hipStreamDestroy)         \
    X(hipStreamSynchronize)

// Entry points whose name decltype cannot take: hip_runtime_api.h adds C++ template
// overloads of the allocation functions, so &::hipMalloc is ambiguous. Their types are
// written out; hip_api.cpp checks each against AMD's declaration by overload resolution.
using HipMallocFn = hipError_t (*)(void** ptr, size_t size);
using HipMallocAsyncFn = hipError_t (*)(void** ptr, size_t size, hipStream_t stream);
using HipMallocFromPoolAsyncFn = hipError_t (*)(void** ptr, size_t size, hipMemPool_t pool, hipStream_t stream);

// The one use of a properties struct: the device's ISA name (gcnArchName, "gfx90a:
// sramecc+:xnack-"), which no hipDeviceGetAttribute value carries. Its layout changed in
// ROCm 6 (hipDeviceProp_tR0600); the symbol and the struct are taken from the headers the
// vendor is built against, so they always match, and every library since ROCm 6 still
// exports the older symbol for binaries built against 5.x headers.
#if defined(HIP_VERSION_MAJOR) && HIP_VERSION_MAJOR >= 6
using HipDeviceProps = hipDeviceProp_tR0600;
#define OPKIT_HIP_PROPS_SYMBOL "hipGetDevicePropertiesR0600"
#else
using HipDeviceProps = hipDeviceProp_t;
#define OPKIT_HIP_PROPS_SYMBOL "hipGetDeviceProperties"
#endif
using HipGetDevicePropertiesFn = hipError_t (*)(HipDeviceProps* props, int device);

struct Hip {
#define OPKIT_HIP_MEMBER(name) decltype(&::name) name = nullptr;
    OPKIT_HIP_FUNCTIONS(OPKIT_HIP_MEMBER)
#undef OPKIT_HIP_MEMBER
    HipMallocFn hipMalloc = nullptr;
    HipMallocAsyncFn hipMallocAsync = nullptr;
    HipMallocFromPoolAsyncFn hipMallocFromPoolAsync = nullptr;
    HipGetDevicePropertiesFn hipGetDeviceProperties = nullptr;  // optional: NULL = ISA unknown
    int runtime_version = 0;  // hipRuntimeGetVersion, e.g. 50221153 (5.2.21153)
    std::string library;      // the file that was loaded, for messages
};

// Loads the HIP runtime (libamdhip64.so, .so.7, .so.6, .so.5), resolves every entry point
// and counts the devices. Returns the count; 0 with *why set when the runtime is missing,
// lacks an entry point or finds no device (with the runtime's own error name).
int load_hip(std::string* why);

// The table filled by load_hip (valid only after it returned a device count > 0).
const Hip& hip();

// "hipErrorOutOfMemory (out of memory)"; HIP 5.2's hipGetErrorString returns the name
// again, which is then not repeated.
std::string hip_error_text(hipError_t e);

// "50221153" -> "5.2.21153".
std::string hip_version_text(int v);

}  // namespace opkit_rocm
