// The system's CBLAS, found and loaded at run time (dlopen), never linked: the vendor
// installs and loads on a machine without any BLAS, and reports NO_DEVICE there.
//
// Search order (docs/blas-vendor.md says why): a candidate already loaded in the process
// first (one BLAS thread pool per process), then OpenBLAS, BLIS, MKL's single dynamic
// library, and last the generic libcblas.so.3 / libblas.so.3 of Debian's alternatives
// system, taken only when it identifies as one of the tuned libraries (a reference BLAS
// is slower than opkit's own kernel). $OPKIT_BLAS_LIBRARY, a ':'-separated list of
// sonames or paths, replaces the order; what it names is taken even when unidentified;
// set and empty, it names nothing (the vendor is then NO_DEVICE).
#pragma once

#include <cstdint>
#include <string>

namespace opkit_blas {

// CBLAS's enum values (cblas.h), passed as int as every CBLAS ABI does.
enum : int { kRowMajor = 101, kNoTrans = 111, kTrans = 112 };

using SgemmFn = void (*)(int order, int trans_a, int trans_b, int m, int n, int k, float alpha,
                         const float* a, int lda, const float* b, int ldb, float beta, float* c,
                         int ldc);
// OpenBLAS's bf16 GEMM (built with BUILD_BFLOAT16): bf16 operands, fp32 accumulation and
// an fp32 C.
using SbgemmFn = void (*)(int order, int trans_a, int trans_b, int m, int n, int k, float alpha,
                          const uint16_t* a, int lda, const uint16_t* b, int ldb, float beta,
                          float* c, int ldc);

enum class Family { openblas, blis, mkl, unknown };
const char* family_name(Family f);

struct Cblas {
    void* handle = nullptr;
    Family family = Family::unknown;
    std::string file;         // the file cblas_sgemm lives in (dladdr)
    std::string description;  // "OpenBLAS 0.3.21 ... (/usr/lib/.../libopenblas.so.0)"
    std::string warning;      // non-empty: a reason it will be slow here (logged, in detail)
    SgemmFn sgemm = nullptr;
    SbgemmFn sbgemm = nullptr;  // NULL when the library has none: bf16 is converted
};

// Loads the first usable library of the search order. false with *why (naming every
// candidate and what was wrong with it) when none is.
bool load_cblas(Cblas* out, std::string* why);
// The library's thread count where it tells (OpenBLAS, BLIS, MKL); 0 when it doesn't.
int library_threads(const Cblas& lib);
// dlcloses it (a BLAS that was loaded before stays loaded: dlclose only drops a reference).
void unload_cblas(Cblas* lib);

// With $OPKIT_NUM_THREADS > 0 and none of the library's own thread variables set, sets
// the library's thread count to it (process-wide: the library is shared). Returns a
// sentence saying what it did, for the version note.
std::string apply_thread_policy(const Cblas& lib);

}  // namespace opkit_blas
