// HIP-over-CUDA test runtime: lazy loading of libcuda.so.1 (see driver.h).
//
// Nothing is translated here; this is what lets the shim stand in for AMD's runtime on
// a machine without a GPU. What it cannot prove: how AMD's runtime fails to initialize
// (HSA, /dev/kfd permissions): the no-device answers are modelled on Debian's 5.2
// runtime measured without a GPU (../shared/reference/rocm.md §7), and compared with it
// by the self-test where that library is installed.
#include "driver.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace hipshim {
namespace {

Driver g_table;
const Driver* g_loaded = nullptr;
CUresult g_error = CUDA_SUCCESS;
std::once_flag g_once;

// cuGetProcAddress returns the implementation with the ABI of the CUDA version asked
// for; 12000 is the oldest ABI all the functions above have had unchanged since, and the
// oldest driver (525) with cuGetProcAddress_v2.
constexpr int kRequestedAbi = 12000;

void load() noexcept {
    const char* override_path = std::getenv("OPKIT_HIPSHIM_LIBCUDA");
    const char* path = (override_path && *override_path) ? override_path : "libcuda.so.1";
    // Never dlclose'd: a driver with live contexts must not be unloaded.
    void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        g_error = CUDA_ERROR_NOT_FOUND;
        const char* e = dlerror();
        verbose_reason(e ? e : "dlopen(libcuda.so.1) failed");
        return;
    }
    using GetProc = decltype(&::cuGetProcAddress_v2);
    auto get_proc = reinterpret_cast<GetProc>(dlsym(lib, "cuGetProcAddress_v2"));
    if (!get_proc) {
        g_error = CUDA_ERROR_NOT_FOUND;
        verbose_reason("libcuda.so.1 has no cuGetProcAddress_v2 (a CUDA 12+ driver is needed)");
        return;
    }
    Driver d;
    CUresult first_error = CUDA_SUCCESS;
    bool complete = true;
#define HIPSHIM_RESOLVE(name)                                                                   \
    {                                                                                          \
        void* fn = nullptr;                                                                    \
        CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;           \
        const CUresult r = get_proc(#name, &fn, kRequestedAbi, CU_GET_PROC_ADDRESS_DEFAULT, &found); \
        if (r != CUDA_SUCCESS && first_error == CUDA_SUCCESS) first_error = r;                 \
        if (r != CUDA_SUCCESS || !fn) complete = false;                                        \
        d.name = reinterpret_cast<decltype(d.name)>(fn);                                       \
    }
    HIPSHIM_DRIVER_FUNCTIONS(HIPSHIM_RESOLVE)
#undef HIPSHIM_RESOLVE
    if (!complete) {
        // The toolkit's stub libcuda answers cuGetProcAddress with CUDA_ERROR_STUB_LIBRARY.
        g_error = first_error != CUDA_SUCCESS ? first_error : CUDA_ERROR_NOT_FOUND;
        verbose_reason(g_error == CUDA_ERROR_STUB_LIBRARY ? "libcuda.so.1 is the toolkit's stub library"
                                                          : "libcuda.so.1 lacks entry points the shim needs");
        return;
    }
    g_table = d;
    g_loaded = &g_table;
}

}  // namespace

const Driver* driver(CUresult* error) noexcept {
    try {
        std::call_once(g_once, load);
    } catch (...) {  // call_once itself failing (system_error): treat as "no driver"
        *error = CUDA_ERROR_UNKNOWN;
        return nullptr;
    }
    *error = g_error;
    return g_loaded;
}

void verbose_reason(const char* what) noexcept {
    static std::atomic<bool> printed{false};
    const char* v = std::getenv("OPKIT_HIPSHIM_VERBOSE");
    if (!v || std::strcmp(v, "1") != 0 || printed.exchange(true)) return;
    std::fprintf(stderr, "hip-on-cuda shim: no device: %s\n", what);
}

}  // namespace hipshim
