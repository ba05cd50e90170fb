// A fake HIP runtime (libamdhip64.so.5) for CPU-only tests of the rocm vendor's device
// probing: it reports the devices FAKE_HIP_ISAS lists ("gfx90a:sramecc+:xnack-,gfx1100"),
// each with that gcnArchName, and answers hipErrorNotSupported to everything that would
// touch a device. With it the tests see what Debian's real runtime (no GPU) cannot show:
// a device whose ISA the embedded code objects lack is refused by name, and a machine
// with only such devices is NO_DEVICE.
//
// With FAKE_HIP_MEMORY=1 it also has memory (host memory: malloc, memcpy, memset), loads
// any module, and records every kernel launch (name, grid, block, dynamic shared memory)
// without running it: the dispatch tests read the records through fake_hip_launch_count
// and fake_hip_launch to check which kernel and launch shape the host picked for a shape,
// a decision that the GPU tests' numerical checks cannot see.
//
// Every definition uses AMD's prototype from hip_runtime_api.h, so the fake cannot drift
// from the ABI the vendor was built against; it defines exactly vendors/rocm/hip_api.h's
// entry points (a missing one would make the vendor report "lacks entry points").
#include <hip/hip_runtime_api.h>

#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
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

bool has_memory() {
    const char* env = std::getenv("FAKE_HIP_MEMORY");
    return env && std::strcmp(env, "1") == 0;
}

struct Launch {
    const char* name;
    unsigned grid, grid_y, block, smem;
};
std::mutex g_mu;
std::deque<std::string> g_names;  // hipFunction_t handles point at these (stable addresses)
std::vector<Launch> g_launches;
char g_module;  // the one module handle, and the default stream's stand-in
char g_stream;

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

// Everything that would need a device: hipErrorNotSupported, or with FAKE_HIP_MEMORY=1
// the host-memory stand-in in the body (FAKE_WITH_MEMORY).
#define FAKE_UNSUPPORTED(ret, name, params) \
    FAKE_EXPORT ret name params { return fail(hipErrorNotSupported); }
#define FAKE_WITH_MEMORY(name, params, body)                  \
    FAKE_EXPORT hipError_t name params {                      \
        if (!has_memory()) return fail(hipErrorNotSupported); \
        body return hipSuccess;                               \
    }
FAKE_WITH_MEMORY(hipDeviceSynchronize, (void), )
FAKE_WITH_MEMORY(hipModuleLoadData, (hipModule_t* m, const void*), *m = reinterpret_cast<hipModule_t>(&g_module);)
FAKE_WITH_MEMORY(hipModuleUnload, (hipModule_t), )
FAKE_WITH_MEMORY(hipModuleGetFunction, (hipFunction_t* f, hipModule_t, const char* name), {
    std::lock_guard<std::mutex> lock(g_mu);
    g_names.emplace_back(name);
    *f = reinterpret_cast<hipFunction_t>(const_cast<char*>(g_names.back().c_str()));
})
FAKE_WITH_MEMORY(hipModuleLaunchKernel,
                 (hipFunction_t f, unsigned gx, unsigned gy, unsigned, unsigned bx, unsigned, unsigned, unsigned smem,
                  hipStream_t, void**, void**),
                 {
                     std::lock_guard<std::mutex> lock(g_mu);
                     g_launches.push_back({reinterpret_cast<const char*>(f), gx, gy, bx, smem});
                 })
FAKE_WITH_MEMORY(hipMalloc, (void** p, size_t bytes), *p = std::calloc(1, bytes ? bytes : 1);)
FAKE_WITH_MEMORY(hipFree, (void* p), std::free(p);)
FAKE_WITH_MEMORY(hipMallocAsync, (void** p, size_t bytes, hipStream_t), *p = std::calloc(1, bytes ? bytes : 1);)
FAKE_WITH_MEMORY(hipFreeAsync, (void* p, hipStream_t), std::free(p);)
FAKE_UNSUPPORTED(hipError_t, hipMallocFromPoolAsync, (void**, size_t, hipMemPool_t, hipStream_t))
FAKE_UNSUPPORTED(hipError_t, hipMemPoolCreate, (hipMemPool_t*, const hipMemPoolProps*))
FAKE_UNSUPPORTED(hipError_t, hipMemPoolDestroy, (hipMemPool_t))
FAKE_UNSUPPORTED(hipError_t, hipMemPoolSetAttribute, (hipMemPool_t, hipMemPoolAttr, void*))
FAKE_WITH_MEMORY(hipMemcpyAsync, (void* d, const void* s, size_t n, hipMemcpyKind, hipStream_t), std::memmove(d, s, n);)
FAKE_WITH_MEMORY(hipMemcpyPeerAsync, (void* d, int, const void* s, int, size_t n, hipStream_t), std::memmove(d, s, n);)
FAKE_WITH_MEMORY(hipMemsetD8Async, (hipDeviceptr_t d, unsigned char v, size_t n, hipStream_t), std::memset(d, v, n);)
FAKE_WITH_MEMORY(hipMemsetD32Async, (hipDeviceptr_t d, int v, size_t n, hipStream_t), {
    for (size_t i = 0; i < n; ++i) std::memcpy(static_cast<char*>(d) + 4 * i, &v, 4);
})
FAKE_WITH_MEMORY(hipStreamCreateWithFlags, (hipStream_t* s, unsigned int), *s = reinterpret_cast<hipStream_t>(&g_stream);)
FAKE_WITH_MEMORY(hipStreamDestroy, (hipStream_t), )
FAKE_WITH_MEMORY(hipStreamSynchronize, (hipStream_t), )

// The recorded launches (FAKE_HIP_MEMORY=1), for the tests: not part of HIP.
FAKE_EXPORT int fake_hip_launch_count(void) {
    std::lock_guard<std::mutex> lock(g_mu);
    return int(g_launches.size());
}
FAKE_EXPORT int fake_hip_launch(int i, const char** name, unsigned* grid, unsigned* grid_y, unsigned* block,
                                unsigned* smem) {
    std::lock_guard<std::mutex> lock(g_mu);
    if (i < 0 || i >= int(g_launches.size())) return 0;
    *name = g_launches[size_t(i)].name;
    *grid = g_launches[size_t(i)].grid;
    *grid_y = g_launches[size_t(i)].grid_y;
    *block = g_launches[size_t(i)].block;
    *smem = g_launches[size_t(i)].smem;
    return 1;
}
