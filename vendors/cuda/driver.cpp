#include "driver.h"

#include <dlfcn.h>

namespace opkit_cuda {
namespace {

Driver g_driver;

// cuGetProcAddress hands out the implementation matching the ABI of the CUDA version we
// ask for. 12000 is the oldest ABI every function above has had unchanged since, and the
// oldest driver (525+) that has cuGetProcAddress_v2 at all.
constexpr int kRequestedAbi = 12000;

}  // namespace

const Driver& drv() { return g_driver; }

std::string cu_error_text(CUresult r) {
    const char* name = nullptr;
    const char* text = nullptr;
    if (g_driver.cuGetErrorName && g_driver.cuGetErrorName(r, &name) != CUDA_SUCCESS) name = nullptr;
    if (g_driver.cuGetErrorString && g_driver.cuGetErrorString(r, &text) != CUDA_SUCCESS) text = nullptr;
    if (!name && r == CUDA_ERROR_STUB_LIBRARY) {  // the stub answers even cuGetErrorName with 34
        name = "CUDA_ERROR_STUB_LIBRARY";
        text = "libcuda.so.1 is the toolkit's stub library, not a driver";
    }
    std::string s = name ? name : "CUresult " + std::to_string(int(r));
    if (text) s += std::string(" (") + text + ")";
    return s;
}

int load_driver(std::string* why) {
    g_driver = Driver{};
    // Never dlclose'd: the CUDA runtime or PyTorch in the same process may share it, and
    // unloading a driver with live contexts is not something it supports.
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char* e = dlerror();
        *why = std::string("the CUDA driver is not installed: ") + (e ? e : "dlopen(libcuda.so.1) failed");
        return 0;
    }
    using GetProc = decltype(&::cuGetProcAddress_v2);
    auto get_proc = reinterpret_cast<GetProc>(dlsym(lib, "cuGetProcAddress_v2"));
    if (!get_proc) {
        *why = "the CUDA driver is too old: libcuda.so.1 has no cuGetProcAddress_v2 (CUDA 12.0+ "
               "driver needed)";
        return 0;
    }
    Driver d;
    std::string missing;
    CUresult first_error = CUDA_SUCCESS;
#define OPKIT_CUDA_RESOLVE(name)                                                                \
    {                                                                                          \
        void* fn = nullptr;                                                                    \
        CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;           \
        const CUresult r = get_proc(#name, &fn, kRequestedAbi, CU_GET_PROC_ADDRESS_DEFAULT, &found); \
        if (r != CUDA_SUCCESS && first_error == CUDA_SUCCESS) first_error = r;                 \
        if (r != CUDA_SUCCESS || !fn) missing += missing.empty() ? #name : ", " #name;         \
        d.name = reinterpret_cast<decltype(d.name)>(fn);                                       \
    }
    OPKIT_CUDA_DRIVER_FUNCTIONS(OPKIT_CUDA_RESOLVE)
#undef OPKIT_CUDA_RESOLVE
    g_driver = d;  // the error functions are usable from here on
    if (!missing.empty()) {
        if (first_error != CUDA_SUCCESS && !d.cuInit) {  // nothing resolved: say why
            *why = "cuGetProcAddress failed: " + cu_error_text(first_error);
            return 0;
        }
        *why = "the CUDA driver lacks entry points opkit needs: " + missing;
        return 0;
    }
    CUresult r = d.cuInit(0);
    if (r != CUDA_SUCCESS) {
        *why = "cuInit failed: " + cu_error_text(r);
        return 0;
    }
    d.cuDriverGetVersion(&g_driver.version);
    int count = 0;
    r = d.cuDeviceGetCount(&count);
    if (r != CUDA_SUCCESS) {
        *why = "cuDeviceGetCount failed: " + cu_error_text(r);
        return 0;
    }
    if (count <= 0) {
        *why = "the CUDA driver found no device";
        return 0;
    }
    return count;
}

}  // namespace opkit_cuda
