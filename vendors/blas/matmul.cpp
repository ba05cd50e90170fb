// opkit_vendor_matmul: c = alpha * op(a) * op(b) + beta * c through the loaded CBLAS.
//
// f32 calls go straight to cblas_sgemm, one call per batch (or one for the whole batch
// when a stacked [batch*M, K] x [K, N] is the same product, the linear layer's case).
// bf16 goes to oneDNN's bf16 GEMM where libdnnl is installed, else to cblas_sbgemm where
// the library has it (fp32 C block, rounded back); otherwise bf16 and f16 are widened to
// fp32 by blocks of rows, multiplied by sgemm and rounded back once. Declined
// (OPKIT_ERROR_UNSUPPORTED, nothing written), for the CPU default to serve: alpha == 0
// (BLAS skips op(a)*op(b), so a NaN there would not propagate as the default's does),
// sizes past CBLAS's 32-bit int, and f32 operands whose rows BLAS cannot address in
// place (a stride smaller than the row, e.g. a broadcast row of stride 0).
#include "errors.h"
#include "op_spec.hpp"
#include "half_convert.h"
#include "matrix_view.h"
#include "vendor.h"

#include <algorithm>
#include <cinttypes>
#include <climits>
#include <memory>
#include <type_traits>
#include <vector>

namespace opkit_blas {
namespace {

struct Problem {
    int64_t M, N, K, batches;
    bool trans_a, trans_b;
    float alpha, beta;
    MatrixView a, b, c;
};

bool fits_int(int64_t v) { return v >= 0 && v <= INT_MAX; }

opkit_status check_limits(const Problem& p) {
    for (int64_t v : {p.M, p.N, p.K, p.a.ld(), p.b.ld(), p.c.ld()})
        if (!fits_int(v))
            return OPKIT_BLAS_DECLINE("matmul: a size or leading dimension (%" PRId64
                                      ") exceeds CBLAS's 32-bit int", v);
    return OPKIT_OK;
}

// The stacked form: every batch of a and c one [batch*M, K] / [batch*M, N] matrix
// (consecutive batches at rows*ld), b shared. One sgemm instead of `batches`.
bool stackable(const Problem& p) {
    if (p.batches <= 1 || p.trans_a || p.b.batches != 1 || p.a.batches != p.batches) return false;
    return p.a.rows > 1 && p.c.rows > 1 && p.a.batch_stride == p.a.rows * p.a.ld() &&
           p.c.batch_stride == p.c.rows * p.c.ld() && fits_int(p.batches * p.M);
}

// f32: oneDNN's sgemm where the vendor chose it for f32 (onednn_for_f32, vendor.h) and
// beta is 0, else cblas_sgemm. With beta 0, c is only written, so a oneDNN call that fails
// (its status, never seen in the tests) is simply made again through the CBLAS; with
// beta != 0 a failed call could have left c half-updated, so those products stay with the
// CBLAS.
void sgemm_f32(const Cblas& lib, const OneDnn* onednn, const Problem& p) {
    const bool use_onednn = onednn && p.beta == 0.0f;
    auto gemm = [&](int64_t m, const void* a, const void* b, void* c) {
        const float* af = static_cast<const float*>(a);
        const float* bf = static_cast<const float*>(b);
        float* cf = static_cast<float*>(c);
        if (use_onednn && onednn_sgemm(*onednn, p.trans_a, p.trans_b, m, p.N, p.K, p.alpha, af, p.a.ld(), bf,
                                       p.b.ld(), p.beta, cf, p.c.ld()) == 0)
            return;
        lib.sgemm(kRowMajor, p.trans_a ? kTrans : kNoTrans, p.trans_b ? kTrans : kNoTrans, int(m), int(p.N),
                  int(p.K), p.alpha, af, int(p.a.ld()), bf, int(p.b.ld()), p.beta, cf, int(p.c.ld()));
    };
    if (stackable(p)) {
        gemm(p.batches * p.M, p.a.batch(0), p.b.batch(0), p.c.batch(0));
        return;
    }
    for (int64_t i = 0; i < p.batches; ++i) gemm(p.M, p.a.batch(i), p.b.batch(i), p.c.batch(i));
}

// Rows of op(a) and c per block on the 16-bit paths: enough work per GEMM call to keep
// the library's threads busy, with fp32 scratch bounded near 16 MiB for the a and c blocks.
int64_t block_rows(const Problem& p) {
    const int64_t budget = int64_t(4) << 20;  // floats
    const int64_t rows = std::max<int64_t>(256, budget / std::max<int64_t>(1, p.K + p.N));
    return std::min(rows, std::max<int64_t>(1, p.M));
}

// c's block of rows [i0, i0 + rows) as fp32 (read only when beta != 0), and back: both
// split across oneDNN's OpenMP team where there is one (openmp_team.h).
void load_c_block(const OpenMpTeam* team, Half h, const Problem& p, int64_t batch, int64_t i0, int64_t rows,
                  float* out) {
    if (p.beta == 0.0f) return;
    for_row_ranges(team, rows, p.N, [&](int64_t first, int64_t end) {
        widen_block(h, p.c.batch(batch), p.c.ld(), i0 + first, end - first, 0, p.N, out + first * p.N);
    });
}

void store_c_block(const OpenMpTeam* team, Half h, const Problem& p, int64_t batch, int64_t i0, int64_t rows,
                   const float* block) {
    for_row_ranges(team, rows, p.N, [&](int64_t first, int64_t end) {
        narrow_block(h, block + first * p.N, end - first, p.N, p.c.batch(batch), p.c.ld(), i0 + first);
    });
}

// bf16/f16 widened to fp32 and multiplied by sgemm, a block of op(a)'s rows at a time: b
// widened once per batch (once in all when it broadcasts), a by blocks.
class WidenedGemm {
public:
    WidenedGemm(const Cblas& lib, Half h, const Problem& p, int64_t mb)
        : lib_(lib), h_(h), p_(p), bw_(size_t(std::max<int64_t>(1, p.b.rows * p.b.cols))),
          ablock_(size_t(std::max<int64_t>(1, mb * p.K))) {}

    // c's fp32 block (holding c's values where beta != 0) += op(a)'s rows times op(b).
    void block(int64_t batch, int64_t i0, int64_t rows, float* cblock) {
        const int64_t b_batch = p_.b.batches == 1 ? 0 : batch;
        if (b_batch != widened_b_) {
            widen_block(h_, p_.b.batch(b_batch), p_.b.ld(), 0, p_.b.rows, 0, p_.b.cols, bw_.data());
            widened_b_ = b_batch;
        }
        // op(a)'s rows [i0, i0 + rows): stored rows of a, or stored columns of a^T
        if (p_.trans_a)
            widen_block(h_, p_.a.batch(batch), p_.a.ld(), 0, p_.K, i0, rows, ablock_.data());
        else
            widen_block(h_, p_.a.batch(batch), p_.a.ld(), i0, rows, 0, p_.K, ablock_.data());
        const int64_t lda = p_.trans_a ? rows : p_.K;
        lib_.sgemm(kRowMajor, p_.trans_a ? kTrans : kNoTrans, p_.trans_b ? kTrans : kNoTrans, int(rows), int(p_.N),
                   int(p_.K), p_.alpha, ablock_.data(), int(std::max<int64_t>(1, lda)), bw_.data(),
                   int(std::max<int64_t>(1, p_.b.cols)), p_.beta, cblock, int(p_.N));
    }

private:
    const Cblas& lib_;
    const Half h_;
    const Problem& p_;
    std::vector<float> bw_, ablock_;
    int64_t widened_b_ = -1;
};

// The fp32 block of c. Up to 16 MiB it is kept by the calling thread from call to call:
// allocated afresh, its zero fill and first-touch page faults cost 0.8 ms of a 3.9 ms bf16
// 1024^3 product through oneDNN on one core. A larger block (block_rows' floor of 256 rows
// times a very wide c, an LM head's 128K columns say) lives in `call_owned` for this call
// only, so no thread keeps hundreds of MiB after it.
float* c_scratch(size_t floats, std::vector<float>& call_owned) {
    constexpr size_t kKeptFloats = size_t(4) << 20;  // 16 MiB
    if (floats > kKeptFloats) {
        call_owned.resize(floats);
        return call_owned.data();
    }
    thread_local std::vector<float> kept;
    if (kept.size() < floats) kept.resize(floats);
    return kept.data();
}

// The 16-bit paths: c by blocks of rows through fp32, rounded back once. Each block goes
// to native(batch, i0, rows, cblock), a library's own 16-bit GEMM on a and b in place,
// which returns false when it fails; that block is then widened instead (from c's values
// again: a failed call may have written the block). With native = nullptr every block is
// widened.
template <class Native>
void half_gemm(const Cblas& lib, const OpenMpTeam* team, Half h, const Problem& p, Native&& native) {
    constexpr bool kHasNative = !std::is_same_v<std::decay_t<Native>, std::nullptr_t>;
    const int64_t mb = block_rows(p);
    std::vector<float> call_owned;
    float* const cblock = c_scratch(size_t(mb * p.N), call_owned);
    std::unique_ptr<WidenedGemm> widened;  // made at the first block that needs it
    for (int64_t batch = 0; batch < p.batches; ++batch)
        for (int64_t i0 = 0; i0 < p.M; i0 += mb) {
            const int64_t rows = std::min(mb, p.M - i0);
            load_c_block(team, h, p, batch, i0, rows, cblock);
            bool served = false;
            if constexpr (kHasNative) {
                served = native(batch, i0, rows, cblock);
                if (!served) load_c_block(team, h, p, batch, i0, rows, cblock);
            }
            if (!served) {
                if (!widened) widened = std::make_unique<WidenedGemm>(lib, h, p, mb);
                widened->block(batch, i0, rows, cblock);
            }
            store_c_block(team, h, p, batch, i0, rows, cblock);
        }
}

// op(a)'s rows [i0, ...) of a batch, addressed in place: rows of a, or columns of a^T.
const uint16_t* a_rows(const Problem& p, int64_t batch, int64_t i0) {
    const uint16_t* a = reinterpret_cast<const uint16_t*>(p.a.batch(batch));
    return p.trans_a ? a + i0 : a + i0 * p.a.ld();
}

const uint16_t* b_of(const Problem& p, int64_t batch) {
    return reinterpret_cast<const uint16_t*>(p.b.batch(batch));
}

// bf16 through oneDNN (AMX / AVX512-BF16 kernels where the CPU has them), else the CBLAS's
// cblas_sbgemm, else widened; f16 widened (neither library of Debian 12 has an f16 GEMM).
void gemm_16bit(const Cblas& lib, const OneDnn* onednn, Half h, const Problem& p) {
    const bool in_place = p.a.blas_addressable() && p.b.blas_addressable();
    if (h == Half::bf16 && in_place && onednn) {
        // The rounding in the GEMM's own OpenMP team; the CBLAS paths below keep it on the
        // calling thread: waking OpenMP's team there would leave its threads spinning
        // (GNU OpenMP's default wait) beside the CBLAS's own during the next block's GEMM.
        half_gemm(lib, &onednn->team, h, p, [&](int64_t batch, int64_t i0, int64_t rows, float* cblock) {
            return onednn_gemm_bf16(*onednn, p.trans_a, p.trans_b, rows, p.N, p.K, p.alpha, a_rows(p, batch, i0),
                                    p.a.ld(), b_of(p, batch), p.b.ld(), p.beta, cblock, p.N) == 0;
        });
    } else if (h == Half::bf16 && in_place && lib.sbgemm) {
        half_gemm(lib, nullptr, h, p, [&](int64_t batch, int64_t i0, int64_t rows, float* cblock) {
            lib.sbgemm(kRowMajor, p.trans_a ? kTrans : kNoTrans, p.trans_b ? kTrans : kNoTrans, int(rows), int(p.N),
                       int(p.K), p.alpha, a_rows(p, batch, i0), int(p.a.ld()), b_of(p, batch), int(p.b.ld()), p.beta,
                       cblock, int(p.N));
            return true;
        });
    } else {
        half_gemm(lib, nullptr, h, p, nullptr);
    }
}

// The call, as libopkit passed it (spec/ops.h's parameters of matmul).
opkit_status matmul(const opkit::args::matmul& call) {
    return guarded("matmul", [&]() -> opkit_status {
        const Cblas* lib = loaded_library();
        if (!lib) return OPKIT_BLAS_DECLINE("matmul: no CBLAS is loaded");
        const opkit_tensor* a = call.a;
        Problem p{};
        p.a = view_of(call.a);
        p.b = view_of(call.b);
        p.c = view_of(call.c);
        p.trans_a = call.trans_a != 0;
        p.trans_b = call.trans_b != 0;
        p.alpha = call.alpha;
        p.beta = call.beta;
        p.M = p.c.rows;
        p.N = p.c.cols;
        p.K = p.trans_a ? p.a.rows : p.a.cols;
        p.batches = p.c.batches;
        if (p.M == 0 || p.N == 0 || p.batches == 0) return OPKIT_OK;  // c has no element
        if (p.alpha == 0.0f)
            return OPKIT_BLAS_DECLINE("matmul: alpha is 0; BLAS would skip op(a)*op(b), so a NaN in a or b "
                                      "would not reach c as it does on the CPU default");
        OPKIT_BLAS_TRY(check_limits(p));
        const bool f32 = a->dtype.code == OPKIT_DTYPE_FLOAT && a->dtype.bits == 32;
        if (f32) {
            for (const auto& [v, name] : {std::pair{&p.a, "a"}, std::pair{&p.b, "b"}, std::pair{&p.c, "c"}})
                if (!v->blas_addressable())
                    return OPKIT_BLAS_DECLINE("matmul: %s's row stride %" PRId64 " is shorter than its row of %" PRId64
                                              " elements; BLAS cannot address it in place",
                                              name, v->row_stride, v->cols);
            sgemm_f32(*lib, onednn_for_f32(), p);
            return OPKIT_OK;
        }
        gemm_16bit(*lib, loaded_onednn(), a->dtype.code == OPKIT_DTYPE_BFLOAT ? Half::bf16 : Half::f16, p);
        return OPKIT_OK;
    });
}

}  // namespace
}  // namespace opkit_blas

// opkit_vendor_matmul, its parameter list expanded from the spec.
OPKIT_SPEC_DEFINE_ENTRY(OPKIT_VENDOR_EXPORT, opkit_vendor_, matmul, opkit_blas::matmul)
