#include "cblas_library.h"

#include "library_list.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <strings.h>
#include <vector>

namespace opkit_blas {
namespace {

struct Candidate {
    std::string name;
    bool generic;  // a name any BLAS may hide behind: taken only when identified
};

// The built-in order (docs/blas-vendor.md): the tuned libraries by their own sonames,
// then the generic names Debian's alternatives point at whichever BLAS is chosen.
std::vector<Candidate> default_order() {
    return {{"libopenblas.so.0", false}, {"libblis.so.4", false}, {"libmkl_rt.so.2", false},
            {"libmkl_rt.so", false},     {"libcblas.so.3", true}, {"libblas.so.3", true}};
}

// $OPKIT_BLAS_LIBRARY replaces the order (library_list.h).
bool order_from_env(std::vector<Candidate>* out) {
    std::vector<std::string> names;
    if (!library_list_from_env("OPKIT_BLAS_LIBRARY", &names)) return false;
    out->clear();
    for (const std::string& n : names) out->push_back({n, false});
    return true;
}

template <class Fn>
Fn sym(void* handle, const char* name) {
    return reinterpret_cast<Fn>(dlsym(handle, name));
}

Family identify(void* handle, std::string* version) {
    if (auto config = sym<const char* (*)()>(handle, "openblas_get_config")) {
        const char* c = config();
        *version = c ? c : "OpenBLAS";
        if (version->compare(0, 8, "OpenBLAS") != 0) *version = "OpenBLAS " + *version;
        return Family::openblas;
    }
    if (auto info = sym<const char* (*)()>(handle, "bli_info_get_version_str")) {
        const char* c = info();
        *version = std::string("BLIS ") + (c ? c : "");
        return Family::blis;
    }
    if (auto mkl = sym<void (*)(char*, int)>(handle, "MKL_Get_Version_String")) {
        char buf[256] = {};
        mkl(buf, int(sizeof buf) - 1);
        *version = buf[0] ? buf : "Intel MKL";
        // MKL pads its string with spaces
        while (!version->empty() && version->back() == ' ') version->pop_back();
        return Family::mkl;
    }
    *version = "unidentified CBLAS";
    return Family::unknown;
}

// OpenBLAS built with DYNAMIC_ARCH picks its kernels by CPU model; a model missing from
// its table (as VMs often report: "Intel Xeon Processor") gets the generic SSE3
// "Prescott" kernels, 5-8x slower than the AVX2/AVX-512 ones on the same CPU (measured on
// the H100 machine's Xeon: 15 against 121 GFLOP/s at 1024^3, one thread). Says so, and
// what to set, when the chosen core is such a baseline on a CPU with AVX2.
std::string openblas_core_warning(void* handle) {
    auto corename = sym<const char* (*)()>(handle, "openblas_get_corename");
    const char* core = corename ? corename() : nullptr;
    if (!core) return "";
    static const char* const kBaseline[] = {"Prescott", "Core2", "Penryn", "Dunnington", "Nehalem",
                                            "Katmai", "Coppermine", "Northwood", "Banias", "Atom"};
    bool baseline = false;
    for (const char* b : kBaseline) baseline = baseline || strcasecmp(core, b) == 0;
#if defined(__x86_64__) || defined(__i386__)
    if (!baseline || !__builtin_cpu_supports("avx2")) return "";
    const bool avx512 = __builtin_cpu_supports("avx512f");
#else
    return "";  // the baseline names above are x86 cores
    const bool avx512 = false;
#endif
    return std::string("OpenBLAS chose its generic ") + core +
           " kernels on a CPU with AVX2 that its DYNAMIC_ARCH table does not know; set OPENBLAS_CORETYPE=" +
           (avx512 ? "SkylakeX" : "Haswell") + " before the process starts for several times the speed";
}

// Fills lib from an open handle; false with *why when it lacks cblas_sgemm or is a
// generic name behind which no tuned library was identified.
bool adopt(void* handle, const Candidate& c, Cblas* lib, std::string* why) {
    auto sgemm = sym<SgemmFn>(handle, "cblas_sgemm");
    if (!sgemm) {
        *why = "has no cblas_sgemm";
        return false;
    }
    std::string version;
    const Family family = identify(handle, &version);
    if (family == Family::unknown && c.generic) {
        *why = "is no library opkit recognizes (not OpenBLAS, BLIS or MKL; likely the reference "
               "BLAS, slower than opkit's own kernel); name it in OPKIT_BLAS_LIBRARY to use it anyway";
        return false;
    }
    lib->handle = handle;
    lib->family = family;
    lib->sgemm = sgemm;
    lib->sbgemm = sym<SbgemmFn>(handle, "cblas_sbgemm");
    Dl_info info{};
    lib->file = dladdr(reinterpret_cast<void*>(sgemm), &info) && info.dli_fname ? info.dli_fname : c.name;
    lib->description = version + " (" + lib->file + ")";
    if (lib->family == Family::openblas) lib->warning = openblas_core_warning(handle);
    if (lib->sbgemm) lib->description += ", cblas_sbgemm for bf16";
    return true;
}

}  // namespace

const char* family_name(Family f) {
    switch (f) {
    case Family::openblas: return "OpenBLAS";
    case Family::blis: return "BLIS";
    case Family::mkl: return "MKL";
    case Family::unknown: break;
    }
    return "unidentified";
}

bool load_cblas(Cblas* out, std::string* why) {
    std::vector<Candidate> order = default_order();
    const bool from_env = order_from_env(&order);
    if (order.empty()) {
        *why = "OPKIT_BLAS_LIBRARY is set but names no library";
        return false;
    }
    std::string tried;
    // Pass 1: a candidate the process has already loaded (numpy's BLAS, say): sharing it
    // keeps one BLAS thread pool in the process. Pass 2: load in order.
    for (int pass = 0; pass < 2; ++pass) {
        for (const Candidate& c : order) {
            const int flags = RTLD_NOW | RTLD_LOCAL | (pass == 0 ? RTLD_NOLOAD : 0);
            void* h = dlopen(c.name.c_str(), flags);
            if (!h) {
                if (pass == 1) {
                    const char* e = dlerror();
                    tried += "; " + c.name + ": " + (e ? e : "not found");
                }
                continue;
            }
            std::string reason;
            if (adopt(h, c, out, &reason)) return true;
            dlclose(h);
            if (pass == 1) tried += "; " + c.name + " " + reason;
        }
    }
    *why = std::string("no usable CBLAS found (") + (from_env ? "OPKIT_BLAS_LIBRARY" : "install libopenblas0") +
           ")" + tried;
    return false;
}

int library_threads(const Cblas& lib) {
    switch (lib.family) {
    case Family::openblas:
        if (auto f = sym<int (*)()>(lib.handle, "openblas_get_num_threads")) return f();
        break;
    case Family::blis:  // dim_t, 64-bit
        if (auto f = sym<int64_t (*)()>(lib.handle, "bli_thread_get_num_threads")) return int(f());
        break;
    case Family::mkl:
        if (auto f = sym<int (*)()>(lib.handle, "MKL_Get_Max_Threads")) return f();
        break;
    case Family::unknown: break;
    }
    return 0;
}

void unload_cblas(Cblas* lib) {
    if (lib->handle) dlclose(lib->handle);
    *lib = Cblas{};
}

std::string apply_thread_policy(const Cblas& lib) {
    const char* own[3] = {nullptr, nullptr, "OMP_NUM_THREADS"};
    void (*set_int)(int) = nullptr;
    void (*set_dim)(int64_t) = nullptr;  // BLIS takes a dim_t
    switch (lib.family) {
    case Family::openblas:
        own[0] = "OPENBLAS_NUM_THREADS";
        own[1] = "GOTO_NUM_THREADS";
        set_int = sym<void (*)(int)>(lib.handle, "openblas_set_num_threads");
        break;
    case Family::blis:
        own[0] = "BLIS_NUM_THREADS";
        set_dim = sym<void (*)(int64_t)>(lib.handle, "bli_thread_set_num_threads");
        break;
    case Family::mkl:
        own[0] = "MKL_NUM_THREADS";
        set_int = sym<void (*)(int)>(lib.handle, "MKL_Set_Num_Threads");
        break;
    case Family::unknown: return "threads: the library's own";
    }
    for (const char* var : own)
        if (var && getenv(var)) return std::string("threads: the library's own (") + var + " is set)";
    const char* want = getenv("OPKIT_NUM_THREADS");
    const long n = want ? strtol(want, nullptr, 10) : 0;
    if (n <= 0 || n > 4096) return "threads: the library's own";
    if (set_int)
        set_int(int(n));
    else if (set_dim)
        set_dim(int64_t(n));
    else
        return "threads: the library's own (it offers no setter)";
    return "threads: " + std::to_string(n) + " (OPKIT_NUM_THREADS)";
}

}  // namespace opkit_blas
