#include "hip_api.h"

#include <dlfcn.h>

namespace opkit_rocm {
namespace {

Hip g_hip;

// The names a HIP runtime has gone by: the development symlink, then ROCm 7, 6 and 5's
// sonames. Debian ships .so.5 (HIP 5.2); the first found wins.
const char* const kLibraries[] = {"libamdhip64.so", "libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5"};

// Each explicitly typed entry point must be AMD's own: taking the address with the
// pointer type selects the one overload of that exact signature, or fails to compile.
[[maybe_unused]] const HipMallocFn kCheckMalloc = &::hipMalloc;
[[maybe_unused]] const HipMallocAsyncFn kCheckMallocAsync = &::hipMallocAsync;
[[maybe_unused]] const HipMallocFromPoolAsyncFn kCheckFromPool = &::hipMallocFromPoolAsync;

}  // namespace

const Hip& hip() { return g_hip; }

std::string hip_version_text(int v) {
    // HIP_VERSION encoding: major * 10^7 + minor * 10^5 + patch.
    return std::to_string(v / 10000000) + "." + std::to_string(v / 100000 % 100) + "." + std::to_string(v % 100000);
}

std::string hip_error_text(hipError_t e) {
    const char* name = g_hip.hipGetErrorName ? g_hip.hipGetErrorName(e) : nullptr;
    const char* text = g_hip.hipGetErrorString ? g_hip.hipGetErrorString(e) : nullptr;
    std::string s = name ? name : "hipError_t " + std::to_string(int(e));
    if (text && (!name || std::string(text) != name)) s += std::string(" (") + text + ")";
    return s;
}

int load_hip(std::string* why) {
    g_hip = Hip{};
    // Never dlclose'd: PyTorch or the application may share the runtime, and ROCm does
    // not support unloading it with live queues.
    void* lib = nullptr;
    std::string tried;
    for (const char* name : kLibraries) {
        lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
        if (lib) {
            g_hip.library = name;
            break;
        }
        const char* e = dlerror();
        tried += tried.empty() ? "" : "; ";
        tried += e ? e : name;
    }
    if (!lib) {
        *why = "the HIP runtime is not installed (" + tried + ")";
        return 0;
    }
    Hip h;
    h.library = g_hip.library;
    std::string missing;
    const auto resolve = [&](const char* name) {
        void* fn = dlsym(lib, name);
        if (!fn) missing += missing.empty() ? name : std::string(", ") + name;
        return fn;
    };
#define OPKIT_HIP_RESOLVE(name) h.name = reinterpret_cast<decltype(h.name)>(resolve(#name));
    OPKIT_HIP_FUNCTIONS(OPKIT_HIP_RESOLVE)
    OPKIT_HIP_RESOLVE(hipMalloc)
    OPKIT_HIP_RESOLVE(hipMallocAsync)
    OPKIT_HIP_RESOLVE(hipMallocFromPoolAsync)
#undef OPKIT_HIP_RESOLVE
    // Optional: without it the ISA check of device.cpp falls back to the module load's
    // own error.
    h.hipGetDeviceProperties = reinterpret_cast<HipGetDevicePropertiesFn>(dlsym(lib, OPKIT_HIP_PROPS_SYMBOL));
    g_hip = h;  // the error functions are usable from here on
    if (!missing.empty()) {
        *why = g_hip.library + " lacks entry points opkit needs: " + missing;
        return 0;
    }
    if (h.hipRuntimeGetVersion(&g_hip.runtime_version) != hipSuccess) g_hip.runtime_version = 0;
    // hipGetDeviceCount answers hipErrorNoDevice (100) where there is no GPU or no kernel
    // driver, before and after hipInit (which then says 101); its reason is the one shown.
    int count = 0;
    const hipError_t e = h.hipGetDeviceCount(&count);
    (void)h.hipGetLastError();  // a failed query must not linger as the thread's error
    if (e != hipSuccess) {
        *why = "hipGetDeviceCount failed: " + hip_error_text(e) + " (" + g_hip.library + ", HIP " +
               hip_version_text(g_hip.runtime_version) + ")";
        return 0;
    }
    if (count <= 0) {
        *why = "the HIP runtime found no device (" + g_hip.library + ")";
        return 0;
    }
    const hipError_t ie = h.hipInit(0);
    if (ie != hipSuccess) {
        *why = "hipInit failed: " + hip_error_text(ie);
        return 0;
    }
    return count;
}

}  // namespace opkit_rocm
