// A stand-in CBLAS for the vendor's tests, loaded through OPKIT_BLAS_LIBRARY: cblas_sgemm
// and cblas_sbgemm (which Debian's OpenBLAS is built without) computed plainly in double,
// each counting its calls (fake_cblas_calls), so a test can prove which path the vendor
// took. It identifies as no known library, as a named library may.
//
// It also stands in for oneDNN, loaded through OPKIT_ONEDNN_LIBRARY: dnnl_version and
// dnnl_gemm_bf16bf16f32 (row-major, 'N' / 'T', 64-bit sizes), which misbehaves as
// $FAKE_ONEDNN says, read at each call: "unimplemented" (every call returns
// dnnl_unimplemented, as oneDNN does for bf16 on CPUs without AVX-512), "wrong" (every
// result off by one), "fail-after=N" (N calls succeed, then each scribbles over C and
// returns dnnl_out_of_memory). Its dnnl_sgemm counts its calls ("dnnl_sgemm") and, with
// $FAKE_ONEDNN_SGEMM=fail, scribbles over C and fails every call after init's check.
//
// With $FAKE_OPENMP_TEAM=N (read when the vendor loads it) it says it runs on OpenMP and
// exports the entry points the vendor borrows (GOMP_parallel, omp_get_*_threads,
// omp_get_thread_num, omp_set_num_threads): a region runs its function once for each
// thread of a team of min(asked, N), one after another on the calling thread, so a test
// sees how the vendor cut the rows ("omp_regions", "omp_team": the last team's size).
// Built with FAKE_CBLAS_REAL_OPENMP (opkit_fake_cblas_openmp) it runs on GNU OpenMP
// instead, as Debian's oneDNN does: real threads, found through its dependencies.
#include <cstdint>
#include <cstdlib>
#include <cstring>

#ifdef FAKE_CBLAS_REAL_OPENMP
#include <dlfcn.h>
#include <omp.h>

#include <atomic>
#endif

namespace {

int g_sgemm = 0, g_sbgemm = 0, g_dnnl = 0, g_dnnl_sgemm = 0;
int g_omp_regions = 0, g_omp_team = 0, g_omp_thread = 0, g_omp_set = 0, g_in_region = 0;

int team_cap() {
    const char* v = getenv("FAKE_OPENMP_TEAM");
    return v ? atoi(v) : 0;
}

float bf16_value(uint16_t h) {
    const uint32_t u = uint32_t(h) << 16;
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

// Row-major only (all the vendor uses); 112 = CblasTrans.
template <class T, class Load>
void gemm(int ta, int tb, int64_t m, int64_t n, int64_t k, float alpha, const T* a, int64_t lda, const T* b,
          int64_t ldb, float beta, float* c, int64_t ldc, Load load) {
    for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
            double s = 0;
            for (int64_t p = 0; p < k; ++p) {
                const double av = load(ta == 112 ? a[p * lda + i] : a[i * lda + p]);
                const double bv = load(tb == 112 ? b[j * ldb + p] : b[p * ldb + j]);
                s += av * bv;
            }
            float& cv = c[i * ldc + j];
            cv = float(alpha * s + (beta != 0.0f ? double(beta) * cv : 0.0));
        }
}

}  // namespace

extern "C" __attribute__((visibility("default"))) void cblas_sgemm(int, int ta, int tb, int m, int n, int k,
                                                                   float alpha, const float* a, int lda,
                                                                   const float* b, int ldb, float beta, float* c,
                                                                   int ldc) {
    ++g_sgemm;
    gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, [](float v) { return double(v); });
}

extern "C" __attribute__((visibility("default"))) void cblas_sbgemm(int, int ta, int tb, int m, int n, int k,
                                                                    float alpha, const uint16_t* a, int lda,
                                                                    const uint16_t* b, int ldb, float beta,
                                                                    float* c, int ldc) {
    ++g_sbgemm;
    gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, [](uint16_t v) { return double(bf16_value(v)); });
}

struct DnnlVersion {  // dnnl_version_t
    int major, minor, patch;
    const char* hash;
    unsigned cpu_runtime, gpu_runtime;
};

extern "C" __attribute__((visibility("default"))) const DnnlVersion* dnnl_version() {
    static DnnlVersion v = {9, 9, 9, "fake", 1, 0};
#ifdef FAKE_CBLAS_REAL_OPENMP
    v.cpu_runtime = 2;  // OpenMP
#else
    v.cpu_runtime = team_cap() > 0 ? 2 /* OpenMP */ : 1 /* sequential */;
#endif
    return &v;
}

#ifdef FAKE_CBLAS_REAL_OPENMP
// The OpenMP build (opkit_fake_cblas_openmp): GNU OpenMP is a dependency of this library,
// as of Debian's oneDNN, and serves omp_get_* itself; GOMP_parallel only counts the region
// and the largest team it really ran with, and passes it on to libgomp's.
namespace {
std::atomic<int> g_real_team{0};
struct Forward {
    void (*fn)(void*);
    void* data;
};
void run_forward(void* p) {
    const Forward& f = *static_cast<const Forward*>(p);
    const int n = omp_get_num_threads();
    int seen = g_real_team.load();
    while (n > seen && !g_real_team.compare_exchange_weak(seen, n)) {
    }
    f.fn(f.data);
}
}  // namespace

extern "C" __attribute__((visibility("default"))) void GOMP_parallel(void (*fn)(void*), void* data,
                                                                     unsigned threads, unsigned flags) {
    using Fn = void (*)(void (*)(void*), void*, unsigned, unsigned);
    static const Fn real = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, "GOMP_parallel"));
    ++g_omp_regions;
    Forward f{fn, data};
    real(run_forward, &f, threads, flags);
    g_omp_team = g_real_team.load();
}
#else
extern "C" __attribute__((visibility("default"))) void GOMP_parallel(void (*fn)(void*), void* data,
                                                                     unsigned threads, unsigned) {
    ++g_omp_regions;
    const int cap = team_cap() > 0 ? team_cap() : 1;
    g_omp_team = threads == 0 || int(threads) > cap ? cap : int(threads);
    g_in_region = 1;
    for (g_omp_thread = 0; g_omp_thread < g_omp_team; ++g_omp_thread) fn(data);
    g_omp_thread = 0;
    g_in_region = 0;
}
extern "C" __attribute__((visibility("default"))) int omp_get_max_threads() {
    return g_omp_set > 0 ? g_omp_set : team_cap();
}
extern "C" __attribute__((visibility("default"))) int omp_get_thread_num() { return g_omp_thread; }
extern "C" __attribute__((visibility("default"))) int omp_get_num_threads() { return g_in_region ? g_omp_team : 1; }
extern "C" __attribute__((visibility("default"))) void omp_set_num_threads(int n) { g_omp_set = n; }
#endif

extern "C" __attribute__((visibility("default"))) int dnnl_gemm_bf16bf16f32(
    char ta, char tb, int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a, int64_t lda,
    const uint16_t* b, int64_t ldb, float beta, float* c, int64_t ldc) {
    ++g_dnnl;
    const char* mode = getenv("FAKE_ONEDNN");
    mode = mode ? mode : "";
    if (std::strcmp(mode, "unimplemented") == 0) return 5;  // dnnl_unimplemented
    if (std::strncmp(mode, "fail-after=", 11) == 0 && g_dnnl > atoi(mode + 11)) {
        for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = 12345.0f;
        return 1;  // dnnl_out_of_memory
    }
    gemm(ta == 'T' ? 112 : 111, tb == 'T' ? 112 : 111, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc,
         [](uint16_t v) { return double(bf16_value(v)); });
    if (std::strcmp(mode, "wrong") == 0)
        for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j) c[i * ldc + j] += 1.0f;
    return 0;
}

extern "C" __attribute__((visibility("default"))) int dnnl_sgemm(char ta, char tb, int64_t m, int64_t n, int64_t k,
                                                                  float alpha, const float* a, int64_t lda,
                                                                  const float* b, int64_t ldb, float beta, float* c,
                                                                  int64_t ldc) {
    ++g_dnnl_sgemm;
    const char* mode = getenv("FAKE_ONEDNN_SGEMM");
    const bool is_check = m == 2 && n == 2 && k == 2;  // init's 2x2x2 product always succeeds
    if (mode && std::strcmp(mode, "fail") == 0 && !is_check) {
        for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = 12345.0f;
        return 1;  // dnnl_out_of_memory
    }
    gemm(ta == 'T' ? 112 : 111, tb == 'T' ? 112 : 111, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc,
         [](float v) { return double(v); });
    return 0;
}

// Calls of "sgemm", "sbgemm", "dnnl" (bf16) or "dnnl_sgemm" since the library was loaded.
extern "C" __attribute__((visibility("default"))) int fake_cblas_calls(const char* which) {
    if (std::strcmp(which, "dnnl") == 0) return g_dnnl;
    if (std::strcmp(which, "dnnl_sgemm") == 0) return g_dnnl_sgemm;
    if (std::strcmp(which, "omp_regions") == 0) return g_omp_regions;
    if (std::strcmp(which, "omp_team") == 0) return g_omp_team;
    return std::strcmp(which, "sbgemm") == 0 ? g_sbgemm : g_sgemm;
}
