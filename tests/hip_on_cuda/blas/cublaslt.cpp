// HIP-over-CUDA test runtime: lazy cuBLASLt loading (see cublaslt.h). Nothing is
// translated here. What it cannot prove: how hipBLASLt or rocBLAS load (their Tensile
// libraries and code objects per gfx target) or fail to.
#include "cublaslt.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

namespace hipshim_blas {
namespace {

CublasLt g_table;
const CublasLt* g_loaded = nullptr;
std::once_flag g_once;

void* open_library() noexcept {
    const char* override_path = std::getenv("OPKIT_HIPSHIM_CUBLASLT");
    if (override_path && *override_path) return dlopen(override_path, RTLD_NOW | RTLD_LOCAL);
    static const char* const candidates[] = {"libcublasLt.so.13", "libcublasLt.so.12",
                                             "/usr/local/cuda/lib64/libcublasLt.so.13",
                                             "/usr/local/cuda/lib64/libcublasLt.so.12"};
    for (const char* c : candidates)
        if (void* lib = dlopen(c, RTLD_NOW | RTLD_LOCAL)) return lib;  // never closed
    return nullptr;
}

void load() noexcept {
    void* lib = open_library();
    if (!lib) return;
    CublasLt t;
    bool complete = true;
#define HIPSHIM_LT_RESOLVE(name)                                       \
    t.name = reinterpret_cast<decltype(t.name)>(dlsym(lib, #name));   \
    if (!t.name) complete = false;
    HIPSHIM_CUBLASLT_FUNCTIONS(HIPSHIM_LT_RESOLVE)
#undef HIPSHIM_LT_RESOLVE
    if (!complete) return;
    g_table = t;
    g_loaded = &g_table;
}

}  // namespace

const CublasLt* cublaslt() noexcept {
    try {
        std::call_once(g_once, load);
    } catch (...) {
        return nullptr;
    }
    return g_loaded;
}

}  // namespace hipshim_blas
