// A fake HIP runtime (libamdhip64.so.5) for CPU-only tests of the rocm vendor's device
// probing: it reports the devices FAKE_HIP_ISAS lists ("gfx90a:sramecc+:xnack-,gfx1100"),
// each with that gcnArchName, and answers hipErrorNotSupported to everything that would
// touch a device. With it the tests see what Debian's real runtime (no GPU) cannot show:
// a device whose ISA the embedded code objects lack is refused by name, and a machine
// with only such devices is NO_DEVICE.
//
// Every definition uses AMD's prototype from hip_runtime_api.h, so the fake cannot drift
// from the ABI the vendor was built against; it defines exactly vendors/rocm/hip_api.h's
// entry points (a missing one would make the vendor report "lacks entry points").
#include <hip/hip_runtime_api.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

std::vector<std::string> isas() {
    std::vector<std::string> out;
    const char* env = std::getenv("FAKE_HIP_ISAS");
    std::string cur;
    for (const char* p = env ? env : "";; ++p) {
        if (*p == ',' || *p == '\0') {
            if (!cur.empty()) out.push_back(cur);
            cur.clear();
            if (!*p) break;
        } else {
            cur += *p;
        }
    }
    return out;
}

thread_local hipError_t t_last = hipSuccess;
thread_local int t_device = 0;

hipError_t fail(hipError_t e) {
    t_last = e;
    return e;
}

bool valid(int device) { return device >= 0 && device < int(isas().size()); }

}  // namespace

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

FAKE_EXPORT hipError_t hipInit(unsigned int) { return isas().empty() ? fail(hipErrorNoDevice) : hipSuccess; }
FAKE_EXPORT hipError_t hipDriverGetVersion(int* v) {
    *v = 50221153;
    return hipSuccess;
}
FAKE_EXPORT hipError_t hipRuntimeGetVersion(int* v) {
    *v = 50221153;
    return hipSuccess;
}
FAKE_EXPORT const char* hipGetErrorName(hipError_t e) {
    switch (e) {
        case hipSuccess: return "hipSuccess";
        case hipErrorNoDevice: return "hipErrorNoDevice";
        case hipErrorInvalidDevice: return "hipErrorInvalidDevice";
        case hipErrorNotSupported: return "hipErrorNotSupported";
        default: return "hipErrorUnknown";
    }
}
FAKE_EXPORT const char* hipGetErrorString(hipError_t e) { return hipGetErrorName(e); }
FAKE_EXPORT hipError_t hipGetLastError(void) {
    const hipError_t e = t_last;
    t_last = hipSuccess;
    return e;
}
FAKE_EXPORT hipError_t hipGetDeviceCount(int* count) {
    *count = int(isas().size());
    return *count ? hipSuccess : fail(hipErrorNoDevice);
}
FAKE_EXPORT hipError_t hipGetDevice(int* device) {
    *device = t_device;
    return hipSuccess;
}
FAKE_EXPORT hipError_t hipSetDevice(int device) {
    if (!valid(device)) return fail(hipErrorInvalidDevice);
    t_device = device;
    return hipSuccess;
}
FAKE_EXPORT hipError_t hipDeviceGet(hipDevice_t* device, int ordinal) {
    if (!valid(ordinal)) return fail(hipErrorInvalidDevice);
    *device = ordinal;
    return hipSuccess;
}
FAKE_EXPORT hipError_t hipDeviceGetName(char* name, int len, hipDevice_t device) {
    if (!valid(device) || len < 1) return fail(hipErrorInvalidDevice);
    std::snprintf(name, size_t(len), "Fake GPU %d", device);
    return hipSuccess;
}
FAKE_EXPORT hipError_t hipGetDeviceProperties(hipDeviceProp_t* props, int device) {
    if (!valid(device)) return fail(hipErrorInvalidDevice);
    std::memset(props, 0, sizeof *props);
    std::snprintf(props->name, sizeof props->name, "Fake GPU %d", device);
    std::snprintf(props->gcnArchName, sizeof props->gcnArchName, "%s", isas()[size_t(device)].c_str());
    return hipSuccess;
}
FAKE_EXPORT hipError_t hipDeviceGetAttribute(int* value, hipDeviceAttribute_t attr, int device) {
    if (!valid(device)) return fail(hipErrorInvalidDevice);
    switch (attr) {
        case hipDeviceAttributeWarpSize: *value = 64; return hipSuccess;
        case hipDeviceAttributeMultiprocessorCount: *value = 104; return hipSuccess;
        case hipDeviceAttributeMaxSharedMemoryPerBlock: *value = 65536; return hipSuccess;
        default: return fail(hipErrorInvalidValue);
    }
}

// Everything that would need a device.
#define FAKE_UNSUPPORTED(ret, name, params) \
    FAKE_EXPORT ret name params { return fail(hipErrorNotSupported); }
FAKE_UNSUPPORTED(hipError_t, hipDeviceSynchronize, (void))
FAKE_UNSUPPORTED(hipError_t, hipModuleLoadData, (hipModule_t*, const void*))
FAKE_UNSUPPORTED(hipError_t, hipModuleUnload, (hipModule_t))
FAKE_UNSUPPORTED(hipError_t, hipModuleGetFunction, (hipFunction_t*, hipModule_t, const char*))
FAKE_UNSUPPORTED(hipError_t, hipModuleLaunchKernel,
                 (hipFunction_t, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, hipStream_t,
                  void**, void**))
FAKE_UNSUPPORTED(hipError_t, hipMalloc, (void**, size_t))
FAKE_UNSUPPORTED(hipError_t, hipFree, (void*))
FAKE_UNSUPPORTED(hipError_t, hipMallocAsync, (void**, size_t, hipStream_t))
FAKE_UNSUPPORTED(hipError_t, hipFreeAsync, (void*, hipStream_t))
FAKE_UNSUPPORTED(hipError_t, hipMallocFromPoolAsync, (void**, size_t, hipMemPool_t, hipStream_t))
FAKE_UNSUPPORTED(hipError_t, hipMemPoolCreate, (hipMemPool_t*, const hipMemPoolProps*))
FAKE_UNSUPPORTED(hipError_t, hipMemPoolDestroy, (hipMemPool_t))
FAKE_UNSUPPORTED(hipError_t, hipMemPoolSetAttribute, (hipMemPool_t, hipMemPoolAttr, void*))
FAKE_UNSUPPORTED(hipError_t, hipMemcpyAsync, (void*, const void*, size_t, hipMemcpyKind, hipStream_t))
FAKE_UNSUPPORTED(hipError_t, hipMemcpyPeerAsync, (void*, int, const void*, int, size_t, hipStream_t))
FAKE_UNSUPPORTED(hipError_t, hipMemsetD8Async, (hipDeviceptr_t, unsigned char, size_t, hipStream_t))
FAKE_UNSUPPORTED(hipError_t, hipMemsetD32Async, (hipDeviceptr_t, int, size_t, hipStream_t))
FAKE_UNSUPPORTED(hipError_t, hipStreamCreateWithFlags, (hipStream_t*, unsigned int))
FAKE_UNSUPPORTED(hipError_t, hipStreamDestroy, (hipStream_t))
FAKE_UNSUPPORTED(hipError_t, hipStreamSynchronize, (hipStream_t))
