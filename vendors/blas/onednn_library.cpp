#include "onednn_library.h"

#include "half_convert.h"
#include "library_list.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <vector>

namespace opkit_blas {
namespace {

// dnnl_version_t of oneDNN's C API (stable across 2.x and 3.x): what dnnl_version()
// points at.
struct DnnlVersion {
    int major, minor, patch;
    const char* hash;
    unsigned cpu_runtime, gpu_runtime;
};
constexpr unsigned kRuntimeOpenMp = 2;  // DNNL_RUNTIME_OMP

constexpr float kCheckWant[4] = {19, 22, 43, 50};

// The same 2x2x2 product in fp32.
bool sgemm_multiplies_correctly(SgemmDnnlFn sgemm) {
    const float a[4] = {1, 2, 3, 4}, b[4] = {5, 7, 6, 8};
    float c[4] = {-1, -1, -1, -1};
    return sgemm('N', 'T', 2, 2, 2, 1.0f, a, 2, b, 2, 0.0f, c, 2) == 0 && std::equal(c, c + 4, kCheckWant);
}

// A 2x2x2 product with a transposed b, through the library: its status and numbers.
// [[1, 2], [3, 4]] x [[5, 7], [6, 8]]^T = [[19, 22], [43, 50]].
bool multiplies_correctly(GemmBf16Fn gemm, int* status) {
    uint16_t a[4], b[4];
    const float av[4] = {1, 2, 3, 4}, bv[4] = {5, 7, 6, 8};
    for (int i = 0; i < 4; ++i) {
        a[i] = f32_to_bf16(av[i]);
        b[i] = f32_to_bf16(bv[i]);
    }
    float c[4] = {-1, -1, -1, -1};
    *status = gemm('N', 'T', 2, 2, 2, 1.0f, a, 2, b, 2, 0.0f, c, 2);
    return *status == 0 && std::equal(c, c + 4, kCheckWant);
}

// OPKIT_NUM_THREADS, applied to oneDNN's OpenMP unless OpenMP's own variable is set.
int wanted_threads() {
    if (getenv("OMP_NUM_THREADS")) return 0;
    const char* want = getenv("OPKIT_NUM_THREADS");
    const long n = want ? strtol(want, nullptr, 10) : 0;
    return n > 0 && n <= 4096 ? int(n) : 0;
}

// Fills lib from an open handle; false with *why when it is not a working oneDNN.
bool adopt(void* handle, const std::string& name, OneDnn* lib, std::string* why) {
    auto gemm = reinterpret_cast<GemmBf16Fn>(dlsym(handle, "dnnl_gemm_bf16bf16f32"));
    auto version = reinterpret_cast<const DnnlVersion* (*)()>(dlsym(handle, "dnnl_version"));
    if (!gemm || !version) {
        *why = "has no dnnl_gemm_bf16bf16f32 / dnnl_version";
        return false;
    }
    int status = 0;
    if (!multiplies_correctly(gemm, &status)) {
        *why = status ? "declines bf16 GEMM on this CPU (dnnl_status " + std::to_string(status) + ")"
                      : "returned wrong numbers for a 2x2x2 bf16 product";
        return false;
    }
    const DnnlVersion* v = version();
    lib->handle = handle;
    lib->gemm_bf16 = gemm;
    auto sgemm = reinterpret_cast<SgemmDnnlFn>(dlsym(handle, "dnnl_sgemm"));
    lib->sgemm = sgemm && sgemm_multiplies_correctly(sgemm) ? sgemm : nullptr;
    if (v && v->cpu_runtime == kRuntimeOpenMp) {
        lib->omp_set_num_threads = reinterpret_cast<void (*)(int)>(dlsym(handle, "omp_set_num_threads"));
        lib->threads = lib->omp_set_num_threads ? wanted_threads() : 0;
        lib->team = find_openmp_team(handle);
        lib->team.threads = lib->threads;
    }
    Dl_info info{};
    const std::string file =
        dladdr(reinterpret_cast<void*>(gemm), &info) && info.dli_fname ? info.dli_fname : name;
    lib->description = "oneDNN " + (v ? std::to_string(v->major) + "." + std::to_string(v->minor) + "." +
                                            std::to_string(v->patch)
                                      : std::string("?")) +
                       " (" + file + ")";
    return true;
}

}  // namespace

bool load_onednn(OneDnn* out, std::string* why) {
    std::vector<std::string> order = {"libdnnl.so.3", "libdnnl.so.2"};
    const bool from_env = library_list_from_env("OPKIT_ONEDNN_LIBRARY", &order);
    if (order.empty()) {
        *why = "OPKIT_ONEDNN_LIBRARY is set and empty";
        return false;
    }
    std::string tried;
    for (const std::string& name : order) {
        // RTLD_NODELETE: oneDNN starts OpenMP worker threads that outlive any call, and
        // libgomp never stops them; unmapping its code under them (dlclose at shutdown)
        // would leave them to crash (LeakSanitizer's tracer did, at exit).
        void* h = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
        if (!h) {
            const char* e = dlerror();
            tried += (tried.empty() ? "" : "; ") + name + ": " + (e ? e : "not found");
            continue;
        }
        std::string reason;
        if (adopt(h, name, out, &reason)) return true;
        dlclose(h);
        tried += (tried.empty() ? "" : "; ") + name + " " + reason;
    }
    *why = std::string("no oneDNN for bf16 (") + (from_env ? "OPKIT_ONEDNN_LIBRARY" : "install libdnnl2") +
           "): " + tried;
    return false;
}

void unload_onednn(OneDnn* lib) {
    if (lib->handle) dlclose(lib->handle);
    *lib = OneDnn{};
}

int onednn_sgemm(const OneDnn& lib, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                 const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
    if (lib.threads > 0) lib.omp_set_num_threads(lib.threads);
    return lib.sgemm(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

int onednn_gemm_bf16(const OneDnn& lib, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                     const uint16_t* a, int64_t lda, const uint16_t* b, int64_t ldb, float beta, float* c,
                     int64_t ldc) {
    // OpenMP's thread count is per calling thread: set where this call runs.
    if (lib.threads > 0) lib.omp_set_num_threads(lib.threads);
    return lib.gemm_bf16(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

}  // namespace opkit_blas
