// A stand-in CBLAS for the vendor's tests, loaded through OPKIT_BLAS_LIBRARY: cblas_sgemm
// and cblas_sbgemm (which Debian's OpenBLAS is built without) computed plainly in double,
// each counting its calls (fake_cblas_calls), so a test can prove which path the vendor
// took. It identifies as no known library, as a named library may.
#include <cstdint>
#include <cstring>

namespace {

int g_sgemm = 0, g_sbgemm = 0;

float bf16_value(uint16_t h) {
    const uint32_t u = uint32_t(h) << 16;
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

// Row-major only (all the vendor uses); 112 = CblasTrans.
template <class T, class Load>
void gemm(int ta, int tb, int m, int n, int k, float alpha, const T* a, int lda, const T* b, int ldb,
          float beta, float* c, int ldc, Load load) {
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
            double s = 0;
            for (int p = 0; p < k; ++p) {
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

// Calls of "sgemm" or "sbgemm" since the library was loaded.
extern "C" __attribute__((visibility("default"))) int fake_cblas_calls(const char* which) {
    return std::strcmp(which, "sbgemm") == 0 ? g_sbgemm : g_sgemm;
}
