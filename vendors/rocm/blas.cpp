#include "blas.h"

#include <dlfcn.h>

#include <atomic>
#include <mutex>

namespace opkit_rocm {
namespace {

HipBlasLt g_lt;
RocBlas g_rb;
// Written once under g_once; atomic because loaded_blas_name() reads them from any thread.
std::atomic<bool> g_have_lt{false}, g_have_rb{false};
std::string g_why;
std::once_flag g_once;

// dlopen's the first of `names` that loads; "" and the reasons when none does.
void* open_first(std::initializer_list<const char*> names, std::string* tried) {
    for (const char* n : names) {
        if (void* lib = dlopen(n, RTLD_NOW | RTLD_LOCAL)) return lib;  // never closed, like the runtime
        const char* e = dlerror();
        *tried += tried->empty() ? "" : "; ";
        *tried += e ? e : n;
    }
    return nullptr;
}

template <class Table>
bool resolve(void* lib, Table& t, std::string* missing);

template <>
bool resolve(void* lib, HipBlasLt& t, std::string* missing) {
#define OPKIT_ROCM_LT_RESOLVE(name, type)                          \
    t.name = reinterpret_cast<lt::name##_fn>(dlsym(lib, #name));   \
    if (!t.name) *missing += missing->empty() ? #name : ", " #name;
    OPKIT_HIPBLASLT_FUNCTIONS(OPKIT_ROCM_LT_RESOLVE)
#undef OPKIT_ROCM_LT_RESOLVE
    return missing->empty();
}

template <>
bool resolve(void* lib, RocBlas& t, std::string* missing) {
#define OPKIT_ROCM_RB_RESOLVE(name, type)                          \
    t.name = reinterpret_cast<rb::name##_fn>(dlsym(lib, #name));   \
    if (!t.name) *missing += missing->empty() ? #name : ", " #name;
    OPKIT_ROCBLAS_FUNCTIONS(OPKIT_ROCM_RB_RESOLVE)
#undef OPKIT_ROCM_RB_RESOLVE
    return missing->empty();
}

void load() {
    // Sonames first (ROCm 6 then 7), then the unversioned development name.
    std::string lt_why, rb_why;
    if (void* lib = open_first({"libhipblaslt.so.0", "libhipblaslt.so.1", "libhipblaslt.so"}, &lt_why)) {
        std::string missing;
        if (resolve(lib, g_lt, &missing)) g_have_lt = true;
        else lt_why = "it lacks " + missing;
    }
    if (void* lib = open_first({"librocblas.so.4", "librocblas.so.5", "librocblas.so"}, &rb_why)) {
        std::string missing;
        if (resolve(lib, g_rb, &missing)) g_have_rb = true;
        else rb_why = "it lacks " + missing;
    }
    if (!g_have_lt && !g_have_rb)
        g_why = "neither hipBLASLt (" + lt_why + ") nor rocBLAS (" + rb_why + ") is installed";
}

}  // namespace

bool load_blas(std::string* why) {
    std::call_once(g_once, load);
    if (!g_have_lt && !g_have_rb) *why = g_why;
    return g_have_lt || g_have_rb;
}

const HipBlasLt* hipblaslt() { return g_have_lt ? &g_lt : nullptr; }
const RocBlas* rocblas() { return g_have_rb ? &g_rb : nullptr; }

const char* loaded_blas_name() {
    if (g_have_lt && g_have_rb) return "hipBLASLt/rocBLAS";
    if (g_have_lt) return "hipBLASLt";
    if (g_have_rb) return "rocBLAS";
    return "hipBLASLt or rocBLAS";
}

}  // namespace opkit_rocm
