// Every op, forward and backward, every float dtype, through the public API on the CPU
// defaults, against float64 references: random data (never zeros), odd sizes (1, 3,
// 127, 4097), strided row views, outputs poisoned before each call. The references'
// backward formulas are themselves checked by finite differences at the end.
#include "host_tensor.h"
#include "opkit.h"
#include "reference.h"
#include "tolerance_check.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>

using test::DT;
using test::HostTensor;
using Vec = std::vector<double>;

namespace {

const DT kFloatTypes[] = {DT::f32, DT::f16, DT::bf16};
const int64_t kCols[] = {1, 3, 127, 4097};
const int64_t kRows[] = {1, 3, 17};

std::mt19937& rng() {
    static std::mt19937 r(1234);
    return r;
}

HostTensor random_tensor(DT dt, std::vector<int64_t> shape, int64_t pad = 0, double lo = -2, double hi = 2) {
    HostTensor t(dt, std::move(shape), pad);
    t.fill_random(rng(), lo, hi);
    return t;
}

HostTensor output(DT dt, std::vector<int64_t> shape, int64_t pad = 0) {
    HostTensor t(dt, std::move(shape), pad);
    t.poison();
    return t;
}

// Within the tolerance of (op, output, dtype) from the one table (core/tolerances.def,
// docs/tolerances.md). floor: the smallest scale errors are measured against. Results
// that cancel to almost nothing (a loss of exactly 0 at V = 1, rms_norm's dx at N = 1)
// are judged on the scale of their inputs (O(1) here), not on their own vanishing size.
void expect_close(const char* op, const char* output, const HostTensor& got, const Vec& want, double floor = 0.0) {
    const Vec v = got.values();
    INFO(op << " " << output << " (" << test::name_of(got.dtype()) << ")");
    REQUIRE(test::all_finite(v));  // poisoned NaNs left behind mean unwritten elements
    const test::ToleranceCheck c = test::check_tolerance(op, output, got, want, floor);
    INFO(c.detail);
    CHECK(c.ok);
    CHECK(got.padding_intact());
}

#define REQUIRE_OK(call)                                              \
    do {                                                              \
        const opkit_status s_ = (call);                               \
        INFO(#call << ": " << opkit_last_error_message());            \
        REQUIRE(s_ == OPKIT_OK);                                      \
    } while (0)

}  // namespace

TEST_CASE("rms_norm forward and backward match float64") {
    for (DT dt : kFloatTypes)
        for (int64_t rows : kRows)
            for (int64_t n : kCols)
                for (int64_t pad : {0, 5})
                    for (bool with_weight : {true, false}) {
                        INFO("rows " << rows << " n " << n << " pad " << pad << " weight " << with_weight);
                        const double eps = 1e-5, off = with_weight ? 0.5 : 0.0;
                        HostTensor x = random_tensor(dt, {rows, n}, pad), dy = random_tensor(dt, {rows, n}, pad);
                        HostTensor w = random_tensor(dt, {n});
                        HostTensor y = output(dt, {rows, n}, pad), rstd = output(DT::f32, {rows});
                        const opkit_tensor* wt = with_weight ? w.ct() : nullptr;
                        REQUIRE_OK(opkit_rms_norm_forward(x.ct(), wt, float(eps), float(off), y.t(), rstd.t(), nullptr));
                        Vec wv = w.values(), ry, rr;
                        test::ref::rms_norm_forward(x.values(), with_weight ? &wv : nullptr, eps, off, rows, n, &ry, &rr);
                        expect_close("rms_norm_forward", "y", y, ry);
                        expect_close("rms_norm_forward", "rstd", rstd, rr);

                        HostTensor dx = output(dt, {rows, n}, pad), dw = output(dt, {n});
                        REQUIRE_OK(opkit_rms_norm_backward(dy.ct(), x.ct(), wt, rstd.ct(), float(off), dx.t(),
                                                           with_weight ? dw.t() : nullptr, nullptr));
                        Vec rdx, rdw;
                        test::ref::rms_norm_backward(dy.values(), x.values(), with_weight ? &wv : nullptr, eps, off,
                                                     rows, n, &rdx, &rdw);
                        // dx = rstd g - x rstd^3 sum(g x)/n with g = dy (w + off): two terms of the
                        // size of rstd |g| that cancel (to ~eps at n = 1). The error scales with
                        // the terms, so they are the floor of S (docs/tolerances.md).
                        double terms = 0;
                        const Vec dyv = dy.values();
                        for (int64_t r = 0; r < rows; ++r)
                            for (int64_t j = 0; j < n; ++j)
                                terms = std::max(terms, rr[size_t(r)] * std::fabs(dyv[size_t(r * n + j)] *
                                                                               (with_weight ? wv[size_t(j)] + off : 1.0)));
                        expect_close("rms_norm_backward", "dx", dx, rdx, terms);
                        if (with_weight) expect_close("rms_norm_backward", "dweight", dw, rdw);
                    }
}

TEST_CASE("rms_norm in place (y = x) and Gemma offset") {
    HostTensor x = random_tensor(DT::bf16, {5, 64}), w = random_tensor(DT::bf16, {64});
    const Vec xv = x.values(), wv = w.values();
    REQUIRE_OK(opkit_rms_norm_forward(x.ct(), w.ct(), 1e-6f, 1.0f, x.t(), nullptr, nullptr));
    Vec ry, rr;
    test::ref::rms_norm_forward(xv, &wv, 1e-6, 1.0, 5, 64, &ry, &rr);
    expect_close("rms_norm_forward", "y (in place)", x, ry);
}

TEST_CASE("layer_norm forward and backward match float64") {
    for (DT dt : kFloatTypes)
        for (int64_t rows : kRows)
            for (int64_t n : kCols)
                for (int64_t pad : {0, 3})
                    for (bool affine : {true, false}) {
                        INFO("rows " << rows << " n " << n << " pad " << pad << " affine " << affine);
                        const double eps = 1e-5;
                        HostTensor x = random_tensor(dt, {rows, n}, pad), dy = random_tensor(dt, {rows, n}, pad);
                        HostTensor w = random_tensor(dt, {n}), b = random_tensor(dt, {n});
                        HostTensor y = output(dt, {rows, n}, pad), mean = output(DT::f32, {rows}),
                                   rstd = output(DT::f32, {rows});
                        REQUIRE_OK(opkit_layer_norm_forward(x.ct(), affine ? w.ct() : nullptr, affine ? b.ct() : nullptr,
                                                            float(eps), y.t(), mean.t(), rstd.t(), nullptr));
                        Vec wv = w.values(), bv = b.values(), ry, rm, rr;
                        test::ref::layer_norm_forward(x.values(), affine ? &wv : nullptr, affine ? &bv : nullptr, eps,
                                                      rows, n, &ry, &rm, &rr);
                        expect_close("layer_norm_forward", "y", y, ry);
                        expect_close("layer_norm_forward", "mean", mean, rm, 1.0);  // cancels to ~0: O(1) scale
                        if (n > 1) expect_close("layer_norm_forward", "rstd", rstd, rr);  // n == 1: rstd = 1/sqrt(eps)

                        HostTensor dx = output(dt, {rows, n}, pad), dw = output(dt, {n}), db = output(dt, {n});
                        REQUIRE_OK(opkit_layer_norm_backward(dy.ct(), x.ct(), affine ? w.ct() : nullptr, mean.ct(),
                                                             rstd.ct(), dx.t(), affine ? dw.t() : nullptr, db.t(),
                                                             nullptr));
                        Vec rdx, rdw, rdb;
                        test::ref::layer_norm_backward(dy.values(), x.values(), affine ? &wv : nullptr, eps, rows, n,
                                                       &rdx, &rdw, &rdb);
                        // dx = rstd (g - mean(g) - xhat mean(g xhat)): terms of the size of rstd |g|
                        // that cancel, the floor of S as for rms_norm.
                        double terms = 0;
                        const Vec dyv = dy.values();
                        for (int64_t r = 0; r < rows; ++r)
                            for (int64_t j = 0; j < n; ++j)
                                terms = std::max(terms, rr[size_t(r)] * std::fabs(dyv[size_t(r * n + j)] *
                                                                               (affine ? wv[size_t(j)] : 1.0)));
                        if (n > 1) expect_close("layer_norm_backward", "dx", dx, rdx, terms);
                        if (affine && n > 1) expect_close("layer_norm_backward", "dweight", dw, rdw);
                        expect_close("layer_norm_backward", "dbias", db, rdb);
                    }
}

TEST_CASE("softmax forward and backward match float64 - in place too") {
    for (DT dt : kFloatTypes)
        for (int64_t rows : kRows)
            for (int64_t n : kCols)
                for (int64_t pad : {0, 7}) {
                    INFO("rows " << rows << " n " << n << " pad " << pad);
                    HostTensor x = random_tensor(dt, {rows, n}, pad, -4, 4), dy = random_tensor(dt, {rows, n}, pad);
                    HostTensor y = output(dt, {rows, n}, pad);
                    REQUIRE_OK(opkit_softmax_forward(x.ct(), y.t(), nullptr));
                    Vec ry;
                    test::ref::softmax_forward(x.values(), rows, n, &ry);
                    expect_close("softmax_forward", "y", y, ry);
                    HostTensor dx = output(dt, {rows, n}, pad);
                    REQUIRE_OK(opkit_softmax_backward(dy.ct(), y.ct(), dx.t(), nullptr));
                    Vec rdx;
                    test::ref::softmax_backward(dy.values(), y.values(), rows, n, &rdx);
                    expect_close("softmax_backward", "dx", dx, rdx);
                    // in place: y over x
                    REQUIRE_OK(opkit_softmax_forward(x.ct(), x.t(), nullptr));
                    expect_close("softmax_forward", "y (in place)", x, ry);
                }
}

TEST_CASE("swiglu and geglu forward and backward match float64") {
    for (int act : {0, 1, 2})
        for (DT dt : kFloatTypes)
            for (int64_t rows : kRows)
                for (int64_t n : kCols)
                    for (int64_t pad : {0, 2}) {
                        INFO("act " << act << " rows " << rows << " n " << n << " pad " << pad);
                            HostTensor a = random_tensor(dt, {rows, n}, pad, -4, 4), b = random_tensor(dt, {rows, n}, pad),
                                   dy = random_tensor(dt, {rows, n}, pad);
                        HostTensor y = output(dt, {rows, n}, pad);
                        const int32_t approx = act == 2 ? OPKIT_GELU_TANH : OPKIT_GELU_NONE;
                        if (act == 0)
                            REQUIRE_OK(opkit_swiglu_forward(a.ct(), b.ct(), y.t(), nullptr));
                        else
                            REQUIRE_OK(opkit_geglu_forward(a.ct(), b.ct(), approx, y.t(), nullptr));
                        Vec ry, rda, rdb;
                        test::ref::gated_forward(act, a.values(), b.values(), &ry);
                        expect_close(act == 0 ? "swiglu_forward" : "geglu_forward", "y", y, ry);
                        test::ref::gated_backward(act, dy.values(), a.values(), b.values(), &rda, &rdb);
                        // da aliases a and db aliases b: the documented in-place form
                        if (act == 0)
                            REQUIRE_OK(opkit_swiglu_backward(dy.ct(), a.ct(), b.ct(), a.t(), b.t(), nullptr));
                        else
                            REQUIRE_OK(opkit_geglu_backward(dy.ct(), a.ct(), b.ct(), approx, a.t(), b.t(), nullptr));
                        expect_close(act == 0 ? "swiglu_backward" : "geglu_backward", "da (in place over a)", a, rda);
                        expect_close(act == 0 ? "swiglu_backward" : "geglu_backward", "db (in place over b)", b, rdb);
                    }
}

TEST_CASE("rope forward and backward match float64 - on BHTD storage viewed as BTHD") {
    for (DT dt : kFloatTypes)
        for (bool batched : {false, true})
            for (auto dims : {std::vector<int64_t>{1, 1, 1, 2}, std::vector<int64_t>{2, 5, 3, 8},
                              std::vector<int64_t>{1, 7, 2, 128}}) {
                const int64_t B = dims[0], T = dims[1], H = dims[2], D = dims[3];
                INFO("B " << B << " T " << T << " H " << H << " D " << D << " batched " << batched);
                // Storage [B,H,T,D]; the view passes strides of [B,T,H,D].
                HostTensor storage = random_tensor(dt, {B, H, T, D});
                opkit_tensor x = *storage.ct();
                int64_t shape[4] = {B, T, H, D}, strides[4] = {H * T * D, D, T * D, 1};
                x.shape = shape;
                x.strides = strides;
                Vec xv(static_cast<size_t>(B * T * H * D));
                for (int64_t b = 0; b < B; ++b)
                    for (int64_t t = 0; t < T; ++t)
                        for (int64_t h = 0; h < H; ++h)
                            for (int64_t d = 0; d < D; ++d)
                                xv[size_t(((b * T + t) * H + h) * D + d)] = storage.get(((b * H + h) * T + t) * D + d);
                std::vector<int64_t> ashape = batched ? std::vector<int64_t>{B, T, D} : std::vector<int64_t>{T, D};
                HostTensor cos = random_tensor(dt, ashape, 0, -1, 1), sin = random_tensor(dt, ashape, 0, -1, 1);
                HostTensor y = output(dt, {B, T, H, D});
                REQUIRE_OK(opkit_rope_forward(&x, cos.ct(), sin.ct(), y.t(), nullptr));
                Vec ry, rdx;
                test::ref::rope(xv, cos.values(), sin.values(), B, T, H, D, batched, false, &ry);
                expect_close("rope_forward", "y", y, ry);
                HostTensor dx = output(dt, {B, T, H, D});
                REQUIRE_OK(opkit_rope_backward(y.ct(), cos.ct(), sin.ct(), dx.t(), nullptr));
                test::ref::rope(y.values(), cos.values(), sin.values(), B, T, H, D, batched, true, &rdx);
                expect_close("rope_backward", "dx", dx, rdx);
                // in place
                REQUIRE_OK(opkit_rope_backward(y.ct(), cos.ct(), sin.ct(), y.t(), nullptr));
                expect_close("rope_backward", "dx (in place)", y, rdx);
            }
}

namespace {

// Views of q [B,T,Hq,D] and k [B,T,Hk,D] inside one fused qkv buffer [B,T,Hq+Hk+Hv,D]
// (what a fused QKV projection leaves behind): q at head 0, k at head Hq.
struct FusedQK {
    int64_t qshape[4], kshape[4], strides[4];
    opkit_tensor q, k;
    FusedQK(const HostTensor& qkv, int64_t Hq, int64_t Hk) {
        const opkit_tensor& f = *qkv.ct();
        const int64_t B = f.shape[0], T = f.shape[1], H = f.shape[2], D = f.shape[3];
        const int64_t st[4] = {T * H * D, H * D, D, 1}, qs[4] = {B, T, Hq, D}, ks[4] = {B, T, Hk, D};
        std::copy(st, st + 4, strides);
        std::copy(qs, qs + 4, qshape);
        std::copy(ks, ks + 4, kshape);
        q = k = f;
        q.shape = qshape;
        k.shape = kshape;
        q.strides = k.strides = strides;
        k.byte_offset += uint64_t(Hq * D) * test::size_of(qkv.dtype());
    }
};

// Heads [h0, h0+n) of a [B,T,H,D] tensor's values, as a dense [B,T,n,D] vector.
Vec heads_of(const HostTensor& t, int64_t h0, int64_t n) {
    const std::vector<int64_t>& s = t.shape();
    const int64_t B = s[0], T = s[1], H = s[2], D = s[3];
    Vec out;
    for (int64_t bt = 0; bt < B * T; ++bt)
        for (int64_t h = h0; h < h0 + n; ++h)
            for (int64_t d = 0; d < D; ++d) out.push_back(t.get((bt * H + h) * D + d));
    return out;
}

}  // namespace

TEST_CASE("rope_qk forward and backward match float64 and two rope calls bit for bit") {
    // {B, T, Hq, Hk, D}: Hq != Hk (GQA), odd sizes, one side with no heads
    const std::vector<std::vector<int64_t>> cases = {{1, 1, 1, 1, 2}, {2, 5, 3, 1, 8},  {1, 7, 4, 2, 128},
                                                     {3, 3, 1, 5, 6}, {2, 3, 0, 2, 10}, {1, 4, 2, 0, 4}};
    for (DT dt : kFloatTypes)
        for (bool batched : {false, true})
            for (int64_t pad : {0, 3})
                for (const auto& c : cases) {
                    const int64_t B = c[0], T = c[1], Hq = c[2], Hk = c[3], D = c[4];
                    INFO("B " << B << " T " << T << " Hq " << Hq << " Hk " << Hk << " D " << D << " batched "
                              << batched << " pad " << pad);
                    // pad > 0: every tensor a strided view with rows (of D) apart
                    HostTensor q = random_tensor(dt, {B, T, Hq, D}, pad), k = random_tensor(dt, {B, T, Hk, D}, pad);
                    std::vector<int64_t> ashape = batched ? std::vector<int64_t>{B, T, D} : std::vector<int64_t>{T, D};
                    HostTensor cos = random_tensor(dt, ashape, pad, -1, 1), sin = random_tensor(dt, ashape, pad, -1, 1);
                    HostTensor qo = output(dt, {B, T, Hq, D}, pad), ko = output(dt, {B, T, Hk, D}, pad);
                    REQUIRE_OK(opkit_rope_qk_forward(q.ct(), k.ct(), cos.ct(), sin.ct(), qo.t(), ko.t(), nullptr));
                    Vec rq, rk;
                    test::ref::rope_qk(q.values(), k.values(), cos.values(), sin.values(), B, T, Hq, Hk, D, batched,
                                       false, &rq, &rk);
                    expect_close("rope_qk_forward", "q_out", qo, rq);
                    expect_close("rope_qk_forward", "k_out", ko, rk);
                    // exactly two rope calls
                    HostTensor q1 = output(dt, {B, T, Hq, D}, pad), k1 = output(dt, {B, T, Hk, D}, pad);
                    REQUIRE_OK(opkit_rope_forward(q.ct(), cos.ct(), sin.ct(), q1.t(), nullptr));
                    REQUIRE_OK(opkit_rope_forward(k.ct(), cos.ct(), sin.ct(), k1.t(), nullptr));
                    CHECK(qo.bytes() == q1.bytes());
                    CHECK(ko.bytes() == k1.bytes());

                    // backward of (q_out, k_out): out of place, then in place
                    HostTensor dq = output(dt, {B, T, Hq, D}, pad), dk = output(dt, {B, T, Hk, D}, pad);
                    REQUIRE_OK(opkit_rope_qk_backward(qo.ct(), ko.ct(), cos.ct(), sin.ct(), dq.t(), dk.t(), nullptr));
                    Vec rdq, rdk;
                    test::ref::rope_qk(qo.values(), ko.values(), cos.values(), sin.values(), B, T, Hq, Hk, D, batched,
                                       true, &rdq, &rdk);
                    expect_close("rope_qk_backward", "dq", dq, rdq);
                    expect_close("rope_qk_backward", "dk", dk, rdk);
                    HostTensor dq1 = output(dt, {B, T, Hq, D}, pad), dk1 = output(dt, {B, T, Hk, D}, pad);
                    REQUIRE_OK(opkit_rope_backward(qo.ct(), cos.ct(), sin.ct(), dq1.t(), nullptr));
                    REQUIRE_OK(opkit_rope_backward(ko.ct(), cos.ct(), sin.ct(), dk1.t(), nullptr));
                    CHECK(dq.bytes() == dq1.bytes());
                    CHECK(dk.bytes() == dk1.bytes());
                    REQUIRE_OK(opkit_rope_qk_backward(qo.ct(), ko.ct(), cos.ct(), sin.ct(), qo.t(), ko.t(), nullptr));
                    CHECK(qo.bytes() == dq.bytes());
                    CHECK(ko.bytes() == dk.bytes());
                    // forward in place over q and k (values: the padding of q and k was never poisoned)
                    REQUIRE_OK(opkit_rope_qk_forward(q.ct(), k.ct(), cos.ct(), sin.ct(), q.t(), k.t(), nullptr));
                    CHECK(q.values() == q1.values());
                    CHECK(k.values() == k1.values());
                }
}

TEST_CASE("rope_qk on q and k as views into one fused qkv buffer") {
    for (DT dt : kFloatTypes)
        for (bool batched : {false, true})
            for (auto c : {std::vector<int64_t>{2, 5, 4, 2, 2, 8}, std::vector<int64_t>{1, 3, 1, 3, 1, 64},
                           std::vector<int64_t>{3, 2, 2, 2, 1, 6}}) {
                const int64_t B = c[0], T = c[1], Hq = c[2], Hk = c[3], Hv = c[4], D = c[5], H = Hq + Hk + Hv;
                INFO("B " << B << " T " << T << " Hq " << Hq << " Hk " << Hk << " Hv " << Hv << " D " << D
                          << " batched " << batched);
                HostTensor qkv = random_tensor(dt, {B, T, H, D});
                std::vector<int64_t> ashape = batched ? std::vector<int64_t>{B, T, D} : std::vector<int64_t>{T, D};
                HostTensor cos = random_tensor(dt, ashape, 0, -1, 1), sin = random_tensor(dt, ashape, 0, -1, 1);
                FusedQK in(qkv, Hq, Hk);
                // out of place into another fused buffer: its v heads stay poisoned
                HostTensor out = output(dt, {B, T, H, D}), two = output(dt, {B, T, H, D});
                FusedQK o(out, Hq, Hk), t(two, Hq, Hk);
                REQUIRE_OK(opkit_rope_qk_forward(&in.q, &in.k, cos.ct(), sin.ct(), &o.q, &o.k, nullptr));
                REQUIRE_OK(opkit_rope_forward(&in.q, cos.ct(), sin.ct(), &t.q, nullptr));
                REQUIRE_OK(opkit_rope_forward(&in.k, cos.ct(), sin.ct(), &t.k, nullptr));
                CHECK(out.bytes() == two.bytes());
                Vec rq, rk;
                test::ref::rope_qk(heads_of(qkv, 0, Hq), heads_of(qkv, Hq, Hk), cos.values(), sin.values(), B, T, Hq,
                                   Hk, D, batched, false, &rq, &rk);
                const char* dn = test::name_of(dt);
                const test::ToleranceCheck cq =
                    test::check_tolerance("rope_qk_forward", "q_out", dn, heads_of(out, 0, Hq), rq);
                const test::ToleranceCheck ck =
                    test::check_tolerance("rope_qk_forward", "k_out", dn, heads_of(out, Hq, Hk), rk);
                INFO(cq.detail << " / " << ck.detail);
                CHECK(cq.ok);
                CHECK(ck.ok);
                for (double v : heads_of(out, Hq + Hk, Hv)) CHECK(std::isnan(v));  // v untouched
                // in place on the fused buffer (backward): the same bytes as two in-place rope
                // calls on a twin of it, v untouched
                HostTensor twin(dt, {B, T, H, D});
                twin.set_values(qkv.values());
                REQUIRE(twin.bytes() == qkv.bytes());
                FusedQK tw(twin, Hq, Hk);
                Vec rdq, rdk;
                test::ref::rope_qk(heads_of(qkv, 0, Hq), heads_of(qkv, Hq, Hk), cos.values(), sin.values(), B, T, Hq,
                                   Hk, D, batched, true, &rdq, &rdk);
                REQUIRE_OK(opkit_rope_qk_backward(&in.q, &in.k, cos.ct(), sin.ct(), &in.q, &in.k, nullptr));
                REQUIRE_OK(opkit_rope_backward(&tw.q, cos.ct(), sin.ct(), &tw.q, nullptr));
                REQUIRE_OK(opkit_rope_backward(&tw.k, cos.ct(), sin.ct(), &tw.k, nullptr));
                CHECK(qkv.bytes() == twin.bytes());
                CHECK(test::check_tolerance("rope_qk_backward", "dq", dn, heads_of(qkv, 0, Hq), rdq).ok);
                CHECK(test::check_tolerance("rope_qk_backward", "dk", dn, heads_of(qkv, Hq, Hk), rdk).ok);
            }
}

TEST_CASE("cross_entropy forward and backward match float64 for every reduction") {
    for (DT dt : kFloatTypes)
        for (DT it : {DT::i32, DT::i64})
            for (int64_t V : {1, 3, 127, 4097})
                for (int reduction : {0, 1, 2})
                    for (double smoothing : {0.0, 0.1}) {
                        const int64_t rows = 9;
                        INFO("V " << V << " reduction " << reduction << " smoothing " << smoothing);
                            HostTensor logits = random_tensor(dt, {rows, V}, 3, -3, 3);
                        HostTensor target(it, {rows});
                        std::vector<int64_t> tv(static_cast<size_t>(rows));
                        for (int64_t r = 0; r < rows; ++r) {
                            tv[size_t(r)] = r % 4 == 1 ? -100 : int64_t(rng()() % uint64_t(V));
                            target.set(r, double(tv[size_t(r)]));
                        }
                        HostTensor loss = reduction == 0 ? output(DT::f32, {rows}) : output(DT::f32, {});
                        HostTensor lse = output(DT::f32, {rows}), dl = output(dt, {rows, V}, 3);
                        REQUIRE_OK(opkit_cross_entropy_forward(logits.ct(), target.ct(), -100, float(smoothing), reduction,
                                                               loss.t(), lse.t(), dl.t(), nullptr));
                        Vec rl, rlse, rdl;
                        test::ref::cross_entropy(logits.values(), tv, rows, V, -100, smoothing, reduction, &rl, &rlse, &rdl);
                        expect_close("cross_entropy_forward", "loss", loss, rl, 1.0);
                        expect_close("cross_entropy_forward", "lse", lse, rlse);
                        expect_close("cross_entropy_forward", "dlogits", dl, rdl);

                        // backward with an upstream gradient, lse given and recomputed
                        HostTensor dloss = reduction == 0 ? random_tensor(DT::f32, {rows}) : random_tensor(DT::f32, {});
                        for (bool with_lse : {true, false}) {
                            HostTensor g = output(dt, {rows, V}, 3);
                            REQUIRE_OK(opkit_cross_entropy_backward(dloss.ct(), logits.ct(), target.ct(),
                                                                    with_lse ? lse.ct() : nullptr, -100, float(smoothing),
                                                                    reduction, g.t(), nullptr));
                            Vec want = rdl, up = dloss.values();
                            for (int64_t r = 0; r < rows; ++r)
                                for (int64_t j = 0; j < V; ++j)
                                    want[size_t(r * V + j)] *= reduction == 0 ? up[size_t(r)] : up[0];
                            expect_close("cross_entropy_backward", "dlogits", g, want);
                            // the same with dlogits written over (a copy of) the logits
                            HostTensor x(dt, {rows, V});
                            x.set_values(logits.values());
                            REQUIRE_OK(opkit_cross_entropy_backward(dloss.ct(), x.ct(), target.ct(),
                                                                    with_lse ? lse.ct() : nullptr, -100, float(smoothing),
                                                                    reduction, x.t(), nullptr));
                            expect_close("cross_entropy_backward", "dlogits (in place)", x, want);
                        }
                        // Liger's memory trick: dlogits written over the logits
                        REQUIRE_OK(opkit_cross_entropy_forward(logits.ct(), target.ct(), -100, float(smoothing),
                                                               reduction, nullptr, nullptr, logits.t(), nullptr));
                        expect_close("cross_entropy_forward", "dlogits (in place)", logits, rdl);
                    }
}

TEST_CASE("cross_entropy of a row that is all -inf: lse -inf, loss and gradient NaN like PyTorch") {
    for (DT dt : kFloatTypes) {
        INFO(name_of(dt));
        const int64_t V = 37;
        HostTensor logits = random_tensor(dt, {2, V}), target(DT::i64, {2});
        for (int64_t j = 0; j < V; ++j) logits.set(j, -INFINITY);  // row 0
        target.set(0, 5);
        target.set(1, 6);
        HostTensor loss = output(DT::f32, {2}), lse = output(DT::f32, {2}), dl = output(dt, {2, V});
        REQUIRE_OK(opkit_cross_entropy_forward(logits.ct(), target.ct(), -100, 0.f, OPKIT_REDUCTION_NONE, loss.t(),
                                               lse.t(), dl.t(), nullptr));
        CHECK(lse.get(0) == -INFINITY);
        CHECK(std::isnan(loss.get(0)));
        CHECK(std::isfinite(lse.get(1)));
        CHECK(std::isfinite(loss.get(1)));
        for (int64_t j = 0; j < V; ++j) {
            CHECK(std::isnan(dl.get(j)));
            CHECK(std::isfinite(dl.get(V + j)));
        }
        HostTensor one = output(DT::f32, {2}), g = output(dt, {2, V});
        one.set(0, 1.0);
        one.set(1, 1.0);
        REQUIRE_OK(opkit_cross_entropy_backward(one.ct(), logits.ct(), target.ct(), nullptr, -100, 0.f,
                                                OPKIT_REDUCTION_NONE, g.t(), nullptr));
        for (int64_t j = 0; j < V; ++j) CHECK(std::isnan(g.get(j)));
    }
}

TEST_CASE("cross_entropy with every row ignored: NaN mean like PyTorch - zero gradient") {
    HostTensor logits = random_tensor(DT::f32, {4, 10}), target(DT::i64, {4});
    for (int64_t r = 0; r < 4; ++r) target.set(r, -100);
    HostTensor loss = output(DT::f32, {}), sum = output(DT::f32, {}), dl = output(DT::f32, {4, 10});
    REQUIRE_OK(opkit_cross_entropy_forward(logits.ct(), target.ct(), -100, 0.f, OPKIT_REDUCTION_MEAN, loss.t(),
                                           nullptr, dl.t(), nullptr));
    CHECK(std::isnan(loss.get(0)));
    for (double v : dl.values()) CHECK(v == 0.0);
    REQUIRE_OK(opkit_cross_entropy_forward(logits.ct(), target.ct(), -100, 0.f, OPKIT_REDUCTION_SUM, sum.t(),
                                           nullptr, nullptr, nullptr));
    CHECK(sum.get(0) == 0.0);
}

TEST_CASE("embedding forward and backward match float64") {
    for (DT dt : kFloatTypes)
        for (DT it : {DT::i32, DT::i64})
            for (int64_t D : {1, 3, 127, 4097}) {
                const int64_t V = 11;
                INFO("D " << D);
                HostTensor w = random_tensor(dt, {V, D}, 2);
                HostTensor ids(it, {3, 5});
                std::vector<int64_t> iv(15);
                for (int64_t k = 0; k < 15; ++k) iv[size_t(k)] = int64_t(rng()() % uint64_t(V)), ids.set(k, double(iv[size_t(k)]));
                HostTensor y = output(dt, {3, 5, D});
                REQUIRE_OK(opkit_embedding_forward(w.ct(), ids.ct(), y.t(), nullptr));
                Vec want(static_cast<size_t>(15 * D)), wv = w.values();
                for (int64_t k = 0; k < 15; ++k)
                    for (int64_t j = 0; j < D; ++j) want[size_t(k * D + j)] = wv[size_t(iv[size_t(k)] * D + j)];
                expect_close("embedding_forward", "y", y, want);
                HostTensor dy = random_tensor(dt, {3, 5, D}), dw = output(dt, {V, D}, 2);
                const int64_t padding = iv[3];
                REQUIRE_OK(opkit_embedding_backward(dy.ct(), ids.ct(), padding, dw.t(), nullptr));
                Vec rdw;
                test::ref::embedding_backward(dy.values(), iv, V, D, padding, &rdw);
                expect_close("embedding_backward", "dweight", dw, rdw);
            }
}

TEST_CASE("matmul matches float64: transposes - batches - broadcast - beta") {
    for (DT dt : kFloatTypes)
        for (int ta : {0, 1})
            for (int tb : {0, 1})
                for (auto mnk : {std::vector<int64_t>{1, 1, 1}, std::vector<int64_t>{3, 5, 7},
                                 std::vector<int64_t>{37, 29, 300}, std::vector<int64_t>{130, 17, 4}})
                    for (auto batches : {std::vector<int64_t>{0, 0}, std::vector<int64_t>{3, 3},
                                         std::vector<int64_t>{1, 3}, std::vector<int64_t>{3, 1}})
                        for (double beta : {0.0, 0.5}) {
                            const int64_t M = mnk[0], N = mnk[1], K = mnk[2];
                            const bool batched = batches[0] > 0;
                            const int64_t ba = batched ? batches[0] : 1, bb = batched ? batches[1] : 1;
                            const int64_t batch = std::max(ba, bb);
                            INFO("M " << M << " N " << N << " K " << K << " ta " << ta << " tb " << tb << " batch "
                                      << ba << "x" << bb << " beta " << beta);
                            auto shape = [&](int64_t bsz, int64_t r, int64_t c) {
                                return batched ? std::vector<int64_t>{bsz, r, c} : std::vector<int64_t>{r, c};
                            };
                            HostTensor a = random_tensor(dt, shape(ba, ta ? K : M, ta ? M : K), 1);
                            HostTensor b = random_tensor(dt, shape(bb, tb ? N : K, tb ? K : N));
                            HostTensor c = random_tensor(dt, shape(batch, M, N), 2);
                            Vec rc = c.values();
                            if (beta == 0.0) c.poison();  // not read: NaN must not propagate
                            REQUIRE_OK(opkit_matmul(a.ct(), b.ct(), c.t(), 0.75f, float(beta), ta, tb, nullptr));
                            test::ref::matmul(a.values(), b.values(), &rc, batch, ba, bb, M, N, K, ta, tb, 0.75, beta);
                            expect_close("matmul", "c", c, rc);
                        }
}

TEST_CASE("axpy matches float64 on strided views") {
    for (DT dt : kFloatTypes)
        for (int64_t n : kCols) {
            HostTensor x = random_tensor(dt, {4, n}, 3), y = random_tensor(dt, {4, n}, 1);
            Vec want = y.values(), xv = x.values();
            for (size_t i = 0; i < want.size(); ++i) want[i] += -0.3 * xv[i];
            REQUIRE_OK(opkit_axpy(-0.3f, x.ct(), y.t(), nullptr));
            expect_close("axpy", "y", y, want);
        }
}

// ---------------------------------------------------------------- finite differences

namespace {

// Checks grad (analytic, float64) against central differences of f at x, where f is the
// scalar sum(dy * forward(x)).
void check_gradient(const std::function<double(const Vec&)>& f, Vec x, const Vec& grad, const char* what) {
    INFO(what);
    const double h = 1e-6;
    double worst = 0, scale = 1e-8;
    for (size_t i = 0; i < x.size(); ++i) {
        const double keep = x[i];
        x[i] = keep + h;
        const double up = f(x);
        x[i] = keep - h;
        const double down = f(x);
        x[i] = keep;
        worst = std::max(worst, std::fabs((up - down) / (2 * h) - grad[i]));
        scale = std::max(scale, std::fabs(grad[i]));
    }
    CHECK(worst / scale < 1e-6);
}

double weighted(const Vec& dy, const Vec& y) {
    double s = 0;
    for (size_t i = 0; i < y.size(); ++i) s += dy[i] * y[i];
    return s;
}

Vec random_vec(size_t n) {
    std::uniform_real_distribution<double> u(-1.5, 1.5);
    Vec v(n);
    for (double& x : v) x = u(rng()) + (u(rng()) > 0 ? 0.1 : -0.1);
    return v;
}

}  // namespace

TEST_CASE("backward references agree with finite differences of the forward references") {
    const int64_t rows = 3, n = 7;
    const Vec x = random_vec(size_t(rows * n)), dy = random_vec(size_t(rows * n)), w = random_vec(size_t(n)),
              b = random_vec(size_t(n));
    Vec dx, dw, db, y, s1, s2;
    test::ref::rms_norm_backward(dy, x, &w, 1e-5, 0.25, rows, n, &dx, &dw);
    check_gradient([&](const Vec& v) { test::ref::rms_norm_forward(v, &w, 1e-5, 0.25, rows, n, &y, &s1); return weighted(dy, y); },
                   x, dx, "rms_norm dx");
    check_gradient([&](const Vec& v) { test::ref::rms_norm_forward(x, &v, 1e-5, 0.25, rows, n, &y, &s1); return weighted(dy, y); },
                   w, dw, "rms_norm dweight");
    test::ref::layer_norm_backward(dy, x, &w, 1e-5, rows, n, &dx, &dw, &db);
    check_gradient([&](const Vec& v) { test::ref::layer_norm_forward(v, &w, &b, 1e-5, rows, n, &y, &s1, &s2); return weighted(dy, y); },
                   x, dx, "layer_norm dx");
    check_gradient([&](const Vec& v) { test::ref::layer_norm_forward(x, &v, &b, 1e-5, rows, n, &y, &s1, &s2); return weighted(dy, y); },
                   w, dw, "layer_norm dweight");
    check_gradient([&](const Vec& v) { test::ref::layer_norm_forward(x, &w, &v, 1e-5, rows, n, &y, &s1, &s2); return weighted(dy, y); },
                   b, db, "layer_norm dbias");
    test::ref::softmax_forward(x, rows, n, &y);
    test::ref::softmax_backward(dy, y, rows, n, &dx);
    check_gradient([&](const Vec& v) { Vec yy; test::ref::softmax_forward(v, rows, n, &yy); return weighted(dy, yy); },
                   x, dx, "softmax dx");
    for (int act : {0, 1, 2}) {
        Vec da, dbb;
        test::ref::gated_backward(act, dy, x, x, &da, &dbb);
        const Vec other = random_vec(x.size());
        test::ref::gated_backward(act, dy, x, other, &da, &dbb);
        check_gradient([&](const Vec& v) { Vec yy; test::ref::gated_forward(act, v, other, &yy); return weighted(dy, yy); },
                       x, da, "gated da");
        check_gradient([&](const Vec& v) { Vec yy; test::ref::gated_forward(act, x, v, &yy); return weighted(dy, yy); },
                       other, dbb, "gated db");
    }
    {
        const int64_t B = 2, T = 3, H = 2, D = 4;
        const Vec xr = random_vec(size_t(B * T * H * D)), g = random_vec(xr.size());
        const Vec c = random_vec(size_t(T * D)), s = random_vec(size_t(T * D));
        Vec rdx;
        test::ref::rope(g, c, s, B, T, H, D, false, true, &rdx);
        check_gradient([&](const Vec& v) { Vec yy; test::ref::rope(v, c, s, B, T, H, D, false, false, &yy); return weighted(g, yy); },
                       xr, rdx, "rope dx");
    }
    for (int reduction : {0, 1, 2}) {
        const int64_t R = 4, V = 5;
        const Vec logits = random_vec(size_t(R * V));
        const std::vector<int64_t> target = {1, -100, 4, 0};
        Vec loss, lse, dl;
        test::ref::cross_entropy(logits, target, R, V, -100, 0.1, reduction, &loss, &lse, &dl);
        check_gradient([&](const Vec& v) {
            Vec l, e, d;
            test::ref::cross_entropy(v, target, R, V, -100, 0.1, reduction, &l, &e, &d);
            double t = 0;
            for (double q : l) t += q;
            return t;
        }, logits, dl, "cross_entropy dlogits");
    }
}
