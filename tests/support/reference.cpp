#include "reference.h"

#include <algorithm>
#include <cmath>

namespace test::ref {

void rms_norm_forward(const Vec& x, const Vec* w, double eps, double off, int64_t rows, int64_t n,
                      Vec* y, Vec* rstd) {
    y->assign(x.size(), 0.0);
    rstd->assign(size_t(rows), 0.0);
    for (int64_t r = 0; r < rows; ++r) {
        double ss = 0;
        for (int64_t i = 0; i < n; ++i) ss += x[size_t(r * n + i)] * x[size_t(r * n + i)];
        const double inv = 1.0 / std::sqrt(ss / double(n) + eps);
        (*rstd)[size_t(r)] = inv;
        for (int64_t i = 0; i < n; ++i)
            (*y)[size_t(r * n + i)] = x[size_t(r * n + i)] * inv * (w ? (*w)[size_t(i)] + off : 1.0);
    }
}

void rms_norm_backward(const Vec& dy, const Vec& x, const Vec* w, double eps, double off,
                       int64_t rows, int64_t n, Vec* dx, Vec* dw) {
    dx->assign(x.size(), 0.0);
    if (dw) dw->assign(size_t(n), 0.0);
    for (int64_t r = 0; r < rows; ++r) {
        double ss = 0, dot = 0;
        for (int64_t i = 0; i < n; ++i) ss += x[size_t(r * n + i)] * x[size_t(r * n + i)];
        const double inv = 1.0 / std::sqrt(ss / double(n) + eps);
        for (int64_t i = 0; i < n; ++i) {
            const double g = dy[size_t(r * n + i)] * (w ? (*w)[size_t(i)] + off : 1.0);
            dot += g * x[size_t(r * n + i)];
        }
        for (int64_t i = 0; i < n; ++i) {
            const double g = dy[size_t(r * n + i)] * (w ? (*w)[size_t(i)] + off : 1.0);
            (*dx)[size_t(r * n + i)] = inv * g - x[size_t(r * n + i)] * inv * inv * inv * dot / double(n);
            if (dw) (*dw)[size_t(i)] += dy[size_t(r * n + i)] * x[size_t(r * n + i)] * inv;
        }
    }
}

void layer_norm_forward(const Vec& x, const Vec* w, const Vec* b, double eps, int64_t rows, int64_t n,
                        Vec* y, Vec* mean, Vec* rstd) {
    y->assign(x.size(), 0.0);
    mean->assign(size_t(rows), 0.0);
    rstd->assign(size_t(rows), 0.0);
    for (int64_t r = 0; r < rows; ++r) {
        double mu = 0, var = 0;
        for (int64_t i = 0; i < n; ++i) mu += x[size_t(r * n + i)];
        mu /= double(n);
        for (int64_t i = 0; i < n; ++i) var += (x[size_t(r * n + i)] - mu) * (x[size_t(r * n + i)] - mu);
        const double inv = 1.0 / std::sqrt(var / double(n) + eps);
        (*mean)[size_t(r)] = mu;
        (*rstd)[size_t(r)] = inv;
        for (int64_t i = 0; i < n; ++i)
            (*y)[size_t(r * n + i)] = (x[size_t(r * n + i)] - mu) * inv * (w ? (*w)[size_t(i)] : 1.0) +
                                      (b ? (*b)[size_t(i)] : 0.0);
    }
}

void layer_norm_backward(const Vec& dy, const Vec& x, const Vec* w, double eps, int64_t rows,
                         int64_t n, Vec* dx, Vec* dw, Vec* db) {
    Vec y, mean, rstd;
    layer_norm_forward(x, nullptr, nullptr, eps, rows, n, &y, &mean, &rstd);  // y = xhat
    dx->assign(x.size(), 0.0);
    if (dw) dw->assign(size_t(n), 0.0);
    if (db) db->assign(size_t(n), 0.0);
    for (int64_t r = 0; r < rows; ++r) {
        double mg = 0, mgx = 0;
        for (int64_t i = 0; i < n; ++i) {
            const double g = dy[size_t(r * n + i)] * (w ? (*w)[size_t(i)] : 1.0);
            mg += g;
            mgx += g * y[size_t(r * n + i)];
        }
        mg /= double(n);
        mgx /= double(n);
        for (int64_t i = 0; i < n; ++i) {
            const double g = dy[size_t(r * n + i)] * (w ? (*w)[size_t(i)] : 1.0);
            (*dx)[size_t(r * n + i)] = rstd[size_t(r)] * (g - mg - y[size_t(r * n + i)] * mgx);
            if (dw) (*dw)[size_t(i)] += dy[size_t(r * n + i)] * y[size_t(r * n + i)];
            if (db) (*db)[size_t(i)] += dy[size_t(r * n + i)];
        }
    }
}

void softmax_forward(const Vec& x, int64_t rows, int64_t n, Vec* y) {
    y->assign(x.size(), 0.0);
    for (int64_t r = 0; r < rows; ++r) {
        double m = -INFINITY, s = 0;
        for (int64_t i = 0; i < n; ++i) m = std::max(m, x[size_t(r * n + i)]);
        for (int64_t i = 0; i < n; ++i) s += std::exp(x[size_t(r * n + i)] - m);
        for (int64_t i = 0; i < n; ++i) (*y)[size_t(r * n + i)] = std::exp(x[size_t(r * n + i)] - m) / s;
    }
}

void softmax_backward(const Vec& dy, const Vec& y, int64_t rows, int64_t n, Vec* dx) {
    dx->assign(y.size(), 0.0);
    for (int64_t r = 0; r < rows; ++r) {
        double s = 0;
        for (int64_t i = 0; i < n; ++i) s += dy[size_t(r * n + i)] * y[size_t(r * n + i)];
        for (int64_t i = 0; i < n; ++i)
            (*dx)[size_t(r * n + i)] = y[size_t(r * n + i)] * (dy[size_t(r * n + i)] - s);
    }
}

namespace {

void activation(int act, double a, double* v, double* d) {
    if (act == 0) {
        const double s = 1.0 / (1.0 + std::exp(-a));
        *v = a * s;
        *d = s * (1 + a * (1 - s));
    } else if (act == 1) {
        const double cdf = 0.5 * (1 + std::erf(a / std::sqrt(2.0)));
        *v = a * cdf;
        *d = cdf + a * std::exp(-0.5 * a * a) / std::sqrt(2 * M_PI);
    } else {
        const double k = std::sqrt(2 / M_PI), u = k * (a + 0.044715 * a * a * a), t = std::tanh(u);
        *v = 0.5 * a * (1 + t);
        *d = 0.5 * (1 + t) + 0.5 * a * (1 - t * t) * k * (1 + 3 * 0.044715 * a * a);
    }
}

}  // namespace

void gated_forward(int act, const Vec& a, const Vec& b, Vec* y) {
    y->resize(a.size());
    for (size_t i = 0; i < a.size(); ++i) {
        double v, d;
        activation(act, a[i], &v, &d);
        (*y)[i] = v * b[i];
    }
}

void gated_backward(int act, const Vec& dy, const Vec& a, const Vec& b, Vec* da, Vec* db) {
    da->resize(a.size());
    db->resize(a.size());
    for (size_t i = 0; i < a.size(); ++i) {
        double v, d;
        activation(act, a[i], &v, &d);
        (*da)[i] = dy[i] * b[i] * d;
        (*db)[i] = dy[i] * v;
    }
}

void rope(const Vec& x, const Vec& cos, const Vec& sin, int64_t B, int64_t T, int64_t H, int64_t D,
          bool batched_angles, bool backward, Vec* y) {
    y->assign(x.size(), 0.0);
    const int64_t h = D / 2;
    for (int64_t b = 0; b < B; ++b)
        for (int64_t t = 0; t < T; ++t)
            for (int64_t hh = 0; hh < H; ++hh) {
                const size_t xo = size_t(((b * T + t) * H + hh) * D);
                const size_t ao = size_t((batched_angles ? (b * T + t) : t) * D);
                for (int64_t i = 0; i < D; ++i) {
                    const double c = cos[ao + size_t(i)], s = sin[ao + size_t(i)];
                    double v;
                    if (!backward) {
                        const double rot = i < h ? -x[xo + size_t(i + h)] : x[xo + size_t(i - h)];
                        v = x[xo + size_t(i)] * c + rot * s;
                    } else {
                        // transpose of rotate_half: dx[i] += (dy*s)[i+h] for i<h, -(dy*s)[i-h] else
                        const double rot = i < h ? x[xo + size_t(i + h)] * sin[ao + size_t(i + h)]
                                                 : -x[xo + size_t(i - h)] * sin[ao + size_t(i - h)];
                        v = x[xo + size_t(i)] * c + rot;
                    }
                    (*y)[xo + size_t(i)] = v;
                }
            }
}

void rope_qk(const Vec& q, const Vec& k, const Vec& cos, const Vec& sin, int64_t B, int64_t T, int64_t Hq,
             int64_t Hk, int64_t D, bool batched_angles, bool backward, Vec* q_out, Vec* k_out) {
    rope(q, cos, sin, B, T, Hq, D, batched_angles, backward, q_out);
    rope(k, cos, sin, B, T, Hk, D, batched_angles, backward, k_out);
}

void cross_entropy(const Vec& logits, const std::vector<int64_t>& target, int64_t rows, int64_t V,
                   int64_t ignore, double eps, int reduction, Vec* loss, Vec* lse, Vec* dlogits) {
    Vec per_row(size_t(rows), 0.0);
    lse->assign(size_t(rows), 0.0);
    dlogits->assign(logits.size(), 0.0);
    int64_t valid = 0;
    for (int64_t r = 0; r < rows; ++r) valid += target[size_t(r)] != ignore;
    const double scale = reduction == 1 ? (valid ? 1.0 / double(valid) : 0.0) : 1.0;
    for (int64_t r = 0; r < rows; ++r) {
        double m = -INFINITY, s = 0, sum = 0;
        for (int64_t j = 0; j < V; ++j) m = std::max(m, logits[size_t(r * V + j)]);
        for (int64_t j = 0; j < V; ++j) s += std::exp(logits[size_t(r * V + j)] - m), sum += logits[size_t(r * V + j)];
        const double l = m + std::log(s);
        (*lse)[size_t(r)] = l;
        const int64_t t = target[size_t(r)];
        if (t == ignore) continue;
        per_row[size_t(r)] = l - (1 - eps) * logits[size_t(r * V + t)] - eps / double(V) * sum;
        for (int64_t j = 0; j < V; ++j)
            (*dlogits)[size_t(r * V + j)] =
                (std::exp(logits[size_t(r * V + j)] - l) - eps / double(V) - (j == t ? 1 - eps : 0.0)) * scale;
    }
    if (reduction == 0) {
        *loss = per_row;
    } else {
        double total = 0;
        for (double v : per_row) total += v;
        *loss = {reduction == 1 ? (valid ? total / double(valid) : NAN) : total};
    }
}

void embedding_backward(const Vec& dy, const std::vector<int64_t>& ids, int64_t V, int64_t D,
                        int64_t padding_idx, Vec* dw) {
    dw->assign(size_t(V * D), 0.0);
    for (size_t k = 0; k < ids.size(); ++k) {
        if (ids[k] == padding_idx) continue;
        for (int64_t j = 0; j < D; ++j) (*dw)[size_t(ids[k] * D + j)] += dy[k * size_t(D) + size_t(j)];
    }
}

void matmul(const Vec& a, const Vec& b, Vec* c, int64_t batch, int64_t ba, int64_t bb, int64_t M,
            int64_t N, int64_t K, bool ta, bool tb, double alpha, double beta) {
    for (int64_t p = 0; p < batch; ++p) {
        const size_t ao = size_t((ba == 1 ? 0 : p) * M * K), bo = size_t((bb == 1 ? 0 : p) * K * N);
        for (int64_t i = 0; i < M; ++i)
            for (int64_t j = 0; j < N; ++j) {
                double s = 0;
                for (int64_t k = 0; k < K; ++k) {
                    const double av = ta ? a[ao + size_t(k * M + i)] : a[ao + size_t(i * K + k)];
                    const double bv = tb ? b[bo + size_t(j * K + k)] : b[bo + size_t(k * N + j)];
                    s += av * bv;
                }
                double& cv = (*c)[size_t((p * M + i) * N + j)];
                cv = alpha * s + (beta != 0 ? beta * cv : 0.0);
            }
    }
}

}  // namespace test::ref
