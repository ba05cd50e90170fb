// libopkit_vendor_exact.so: a CPU "vendor" that evaluates every op of the spec in float64
// from its definition (docs/ops.md) and rounds once to the output dtype. Run through
// opkit-conformance, it measures how far opkit's CPU defaults are from the exact result on
// the whole conformance catalogue (odd and large shapes, strided views, in place), which
// is what docs/tolerances.md calibrates the tolerance table with:
//
//   OPKIT_TOLERANCE_REPORT=/tmp/tol.txt opkit-conformance \
//       build/tests/fake_vendor/exact/libopkit_vendor_exact.so --report-errors
//
// Backward ops use the saved statistics they are given (rstd, mean, lse), as any vendor
// must. Every op is exported (the list comes from the spec), so a new op fails to build
// here until it has an exact evaluation.
#include "op_spec.hpp"
#include "opkit_vendor.h"

#include <cmath>
#include <cstring>
#include <vector>

namespace {

using Vec = std::vector<double>;

bool is_f16(const opkit_tensor* t) { return t->dtype.code == OPKIT_DTYPE_FLOAT && t->dtype.bits == 16; }
bool is_bf16(const opkit_tensor* t) { return t->dtype.code == OPKIT_DTYPE_BFLOAT; }
bool is_index(const opkit_tensor* t) { return t->dtype.code == OPKIT_DTYPE_INT; }

int64_t numel(const opkit_tensor* t) {
    int64_t n = 1;
    for (int32_t i = 0; i < t->ndim; ++i) n *= t->shape[i];
    return n;
}
int64_t last(const opkit_tensor* t) { return t->ndim ? t->shape[t->ndim - 1] : 1; }
int64_t rows(const opkit_tensor* t) { return numel(t) / (last(t) ? last(t) : 1); }

// Byte address of logical (row-major) element `flat`.
char* at(const opkit_tensor* t, int64_t flat) {
    int64_t off = 0, contiguous = 1;
    for (int32_t i = t->ndim - 1; i >= 0; --i) {
        const int64_t idx = flat % t->shape[i];
        flat /= t->shape[i];
        off += idx * (t->strides ? t->strides[i] : contiguous);
        contiguous *= t->shape[i];
    }
    return static_cast<char*>(t->data) + t->byte_offset + off * (t->dtype.bits / 8);
}

float bf16_to_float(uint16_t b) {
    const uint32_t u = uint32_t(b) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

uint16_t float_to_bf16(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) return uint16_t((u >> 16) | 0x40);
    u += 0x7fffu + ((u >> 16) & 1u);
    return uint16_t(u >> 16);
}

Vec read(const opkit_tensor* t) {
    Vec v;
    if (!t) return v;
    const int64_t n = numel(t);
    v.resize(size_t(n));
    for (int64_t i = 0; i < n; ++i) {
        const char* p = at(t, i);
        if (is_index(t)) {
            v[size_t(i)] = t->dtype.bits == 64 ? double(*reinterpret_cast<const int64_t*>(p))
                                               : double(*reinterpret_cast<const int32_t*>(p));
        } else if (is_bf16(t)) {
            uint16_t b;
            std::memcpy(&b, p, 2);
            v[size_t(i)] = bf16_to_float(b);
        } else if (is_f16(t)) {
            _Float16 h;
            std::memcpy(&h, p, 2);
            v[size_t(i)] = double(h);
        } else {
            v[size_t(i)] = *reinterpret_cast<const float*>(p);
        }
    }
    return v;
}

// Rounds once from float64 to the tensor's dtype.
void write(opkit_tensor* t, const Vec& v) {
    if (!t) return;
    for (int64_t i = 0; i < numel(t); ++i) {
        char* p = at(t, i);
        const double x = v[size_t(i)];
        if (is_bf16(t)) {
            const uint16_t b = float_to_bf16(float(x));
            std::memcpy(p, &b, 2);
        } else if (is_f16(t)) {
            const _Float16 h = _Float16(x);
            std::memcpy(p, &h, 2);
        } else {
            *reinterpret_cast<float*>(p) = float(x);
        }
    }
}

using namespace opkit;

opkit_status rms_norm_forward(const args::rms_norm_forward& a) {
    const int64_t R = rows(a.x), n = last(a.x);
    const Vec x = read(a.x), w = read(a.weight);
    Vec y(x.size()), rstd(static_cast<size_t>(R));
    for (int64_t r = 0; r < R; ++r) {
        double ss = 0;
        for (int64_t i = 0; i < n; ++i) ss += x[size_t(r * n + i)] * x[size_t(r * n + i)];
        rstd[size_t(r)] = 1 / std::sqrt(ss / double(n) + double(a.eps));
        for (int64_t i = 0; i < n; ++i)
            y[size_t(r * n + i)] =
                x[size_t(r * n + i)] * rstd[size_t(r)] * (a.weight ? w[size_t(i)] + double(a.weight_offset) : 1.0);
    }
    write(a.y, y);
    write(a.rstd, rstd);
    return OPKIT_OK;
}

opkit_status rms_norm_backward(const args::rms_norm_backward& a) {
    const int64_t R = rows(a.x), n = last(a.x);
    const Vec dy = read(a.dy), x = read(a.x), w = read(a.weight), rstd = read(a.rstd);
    Vec dx(x.size()), dw(size_t(n), 0.0);
    for (int64_t r = 0; r < R; ++r) {
        const double s = rstd[size_t(r)];
        auto g = [&](int64_t i) {
            return dy[size_t(r * n + i)] * (a.weight ? w[size_t(i)] + double(a.weight_offset) : 1.0);
        };
        double dot = 0;
        for (int64_t i = 0; i < n; ++i) dot += g(i) * x[size_t(r * n + i)];
        for (int64_t i = 0; i < n; ++i) {
            dx[size_t(r * n + i)] = s * g(i) - x[size_t(r * n + i)] * s * s * s * dot / double(n);
            dw[size_t(i)] += dy[size_t(r * n + i)] * x[size_t(r * n + i)] * s;
        }
    }
    write(a.dx, dx);
    write(a.dweight, dw);
    return OPKIT_OK;
}

opkit_status layer_norm_forward(const args::layer_norm_forward& a) {
    const int64_t R = rows(a.x), n = last(a.x);
    const Vec x = read(a.x), w = read(a.weight), b = read(a.bias);
    Vec y(x.size()), mean(static_cast<size_t>(R)), rstd(static_cast<size_t>(R));
    for (int64_t r = 0; r < R; ++r) {
        double mu = 0, var = 0;
        for (int64_t i = 0; i < n; ++i) mu += x[size_t(r * n + i)];
        mu /= double(n);
        for (int64_t i = 0; i < n; ++i) var += (x[size_t(r * n + i)] - mu) * (x[size_t(r * n + i)] - mu);
        const double s = 1 / std::sqrt(var / double(n) + double(a.eps));
        mean[size_t(r)] = mu;
        rstd[size_t(r)] = s;
        for (int64_t i = 0; i < n; ++i)
            y[size_t(r * n + i)] = (x[size_t(r * n + i)] - mu) * s * (a.weight ? w[size_t(i)] : 1.0) +
                                   (a.bias ? b[size_t(i)] : 0.0);
    }
    write(a.y, y);
    write(a.mean, mean);
    write(a.rstd, rstd);
    return OPKIT_OK;
}

opkit_status layer_norm_backward(const args::layer_norm_backward& a) {
    const int64_t R = rows(a.x), n = last(a.x);
    const Vec dy = read(a.dy), x = read(a.x), w = read(a.weight), mean = read(a.mean), rstd = read(a.rstd);
    Vec dx(x.size()), dw(size_t(n), 0.0), db(size_t(n), 0.0);
    for (int64_t r = 0; r < R; ++r) {
        const double s = rstd[size_t(r)], mu = mean[size_t(r)];
        double mg = 0, mgx = 0;
        for (int64_t i = 0; i < n; ++i) {
            const double g = dy[size_t(r * n + i)] * (a.weight ? w[size_t(i)] : 1.0);
            mg += g;
            mgx += g * (x[size_t(r * n + i)] - mu) * s;
        }
        mg /= double(n);
        mgx /= double(n);
        for (int64_t i = 0; i < n; ++i) {
            const double xh = (x[size_t(r * n + i)] - mu) * s;
            const double g = dy[size_t(r * n + i)] * (a.weight ? w[size_t(i)] : 1.0);
            dx[size_t(r * n + i)] = s * (g - mg - xh * mgx);
            dw[size_t(i)] += dy[size_t(r * n + i)] * xh;
            db[size_t(i)] += dy[size_t(r * n + i)];
        }
    }
    write(a.dx, dx);
    write(a.dweight, dw);
    write(a.dbias, db);
    return OPKIT_OK;
}

opkit_status softmax_forward(const args::softmax_forward& a) {
    const int64_t R = rows(a.x), n = last(a.x);
    const Vec x = read(a.x);
    Vec y(x.size());
    for (int64_t r = 0; r < R; ++r) {
        double m = -INFINITY, s = 0;
        for (int64_t i = 0; i < n; ++i) m = std::max(m, x[size_t(r * n + i)]);
        for (int64_t i = 0; i < n; ++i) s += std::exp(x[size_t(r * n + i)] - m);
        for (int64_t i = 0; i < n; ++i) y[size_t(r * n + i)] = std::exp(x[size_t(r * n + i)] - m) / s;
    }
    write(a.y, y);
    return OPKIT_OK;
}

opkit_status softmax_backward(const args::softmax_backward& a) {
    const int64_t R = rows(a.y), n = last(a.y);
    const Vec dy = read(a.dy), y = read(a.y);
    Vec dx(y.size());
    for (int64_t r = 0; r < R; ++r) {
        double s = 0;
        for (int64_t i = 0; i < n; ++i) s += dy[size_t(r * n + i)] * y[size_t(r * n + i)];
        for (int64_t i = 0; i < n; ++i) dx[size_t(r * n + i)] = y[size_t(r * n + i)] * (dy[size_t(r * n + i)] - s);
    }
    write(a.dx, dx);
    return OPKIT_OK;
}

// act: 0 silu, 1 gelu erf, 2 gelu tanh; value and derivative.
void activation(int act, double x, double* v, double* d) {
    if (act == 0) {
        const double s = 1 / (1 + std::exp(-x));
        *v = x * s;
        *d = s * (1 + x * (1 - s));
    } else if (act == 1) {
        const double cdf = 0.5 * (1 + std::erf(x / std::sqrt(2.0)));
        *v = x * cdf;
        *d = cdf + x * std::exp(-0.5 * x * x) / std::sqrt(2 * M_PI);
    } else {
        const double k = std::sqrt(2 / M_PI), t = std::tanh(k * (x + 0.044715 * x * x * x));
        *v = 0.5 * x * (1 + t);
        *d = 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * k * (1 + 3 * 0.044715 * x * x);
    }
}

opkit_status gated_forward(int act, const opkit_tensor* at_, const opkit_tensor* bt, opkit_tensor* yt) {
    const Vec av = read(at_), bv = read(bt);
    Vec y(av.size());
    for (size_t i = 0; i < av.size(); ++i) {
        double v, d;
        activation(act, av[i], &v, &d);
        y[i] = v * bv[i];
    }
    write(yt, y);
    return OPKIT_OK;
}

opkit_status gated_backward(int act, const opkit_tensor* dyt, const opkit_tensor* at_, const opkit_tensor* bt,
                            opkit_tensor* dat, opkit_tensor* dbt) {
    const Vec dy = read(dyt), av = read(at_), bv = read(bt);
    Vec da(av.size()), db(av.size());
    for (size_t i = 0; i < av.size(); ++i) {
        double v, d;
        activation(act, av[i], &v, &d);
        da[i] = dy[i] * bv[i] * d;
        db[i] = dy[i] * v;
    }
    write(dat, da);
    write(dbt, db);
    return OPKIT_OK;
}

opkit_status swiglu_forward(const args::swiglu_forward& a) { return gated_forward(0, a.a, a.b, a.y); }
opkit_status swiglu_backward(const args::swiglu_backward& a) {
    return gated_backward(0, a.dy, a.a, a.b, a.da, a.db);
}
opkit_status geglu_forward(const args::geglu_forward& a) {
    return gated_forward(a.approximate == OPKIT_GELU_TANH ? 2 : 1, a.a, a.b, a.y);
}
opkit_status geglu_backward(const args::geglu_backward& a) {
    return gated_backward(a.approximate == OPKIT_GELU_TANH ? 2 : 1, a.dy, a.a, a.b, a.da, a.db);
}

// x [B,T,H,D]; cos/sin [T,D] or [B,T,D]. Forward: x cos + rotate_half(x) sin; backward
// rotates by -theta.
opkit_status rope(const opkit_tensor* xt, const opkit_tensor* ct, const opkit_tensor* st, opkit_tensor* yt,
                  bool backward) {
    const int64_t B = xt->shape[0], T = xt->shape[1], H = xt->shape[2], D = xt->shape[3], h = D / 2;
    const bool batched = ct->ndim == 3;
    const Vec x = read(xt), c = read(ct), s = read(st);
    Vec y(x.size());
    for (int64_t b = 0; b < B; ++b)
        for (int64_t t = 0; t < T; ++t)
            for (int64_t hh = 0; hh < H; ++hh)
                for (int64_t d = 0; d < D; ++d) {
                    const int64_t base = ((b * T + t) * H + hh) * D, a = ((batched ? b * T : 0) + t) * D;
                    const double xv = x[size_t(base + d)];
                    double v;
                    if (!backward)
                        v = xv * c[size_t(a + d)] + (d < h ? -x[size_t(base + d + h)] : x[size_t(base + d - h)]) *
                                                        s[size_t(a + d)];
                    else
                        v = xv * c[size_t(a + d)] + (d < h ? x[size_t(base + d + h)] * s[size_t(a + d + h)]
                                                           : -x[size_t(base + d - h)] * s[size_t(a + d - h)]);
                    y[size_t(base + d)] = v;
                }
    write(yt, y);
    return OPKIT_OK;
}

opkit_status rope_forward(const args::rope_forward& a) { return rope(a.x, a.cos, a.sin, a.y, false); }
opkit_status rope_backward(const args::rope_backward& a) { return rope(a.dy, a.cos, a.sin, a.dx, true); }
opkit_status rope_qk_forward(const args::rope_qk_forward& a) {
    rope(a.q, a.cos, a.sin, a.q_out, false);
    return rope(a.k, a.cos, a.sin, a.k_out, false);
}
opkit_status rope_qk_backward(const args::rope_qk_backward& a) {
    rope(a.dq_out, a.cos, a.sin, a.dq, true);
    return rope(a.dk_out, a.cos, a.sin, a.dk, true);
}

// Per row: loss, lse and the gradient for an upstream gradient of 1 (before the mean's
// division); false when a target is out of range.
bool cross_entropy_rows(const Vec& x, const Vec& target, const Vec* lse_in, int64_t R, int64_t V, int64_t ignore,
                        double eps, Vec* loss, Vec* lse, Vec* grad, int64_t* valid) {
    loss->assign(size_t(R), 0.0);
    lse->assign(size_t(R), 0.0);
    grad->assign(x.size(), 0.0);
    *valid = 0;
    for (int64_t r = 0; r < R; ++r) {
        const int64_t t = int64_t(target[size_t(r)]);
        if (t != ignore && (t < 0 || t >= V)) return false;
        double m = -INFINITY, s = 0, sum = 0;
        for (int64_t j = 0; j < V; ++j) m = std::max(m, x[size_t(r * V + j)]);
        for (int64_t j = 0; j < V; ++j) s += std::exp(x[size_t(r * V + j)] - m), sum += x[size_t(r * V + j)];
        const double l = lse_in ? (*lse_in)[size_t(r)] : m + std::log(s);
        (*lse)[size_t(r)] = m + std::log(s);
        if (t == ignore) continue;
        ++*valid;
        (*loss)[size_t(r)] = l - (1 - eps) * x[size_t(r * V + t)] - eps / double(V) * sum;
        for (int64_t j = 0; j < V; ++j)
            (*grad)[size_t(r * V + j)] = std::exp(x[size_t(r * V + j)] - l) - (j == t ? 1 - eps : 0) - eps / double(V);
    }
    return true;
}

opkit_status cross_entropy_forward(const args::cross_entropy_forward& a) {
    const int64_t R = rows(a.logits), V = last(a.logits);
    Vec loss, lse, grad;
    int64_t valid = 0;
    if (!cross_entropy_rows(read(a.logits), read(a.target), nullptr, R, V, a.ignore_index, a.label_smoothing, &loss,
                            &lse, &grad, &valid))
        return OPKIT_ERROR_INVALID_ARGUMENT;
    double total = 0;
    for (double l : loss) total += l;
    if (a.reduction == OPKIT_REDUCTION_MEAN) {
        for (double& g : grad) g /= double(valid ? valid : 1);
        write(a.loss, Vec{valid ? total / double(valid) : NAN});
    } else if (a.reduction == OPKIT_REDUCTION_SUM) {
        write(a.loss, Vec{total});
    } else {
        write(a.loss, loss);
    }
    write(a.lse, lse);
    write(a.dlogits, grad);
    return OPKIT_OK;
}

opkit_status cross_entropy_backward(const args::cross_entropy_backward& a) {
    const int64_t R = rows(a.logits), V = last(a.logits);
    Vec loss, lse, grad;
    int64_t valid = 0;
    const Vec lse_in = read(a.lse), dloss = read(a.dloss);
    if (!cross_entropy_rows(read(a.logits), read(a.target), a.lse ? &lse_in : nullptr, R, V, a.ignore_index,
                            a.label_smoothing, &loss, &lse, &grad, &valid))
        return OPKIT_ERROR_INVALID_ARGUMENT;
    for (int64_t r = 0; r < R; ++r) {
        const double up = a.reduction == OPKIT_REDUCTION_NONE ? dloss[size_t(r)] : dloss[0];
        const double scale = a.reduction == OPKIT_REDUCTION_MEAN ? up / double(valid ? valid : 1) : up;
        for (int64_t j = 0; j < V; ++j) grad[size_t(r * V + j)] *= scale;
    }
    write(a.dlogits, grad);
    return OPKIT_OK;
}

opkit_status embedding_forward(const args::embedding_forward& a) {
    const int64_t V = a.weight->shape[0], D = a.weight->shape[1];
    const Vec w = read(a.weight), ids = read(a.ids);
    Vec y(ids.size() * size_t(D));
    for (size_t k = 0; k < ids.size(); ++k) {
        const int64_t id = int64_t(ids[k]);
        if (id < 0 || id >= V) return OPKIT_ERROR_INVALID_ARGUMENT;
        for (int64_t j = 0; j < D; ++j) y[k * size_t(D) + size_t(j)] = w[size_t(id * D + j)];
    }
    write(a.y, y);
    return OPKIT_OK;
}

opkit_status embedding_backward(const args::embedding_backward& a) {
    const int64_t V = a.dweight->shape[0], D = a.dweight->shape[1];
    const Vec dy = read(a.dy), ids = read(a.ids);
    Vec dw(size_t(V * D), 0.0);
    for (size_t k = 0; k < ids.size(); ++k) {
        const int64_t id = int64_t(ids[k]);
        if (id < 0 || id >= V) return OPKIT_ERROR_INVALID_ARGUMENT;
        if (id == a.padding_idx) continue;
        for (int64_t j = 0; j < D; ++j) dw[size_t(id * D + j)] += dy[k * size_t(D) + size_t(j)];
    }
    write(a.dweight, dw);
    return OPKIT_OK;
}

opkit_status matmul(const args::matmul& a) {
    const bool batched = a.c->ndim == 3;
    const int64_t B = batched ? a.c->shape[0] : 1, M = a.c->shape[a.c->ndim - 2], N = a.c->shape[a.c->ndim - 1];
    const int64_t Ba = batched ? a.a->shape[0] : 1, Bb = batched ? a.b->shape[0] : 1;
    const int64_t K = a.trans_a ? a.a->shape[a.a->ndim - 2] : a.a->shape[a.a->ndim - 1];
    const Vec av = read(a.a), bv = read(a.b);
    Vec c = a.beta != 0.0f ? read(a.c) : Vec(size_t(B * M * N), 0.0);
    for (int64_t bi = 0; bi < B; ++bi) {
        const int64_t ao = (Ba == 1 ? 0 : bi) * M * K, bo = (Bb == 1 ? 0 : bi) * K * N;
        for (int64_t i = 0; i < M; ++i)
            for (int64_t j = 0; j < N; ++j) {
                double s = 0;
                for (int64_t k = 0; k < K; ++k)
                    s += av[size_t(ao + (a.trans_a ? k * M + i : i * K + k))] *
                         bv[size_t(bo + (a.trans_b ? j * K + k : k * N + j))];
                double& out = c[size_t((bi * M + i) * N + j)];
                out = double(a.alpha) * s + (a.beta != 0.0f ? double(a.beta) * out : 0.0);
            }
    }
    write(a.c, c);
    return OPKIT_OK;
}

opkit_status axpy(const args::axpy& a) {
    const Vec x = read(a.x);
    Vec y = read(a.y);
    for (size_t i = 0; i < y.size(); ++i) y[i] += double(a.alpha) * x[i];
    write(a.y, y);
    return OPKIT_OK;
}

}  // namespace

extern "C" {

const uint32_t opkit_vendor_abi_version = OPKIT_VENDOR_ABI_VERSION;

OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_init(const opkit_vendor_host* host, opkit_vendor_desc* desc) {
    if (!host || host->struct_size < sizeof(opkit_vendor_host)) return OPKIT_ERROR_INVALID_ARGUMENT;
    desc->name = "exact";
    desc->version = "float64-reference";
    desc->device_type = OPKIT_DEVICE_CPU;
    desc->priority = 10;
    desc->device_count = 1;
    return OPKIT_OK;
}

OPKIT_VENDOR_EXPORT void opkit_vendor_shutdown(void) {}

}  // extern "C"

#define EXACT_EXPORT(name) OPKIT_SPEC_DEFINE_ENTRY(OPKIT_VENDOR_EXPORT, opkit_vendor_, name, name)
OPKIT_FOR_EACH_OP(EXACT_EXPORT)
#undef EXACT_EXPORT
