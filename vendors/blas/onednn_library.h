// oneDNN's GEMMs, found and loaded at run time (dlopen), never linked. bf16 matmul takes
// it where it is installed, because its kernels use the CPU's AMX tiles and AVX512-BF16
// dot products, which no CBLAS of Debian 12 does (OpenBLAS 0.3.21 has no cblas_sbgemm
// there, so bf16 would be widened to fp32). f32 products with beta 0 take its sgemm
// where the CBLAS is not tuned for the CPU (vendor.h): oneDNN picks its kernels by the
// CPU's features, not its model name, where OpenBLAS falls back to SSE3 kernels on CPUs it
// does not know. Without it the CBLAS serves as before (docs/blas-vendor.md).
//
// Search order: libdnnl.so.3, then libdnnl.so.2 (Debian 12's libdnnl2). $OPKIT_ONEDNN_LIBRARY,
// a ':'-separated list of sonames or paths, replaces it; set and empty, oneDNN is not used.
// A library is taken only when a 2x2x2 product through it returns success and the right
// numbers (oneDNN builds for CPUs without AVX-512 answer dnnl_unimplemented for bf16).
#pragma once

#include "openmp_team.h"

#include <cstdint>
#include <string>

namespace opkit_blas {

// dnnl_gemm_bf16bf16f32 (oneDNN's C API, BLAS-like): row-major, transposes as 'N' / 'T',
// sizes and leading dimensions as dnnl_dim_t (int64_t), bf16 operands as their 16-bit
// patterns, fp32 C; returns dnnl_status_t, 0 on success.
using GemmBf16Fn = int (*)(char trans_a, char trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                           const uint16_t* a, int64_t lda, const uint16_t* b, int64_t ldb, float beta, float* c,
                           int64_t ldc);

// dnnl_sgemm: the same form in fp32.
using SgemmDnnlFn = int (*)(char trans_a, char trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                            const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
                            int64_t ldc);

struct OneDnn {
    void* handle = nullptr;
    GemmBf16Fn gemm_bf16 = nullptr;
    SgemmDnnlFn sgemm = nullptr;  // checked like gemm_bf16; NULL when it failed the check
    // OpenMP's setter where oneDNN runs on OpenMP (Debian's build does), and the count
    // OPKIT_NUM_THREADS asks for (0: leave OpenMP's own, e.g. OMP_NUM_THREADS).
    void (*omp_set_num_threads)(int) = nullptr;
    int threads = 0;
    // Its OpenMP team for the vendor's row loops (openmp_team.h); empty where oneDNN does
    // not run on OpenMP.
    OpenMpTeam team;
    std::string description;  // "oneDNN 2.6.3 (/usr/lib/.../libdnnl.so.2)"
};

// Loads the first library of the order that multiplies correctly. false with *why (each
// candidate and what was wrong with it) when none does, or when the variable disables it.
bool load_onednn(OneDnn* out, std::string* why);
void unload_onednn(OneDnn* lib);

// Each applies the thread count (if any) to the calling thread, then multiplies; 0 on
// success, oneDNN's status otherwise.
int onednn_sgemm(const OneDnn& lib, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                 const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc);
int onednn_gemm_bf16(const OneDnn& lib, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                     const uint16_t* a, int64_t lda, const uint16_t* b, int64_t ldb, float beta, float* c,
                     int64_t ldc);

}  // namespace opkit_blas
