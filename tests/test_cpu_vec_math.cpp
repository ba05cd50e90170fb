// The CPU defaults' vectorized exp and erfc (core/cpu/vec_exp.h) against double precision
// over dense sweeps and the edge cases: every result within the bounds vec_exp.h promises.
// exp_nonpositive is measured through the library's own clone-compiled loops (so the code
// measured is the code that runs: softmax's exp_shifted, log-sum-exp's exp_sum); exp_fast,
// whose loops (SiLU, GELU) mix it with other arithmetic, from the header in this file.
#include "cpu/convert.h"
#include "cpu/vec_act.h"
#include "cpu/vec_exp.h"
#include "cpu/vec_math.h"

#include <catch2/catch.hpp>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <algorithm>
#include <limits>
#include <vector>

namespace {

constexpr float kUlp = 5.9604645e-08f;  // 2^-24: half an ulp of 1, the unit of relative error

std::vector<float> sweep(double lo, double hi, double step) {
    std::vector<float> v;
    for (double x = lo; x < hi; x += step) v.push_back(float(x));
    return v;
}

std::vector<float> exp_of(const std::vector<float>& x) {
    std::vector<float> y(x.size());
    for (size_t i = 0; i < x.size(); ++i) y[i] = opkit::cpu::vec::exp_fast(x[i]);
    return y;
}

// exp_nonpositive through softmax's loop: exp(x - 0), x <= 0.
std::vector<float> exp_shifted_of(const std::vector<float>& x) {
    std::vector<float> y(x.size());
    opkit::cpu::vec::exp_shifted(x.data(), 0.0f, y.data(), int64_t(x.size()));
    return y;
}

}  // namespace

TEST_CASE("the max-shifted exp loops are within 1.5 ulp of exp over [-87.3, 0], zero below 2^-126") {
    const std::vector<float> x = sweep(-90.0, 0.0, 0.00013);
    const std::vector<float> y = exp_shifted_of(x);
    double worst = 0.0;
    double sum = 0.0;
    for (size_t i = 0; i < x.size(); ++i) {
        const double ref = std::exp(double(x[i]));
        sum += double(y[i]);
        if (ref >= double(FLT_MIN)) {
            worst = std::max(worst, std::fabs(double(y[i]) - ref) / ref);
        } else {  // flushed: zero, or the correctly rounded tiny value near the threshold
            INFO("x = " << x[i]);
            REQUIRE(std::fabs(double(y[i]) - ref) <= double(FLT_MIN));
        }
    }
    INFO("worst relative error " << worst << " (" << worst / kUlp << " half-ulps)");
    CHECK(worst <= 1.5 * 2 * kUlp);
    CHECK(worst > 0.0);
    // exp_sum (log-sum-exp) adds the same exponentials
    const float s = opkit::cpu::vec::exp_sum(x.data(), 0.0f, int64_t(x.size()));
    CHECK(std::fabs(double(s) - sum) <= 1e-5 * sum);
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    const std::vector<float> edge = {-inf, nan, -87.4f, -88.0f, -104.5f, -1000.0f, 0.0f, -0.0f, -1e-30f, -87.3f};
    // The loops take sixteen lanes at a time (f32x16) and the rest one by one: the edge
    // values in both places, at the start of a 42-element row and in its 10-element tail,
    // must give the same bits.
    std::vector<float> row(42, -1.0f);
    std::copy(edge.begin(), edge.end(), row.begin() + 3);
    std::copy(edge.begin(), edge.end(), row.end() - int64_t(edge.size()));
    const std::vector<float> in_row = exp_shifted_of(row);
    const std::vector<float> e = exp_shifted_of(edge);
    for (size_t k = 0; k < edge.size(); ++k) {
        INFO("edge value " << edge[k]);
        const float lane = in_row[3 + k], tail = in_row[row.size() - edge.size() + k];
        CHECK((std::memcmp(&lane, &tail, 4) == 0 || (std::isnan(lane) && std::isnan(tail))));
        CHECK((std::memcmp(&lane, &e[k], 4) == 0 || (std::isnan(lane) && std::isnan(e[k]))));
    }
    CHECK(e[0] == 0.0f);
    CHECK(std::isnan(e[1]));
    CHECK(e[2] == 0.0f);
    CHECK(e[3] == 0.0f);
    CHECK(e[4] == 0.0f);
    CHECK(e[5] == 0.0f);
    CHECK(e[6] == 1.0f);
    CHECK(e[7] == 1.0f);
    CHECK(e[8] == 1.0f);
    const double at = std::exp(double(edge[9]));  // just above 2^-126: computed, not flushed
    CHECK(std::fabs(double(e[9]) - at) <= 1.5 * 2 * kUlp * at);
    // the bf16 rows' loop gives the bits of the f32 loop on the widened row
    std::vector<uint16_t> xb;
    std::vector<float> xw;
    for (size_t i = 0; i < x.size(); i += 97) {
        xb.push_back(opkit::cpu::f32_to_bf16(x[i]));
        xw.push_back(opkit::cpu::bf16_to_f32(xb.back()));
    }
    std::vector<float> yb(xb.size()), yw(xw.size());
    opkit::cpu::vec::exp_shifted_bf16(xb.data(), 0.0f, yb.data(), int64_t(xb.size()));
    opkit::cpu::vec::exp_shifted(xw.data(), 0.0f, yw.data(), int64_t(xw.size()));
    CHECK(yb == yw);
}

TEST_CASE("vectorized exp is within 1.5 ulp of exp over the float range") {
    const std::vector<float> x = sweep(-103.9, 88.72, 0.00037);
    const std::vector<float> y = exp_of(x);
    double worst = 0.0;
    for (size_t i = 0; i < x.size(); ++i) {
        const double ref = std::exp(double(x[i]));
        if (ref >= double(FLT_MIN)) {
            worst = std::max(worst, std::fabs(double(y[i]) - ref) / ref);
        } else {  // subnormal results: within one subnormal step
            INFO("x = " << x[i]);
            REQUIRE(std::fabs(double(y[i]) - ref) <= 1.5 * 1.401298464e-45);
        }
    }
    INFO("worst relative error " << worst << " (" << worst / kUlp << " half-ulps)");
    CHECK(worst <= 1.5 * 2 * kUlp);
    CHECK(worst > 0.0);  // it is an approximation: a zero here would mean libm was measured
}

TEST_CASE("vectorized exp: infinities, NaN, overflow, underflow and signed zero") {
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    const std::vector<float> x = {-inf, inf, nan, 88.73f, 1000.0f, -104.5f, -1000.0f, 0.0f, -0.0f, 1e-30f};
    const std::vector<float> y = exp_of(x);
    CHECK(y[0] == 0.0f);
    CHECK(y[1] == inf);
    CHECK(std::isnan(y[2]));
    CHECK(y[3] == inf);
    CHECK(y[4] == inf);
    CHECK(y[5] == 0.0f);
    CHECK(y[6] == 0.0f);
    CHECK(y[7] == 1.0f);
    CHECK(y[8] == 1.0f);
    CHECK(y[9] == 1.0f);
}

TEST_CASE("the exact GELU (erfc) and its derivative stay within GeGLU's f32 tolerance") {
    // gelu(a) * 1 and its derivative * 1 over [-12, 12], against double precision; the
    // bound is tolerances.def's geglu rows: rtol 1.4e-6 (y) and 3.5e-6 (da), atol relative
    // to the largest reference value.
    const std::vector<float> a = sweep(-12.0, 12.0, 0.00091);
    const std::vector<float> ones(a.size(), 1.0f);
    std::vector<float> y(a.size()), da(a.size()), db(a.size());
    opkit::cpu::vec::gelu_erf_mul(a.data(), ones.data(), y.data(), int64_t(a.size()));
    opkit::cpu::vec::gelu_erf_mul_backward(a.data(), ones.data(), ones.data(), da.data(), db.data(),
                                           int64_t(a.size()));
    double y_scale = 0.0, d_scale = 0.0;
    std::vector<double> ry(a.size()), rd(a.size());
    for (size_t i = 0; i < a.size(); ++i) {
        const double v = a[i], cdf = 0.5 * std::erfc(-v / std::sqrt(2.0));
        ry[i] = v * cdf;
        rd[i] = cdf + v * std::exp(-0.5 * v * v) / std::sqrt(2.0 * M_PI);
        y_scale = std::max(y_scale, std::fabs(ry[i]));
        d_scale = std::max(d_scale, std::fabs(rd[i]));
    }
    int bad = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        const bool y_ok = std::fabs(y[i] - ry[i]) <= 1.4e-6 * std::fabs(ry[i]) + 6e-8 * y_scale;
        const bool d_ok = std::fabs(da[i] - rd[i]) <= 3.5e-6 * std::fabs(rd[i]) + 1.2e-7 * d_scale;
        const bool db_ok = db[i] == y[i];  // db = g * gelu(a) with g = 1
        if (!(y_ok && d_ok && db_ok) && bad++ < 5)
            WARN("a = " << a[i] << ": y " << y[i] << " vs " << ry[i] << ", da " << da[i] << " vs " << rd[i]);
    }
    CHECK(bad == 0);
}

TEST_CASE("SiLU and the tanh GELU agree with double precision, NaN passes through") {
    const std::vector<float> a = sweep(-90.0, 90.0, 0.0031);
    const std::vector<float> ones(a.size(), 1.0f);
    std::vector<float> s(a.size()), t(a.size());
    opkit::cpu::vec::silu_mul(a.data(), ones.data(), s.data(), int64_t(a.size()));
    opkit::cpu::vec::gelu_tanh_mul(a.data(), ones.data(), t.data(), int64_t(a.size()));
    double s_scale = 0.0, t_scale = 0.0;
    for (float v : a) {
        s_scale = std::max(s_scale, std::fabs(double(v) / (1.0 + std::exp(-double(v)))));
        t_scale = std::max(t_scale, std::fabs(double(v)));
    }
    int bad = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        const double v = a[i];
        const double rs = v / (1.0 + std::exp(-v));
        const double rt = 0.5 * v * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (v + 0.044715 * v * v * v)));
        const bool ok = std::fabs(s[i] - rs) <= 7.1e-7 * std::fabs(rs) + 6e-8 * s_scale &&
                        std::fabs(t[i] - rt) <= 1.4e-6 * std::fabs(rt) + 6e-8 * t_scale;
        if (!ok && bad++ < 5) WARN("a = " << v << ": silu " << s[i] << " vs " << rs << ", gelu_tanh " << t[i] << " vs " << rt);
    }
    CHECK(bad == 0);
    const float nan = std::numeric_limits<float>::quiet_NaN(), one = 1.0f;
    float out = 0.0f;
    opkit::cpu::vec::silu_mul(&nan, &one, &out, 1);
    CHECK(std::isnan(out));
    opkit::cpu::vec::gelu_erf_mul(&nan, &one, &out, 1);
    CHECK(std::isnan(out));
}

TEST_CASE("outputs may alias inputs: results equal the out-of-place ones") {
    std::vector<float> a = sweep(-6.0, 6.0, 0.0117), b(a.size()), g(a.size());
    for (size_t i = 0; i < a.size(); ++i) {
        b[i] = 0.5f + 0.001f * float(i % 97);
        g[i] = -1.0f + 0.002f * float(i % 53);
    }
    std::vector<float> da(a.size()), db(a.size());
    opkit::cpu::vec::silu_mul_backward(a.data(), b.data(), g.data(), da.data(), db.data(), int64_t(a.size()));
    std::vector<float> a2 = a, b2 = b;
    opkit::cpu::vec::silu_mul_backward(a2.data(), b2.data(), g.data(), a2.data(), b2.data(), int64_t(a.size()));
    CHECK(a2 == da);
    CHECK(b2 == db);
    std::vector<float> x = a, grad(a.size());
    opkit::cpu::vec::softmax_minus(x.data(), 0.5f, 0.01f, 2.0f, 7, 1.5f, grad.data(), int64_t(x.size()));
    opkit::cpu::vec::softmax_minus(x.data(), 0.5f, 0.01f, 2.0f, 7, 1.5f, x.data(), int64_t(x.size()));
    CHECK(x == grad);
}

TEST_CASE("bf16 gated loops equal widening, the f32 loop and rounding; outputs may alias") {
    const int64_t n = 1000;  // not a multiple of the block
    std::vector<uint16_t> a(n), b(n), g(n);
    std::vector<float> af(n), bf(n), gf(n);
    for (int64_t i = 0; i < n; ++i) {
        a[i] = opkit::cpu::f32_to_bf16(-6.0f + 0.0123f * float(i));
        b[i] = opkit::cpu::f32_to_bf16(0.5f + 0.001f * float(i % 97));
        g[i] = opkit::cpu::f32_to_bf16(-1.0f + 0.002f * float(i % 53));
        af[i] = opkit::cpu::bf16_to_f32(a[i]);
        bf[i] = opkit::cpu::bf16_to_f32(b[i]);
        gf[i] = opkit::cpu::bf16_to_f32(g[i]);
    }
    using Fwd = void (*)(const float*, const float*, float*, int64_t);
    using FwdB = void (*)(const uint16_t*, const uint16_t*, uint16_t*, int64_t);
    using Bwd = void (*)(const float*, const float*, const float*, float*, float*, int64_t);
    using BwdB = void (*)(const uint16_t*, const uint16_t*, const uint16_t*, uint16_t*, uint16_t*, int64_t);
    namespace v = opkit::cpu::vec;
    const Fwd fwd[] = {v::silu_mul, v::gelu_erf_mul, v::gelu_tanh_mul};
    const FwdB fwd_b[] = {v::silu_mul_bf16, v::gelu_erf_mul_bf16, v::gelu_tanh_mul_bf16};
    const Bwd bwd[] = {v::silu_mul_backward, v::gelu_erf_mul_backward, v::gelu_tanh_mul_backward};
    const BwdB bwd_b[] = {v::silu_mul_backward_bf16, v::gelu_erf_mul_backward_bf16, v::gelu_tanh_mul_backward_bf16};
    for (int act = 0; act < 3; ++act) {
        INFO("activation " << act);
        std::vector<float> yf(n), daf(n), dbf(n);
        fwd[act](af.data(), bf.data(), yf.data(), n);
        bwd[act](af.data(), bf.data(), gf.data(), daf.data(), dbf.data(), n);
        std::vector<uint16_t> y(n), da = a, db = b;
        fwd_b[act](a.data(), b.data(), y.data(), n);
        bwd_b[act](da.data(), db.data(), g.data(), da.data(), db.data(), n);  // da over a, db over b
        int bad = 0;
        for (int64_t i = 0; i < n; ++i)
            bad += y[i] != opkit::cpu::f32_to_bf16(yf[i]) || da[i] != opkit::cpu::f32_to_bf16(daf[i]) ||
                   db[i] != opkit::cpu::f32_to_bf16(dbf[i]);
        CHECK(bad == 0);
    }
}
