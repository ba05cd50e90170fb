// matmul: c = alpha * op(a) * op(b) + beta * c, 2-D or batched 3-D (a batch of 1
// broadcasts). op(B) is packed once per batch into 16-column fp32 panels and op(A) into
// 6-row micro-panels per block of rows, so the inner kernel streams both contiguously
// and keeps a 6x16 accumulator tile in vector registers.
#include "convert.h"
#include "kernels.h"
#include "rows.h"
#include "simd.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace opkit::cpu {
namespace {

constexpr int64_t MR = 6, NR = 16, KC = 256, MC = 96;

// One 2-D operand as a view: element (i, j) of op(X) at base + (i*si + j*sj) * elem.
struct Mat {
    const char* base;
    int64_t si, sj;  // element strides of op(X)'s rows and columns
    DType dt;
    float at(int64_t i, int64_t j) const {
        return load_one(dt, base + (i * si + j * sj) * int64_t(dtype_size(dt)));
    }
};

Mat operand(const opkit_tensor* t, int64_t batch, bool transposed) {
    const int32_t o = t->ndim - 2;
    const int64_t b = (o == 1 && t->shape[0] > 1) ? batch : 0;
    const int64_t s0 = stride_of(t, o), s1 = stride_of(t, o + 1);
    const int64_t boff = o == 1 ? b * stride_of(t, 0) : 0;
    Mat m{base_ptr(t) + boff * int64_t(dtype_size(dtype_of(t))), s0, s1, dtype_of(t)};
    if (transposed) std::swap(m.si, m.sj);
    return m;
}

// Bp[panel][k][NR]: op(B) columns [panel*NR, +NR), zero-padded.
void pack_b(const Mat& b, int64_t K, int64_t N, float* bp) {
    const int64_t panels = (N + NR - 1) / NR;
    parallel_for(panels, 1, [&](int64_t pb, int64_t pe) {
        for (int64_t p = pb; p < pe; ++p) {
            float* dst = bp + p * K * NR;
            const int64_t j0 = p * NR, jn = std::min(NR, N - j0);
            for (int64_t k = 0; k < K; ++k)
                for (int64_t j = 0; j < NR; ++j) dst[k * NR + j] = j < jn ? b.at(k, j0 + j) : 0.0f;
        }
    });
}

// Ap[tile][k][MR] for rows [i0, i0 + rows) and columns [k0, k0 + kc).
void pack_a(const Mat& a, int64_t i0, int64_t rows, int64_t k0, int64_t kc, float* ap) {
    for (int64_t t = 0; t * MR < rows; ++t)
        for (int64_t k = 0; k < kc; ++k)
            for (int64_t i = 0; i < MR; ++i) {
                const int64_t row = t * MR + i;
                ap[(t * kc + k) * MR + i] = row < rows ? a.at(i0 + row, k0 + k) : 0.0f;
            }
}

// acc[MR][NR] += Ap_tile[kc][MR] * Bp_panel[kc][NR]. Written with GCC vector types so
// the 6x16 tile stays in twelve 8-wide registers and each step is broadcast + FMA.
typedef float v8f __attribute__((vector_size(32)));

OPKIT_CLONES void micro_kernel(const float* ap, const float* bp, int64_t kc, float* acc) {
    v8f c[MR][2];
    for (int64_t i = 0; i < MR; ++i) c[i][0] = c[i][1] = v8f{};
    for (int64_t k = 0; k < kc; ++k) {
        v8f b0, b1;
        std::memcpy(&b0, bp + k * NR, sizeof b0);
        std::memcpy(&b1, bp + k * NR + 8, sizeof b1);
        for (int64_t i = 0; i < MR; ++i) {
            const v8f a = v8f{} + ap[k * MR + i];
            c[i][0] += a * b0;
            c[i][1] += a * b1;
        }
    }
    for (int64_t i = 0; i < MR; ++i)
        for (int h = 0; h < 2; ++h)
            for (int j = 0; j < 8; ++j) acc[i * NR + h * 8 + j] += c[i][h][j];
}

}  // namespace

opkit_status matmul(const args::matmul& args) {
    const int32_t o = args.c->ndim - 2;
    const int64_t batches = o == 1 ? args.c->shape[0] : 1;
    const int64_t M = args.c->shape[o], N = args.c->shape[o + 1];
    const int64_t K = args.trans_a ? args.a->shape[o] : args.a->shape[o + 1];
    const DType dt = dtype_of(args.c);
    const int64_t elem = int64_t(dtype_size(dt));
    const int64_t panels = (N + NR - 1) / NR;
    std::vector<float> bp(size_t(std::max<int64_t>(1, panels * K * NR)));

    for (int64_t batch = 0; batch < batches; ++batch) {
        const Mat A = operand(args.a, batch, args.trans_a != 0), B = operand(args.b, batch, args.trans_b != 0);
        char* cbase = base_ptr(args.c) + (o == 1 ? batch * stride_of(args.c, 0) : 0) * elem;
        const int64_t cs0 = stride_of(args.c, o);
        pack_b(B, K, N, bp.data());
        const int64_t blocks = (M + MC - 1) / MC;
        parallel_for(blocks, 1, [&](int64_t bb, int64_t be) {
            std::vector<float> ap(size_t(((MC + MR - 1) / MR) * MR * KC));
            std::vector<float> acc(size_t(MC * ((N + NR - 1) / NR) * NR), 0.0f);
            for (int64_t blk = bb; blk < be; ++blk) {
                const int64_t i0 = blk * MC, rows = std::min(MC, M - i0);
                const int64_t tiles = (rows + MR - 1) / MR;
                std::fill(acc.begin(), acc.end(), 0.0f);
                for (int64_t k0 = 0; k0 < K; k0 += KC) {
                    const int64_t kc = std::min(KC, K - k0);
                    pack_a(A, i0, rows, k0, kc, ap.data());
                    for (int64_t p = 0; p < panels; ++p)
                        for (int64_t t = 0; t < tiles; ++t)
                            micro_kernel(ap.data() + t * kc * MR, bp.data() + (p * K + k0) * NR, kc,
                                         acc.data() + (t * panels + p) * MR * NR);
                }
                // c = alpha * acc + beta * c, row by row in fp32
                float* row = scratch(0, N);
                for (int64_t i = 0; i < rows; ++i) {
                    char* crow = cbase + (i0 + i) * cs0 * elem;
                    if (args.beta != 0.0f)
                        load_f32(dt, crow, row, N);
                    const int64_t t = i / MR, ii = i % MR;
                    for (int64_t j = 0; j < N; ++j) {
                        const float v = args.alpha * acc[size_t(((t * panels + j / NR) * MR + ii) * NR + j % NR)];
                        row[j] = args.beta != 0.0f ? v + args.beta * row[j] : v;
                    }
                    store_f32(dt, row, crow, N);
                }
            }
        });
    }
    return OPKIT_OK;
}

}  // namespace opkit::cpu
