#include "cublaslt.h"

#include <dlfcn.h>

#include <mutex>

namespace opkit_cuda {
namespace {

CublasLt g_lt;
const CublasLt* g_loaded = nullptr;
std::string g_why;
std::once_flag g_once;

void load() {
    // The sonames first (the dynamic loader's search: LD_LIBRARY_PATH, ldconfig), then
    // the toolkit's default install directory, which is often not registered.
    static const char* const candidates[] = {
        "libcublasLt.so.13", "libcublasLt.so.12", "/usr/local/cuda/lib64/libcublasLt.so.13",
        "/usr/local/cuda/lib64/libcublasLt.so.12"};
    void* lib = nullptr;
    std::string tried;
    for (const char* c : candidates) {
        lib = dlopen(c, RTLD_NOW | RTLD_LOCAL);  // never closed, like libcuda
        if (lib) break;
        const char* e = dlerror();
        tried += tried.empty() ? "" : "; ";
        tried += e ? e : c;
    }
    if (!lib) {
        g_why = "cuBLASLt is not installed (" + tried + ")";
        return;
    }
    CublasLt lt;
    std::string missing;
#define OPKIT_LT_RESOLVE(name)                                              \
    lt.name = reinterpret_cast<decltype(lt.name)>(dlsym(lib, #name));     \
    if (!lt.name) missing += missing.empty() ? #name : ", " #name;
    OPKIT_LT_FUNCTIONS(OPKIT_LT_RESOLVE)
#undef OPKIT_LT_RESOLVE
    if (!missing.empty()) {
        g_why = "cuBLASLt lacks " + missing;
        return;
    }
    g_lt = lt;
    g_loaded = &g_lt;
}

}  // namespace

const CublasLt* cublaslt(std::string* why) {
    std::call_once(g_once, load);
    if (!g_loaded) *why = g_why;
    return g_loaded;
}

std::string lt_error_text(cublasStatus_t s) {
    std::string t = "cublasStatus_t " + std::to_string(int(s));
    if (g_loaded) {
        const char* name = g_lt.cublasLtGetStatusName(s);
        const char* text = g_lt.cublasLtGetStatusString(s);
        if (name) t = name;
        if (text) t += std::string(" (") + text + ")";
    }
    return t;
}

}  // namespace opkit_cuda
