// Float64 reference implementations of every op, written from the PyTorch formulas
// (row-major logical order, rows x n). The tests compare opkit against these and check
// the backward references against finite differences of the forward ones.
#pragma once

#include <cstdint>
#include <vector>

namespace test::ref {

using Vec = std::vector<double>;

void rms_norm_forward(const Vec& x, const Vec* w, double eps, double off, int64_t rows, int64_t n,
                      Vec* y, Vec* rstd);
void rms_norm_backward(const Vec& dy, const Vec& x, const Vec* w, double eps, double off,
                       int64_t rows, int64_t n, Vec* dx, Vec* dw);
void layer_norm_forward(const Vec& x, const Vec* w, const Vec* b, double eps, int64_t rows, int64_t n,
                        Vec* y, Vec* mean, Vec* rstd);
void layer_norm_backward(const Vec& dy, const Vec& x, const Vec* w, double eps, int64_t rows,
                         int64_t n, Vec* dx, Vec* dw, Vec* db);
void softmax_forward(const Vec& x, int64_t rows, int64_t n, Vec* y);
void softmax_backward(const Vec& dy, const Vec& y, int64_t rows, int64_t n, Vec* dx);
// act: 0 silu, 1 gelu erf, 2 gelu tanh
void gated_forward(int act, const Vec& a, const Vec& b, Vec* y);
void gated_backward(int act, const Vec& dy, const Vec& a, const Vec& b, Vec* da, Vec* db);
// x [B,T,H,D]; cos/sin [T,D] or [B,T,D] (batched_angles)
void rope(const Vec& x, const Vec& cos, const Vec& sin, int64_t B, int64_t T, int64_t H, int64_t D,
          bool batched_angles, bool backward, Vec* y);
// rope_qk: rope of q [B,T,Hq,D] into *q_out and of k [B,T,Hk,D] into *k_out
void rope_qk(const Vec& q, const Vec& k, const Vec& cos, const Vec& sin, int64_t B, int64_t T, int64_t Hq,
             int64_t Hk, int64_t D, bool batched_angles, bool backward, Vec* q_out, Vec* k_out);
// reduction 0 none, 1 mean, 2 sum; returns per-row losses (none) or one value
void cross_entropy(const Vec& logits, const std::vector<int64_t>& target, int64_t rows, int64_t V,
                   int64_t ignore, double smoothing, int reduction, Vec* loss, Vec* lse,
                   Vec* dlogits /* upstream 1 */);
void embedding_backward(const Vec& dy, const std::vector<int64_t>& ids, int64_t V, int64_t D,
                        int64_t padding_idx, Vec* dw);
// c [batch][M][N] = alpha * op(a) op(b) + beta * c; a/b batch may be 1
void matmul(const Vec& a, const Vec& b, Vec* c, int64_t batch, int64_t ba, int64_t bb, int64_t M,
            int64_t N, int64_t K, bool ta, bool tb, double alpha, double beta);

}  // namespace test::ref
