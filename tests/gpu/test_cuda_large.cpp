// Long rows (the streaming paths: N = 65536 and 262144) and a tensor of more than 2^31
// elements (64-bit indexing everywhere).
#include "cuda_test_support.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

using namespace cudatest;

namespace {
using TP = std::unique_ptr<Tensor>;
TP make(opkit_dtype d, std::vector<int64_t> shape, Layout l = {}) {
    return std::make_unique<Tensor>(d, std::move(shape), l);
}
opkit_tensor* on(bool gpu, const TP& t) { return t ? (gpu ? t->gpu() : t->cpu()) : nullptr; }
template <class F>
void both(F&& call) {
    REQUIRE_OK(call(false));
    REQUIRE_OK(call(true));
}
}  // namespace

TEST_CASE("large: rows of 65536 and 262144 elements", "[gpu][large]") {
    if (!cuda_or_skip()) return;
    uint64_t seed = 900;
    for (opkit_dtype d : {f32(), bf16()})
        for (int64_t n : {int64_t(65536), int64_t(262144)}) {
            const int64_t rows = 3;
            const std::string what = std::string(dtype_name(d)) + " N " + std::to_string(n);
            INFO(what);
            // Tolerances: the one table (core/tolerances.def, docs/tolerances.md).
            TP x = make(d, {rows, n}, {{}, 0, d.bits == 32 ? 1 : 0}),  // f32: misaligned
               y = make(d, {rows, n}), dy = make(d, {rows, n}),
               dx = make(d, {rows, n}), w = make(d, {n}), dw = make(d, {n}), b = make(d, {n}), db = make(d, {n});
            TP rstd = make(f32(), {rows}), mean = make(f32(), {rows});
            x->random(-2, 3, seed++);
            dy->random(-1, 1, seed++);
            w->random(-1, 1, seed++);
            b->random(-1, 1, seed++);
            for (TP* t : {&y, &dx, &dw, &db, &rstd, &mean}) (*t)->poison();
            for (TP* t : {&x, &y, &dy, &dx, &w, &dw, &b, &db, &rstd, &mean}) (*t)->upload();

            both([&](bool g) {
                return opkit_rms_norm_forward(on(g, x), on(g, w), 1e-6f, 0.0f, on(g, y), on(g, rstd), nullptr);
            });
            CHECK(same(*y, "rms_norm_forward", "y", what + " rms_norm y"));
            rstd->upload();
            both([&](bool g) {
                return opkit_rms_norm_backward(on(g, dy), on(g, x), on(g, w), on(g, rstd), 0.0f, on(g, dx), on(g, dw),
                                               nullptr);
            });
            CHECK(same(*dx, "rms_norm_backward", "dx", what + " rms_norm dx"));
            CHECK(same(*dw, "rms_norm_backward", "dweight", what + " rms_norm dweight"));

            both([&](bool g) {
                return opkit_layer_norm_forward(on(g, x), on(g, w), on(g, b), 1e-5f, on(g, y), on(g, mean),
                                                on(g, rstd), nullptr);
            });
            CHECK(same(*y, "layer_norm_forward", "y", what + " layer_norm y"));
            CHECK(same(*mean, "layer_norm_forward", "mean", what + " layer_norm mean", 1.0));
            mean->upload();
            rstd->upload();
            both([&](bool g) {
                return opkit_layer_norm_backward(on(g, dy), on(g, x), on(g, w), on(g, mean), on(g, rstd), on(g, dx),
                                                 on(g, dw), on(g, db), nullptr);
            });
            CHECK(same(*dx, "layer_norm_backward", "dx", what + " layer_norm dx"));
            CHECK(same(*dw, "layer_norm_backward", "dweight", what + " layer_norm dweight"));
            CHECK(same(*db, "layer_norm_backward", "dbias", what + " layer_norm dbias"));

            both([&](bool g) { return opkit_softmax_forward(on(g, x), on(g, y), nullptr); });
            CHECK(same(*y, "softmax_forward", "y", what + " softmax y"));
            y->upload();
            both([&](bool g) { return opkit_softmax_backward(on(g, dy), on(g, y), on(g, dx), nullptr); });
            CHECK(same(*dx, "softmax_backward", "dx", what + " softmax dx"));

            TP target = make(i64(), {rows}), loss = make(f32(), {}), lse = make(f32(), {rows});
            target->random_ints(0, n - 1, seed++);
            loss->poison();
            lse->poison();
            dx->poison();
            for (TP* t : {&target, &loss, &lse, &dx}) (*t)->upload();
            both([&](bool g) {
                return opkit_cross_entropy_forward(on(g, x), on(g, target), -100, 0.05f, OPKIT_REDUCTION_MEAN,
                                                   on(g, loss), on(g, lse), on(g, dx), nullptr);
            });
            CHECK(same(*loss, "cross_entropy_forward", "loss", what + " cross_entropy loss"));
            CHECK(same(*lse, "cross_entropy_forward", "lse", what + " cross_entropy lse"));
            CHECK(same(*dx, "cross_entropy_forward", "dlogits", what + " cross_entropy dlogits"));
            TP dloss = make(f32(), {});
            dloss->set(0, 1.5);
            dloss->upload();
            both([&](bool g) {
                return opkit_cross_entropy_backward(on(g, dloss), on(g, x), on(g, target), nullptr, -100, 0.05f,
                                                    OPKIT_REDUCTION_MEAN, on(g, dx), nullptr);
            });
            CHECK(same(*dx, "cross_entropy_backward", "dlogits", what + " cross_entropy backward"));
        }
}

// bf16 values whose sum the host can round exactly like the device (fp32 math, then
// round to nearest even).
namespace {
float pattern_x(int64_t i) { return float(i % 251) * 0.25f - 31.0f; }
float pattern_y(int64_t i) { return float(i % 127) * 0.5f - 30.0f; }
}  // namespace

TEST_CASE("large: more than 2^31 elements (axpy and softmax rows past 2^31)", "[gpu][large]") {
    if (!cuda_or_skip()) return;
    const int64_t n = (int64_t(1) << 31) + 4096 + 5;
    const size_t bytes = size_t(n) * 2;
    void *x = nullptr, *y = nullptr;
    if (opkit_malloc(kGpu, bytes, &x) != OPKIT_OK || opkit_malloc(kGpu, bytes, &y) != OPKIT_OK) {
        opkit_free(kGpu, x);
        skip_case("not enough device memory for two " + std::to_string(bytes) +
                  "-byte tensors: " + opkit_last_error_message());
        return;
    }
    std::vector<uint16_t> host(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) host[size_t(i)] = float_to_bf16(pattern_x(i));
    REQUIRE_OK(opkit_memcpy(x, kGpu, host.data(), kCpu, bytes, nullptr));
    for (int64_t i = 0; i < n; ++i) host[size_t(i)] = float_to_bf16(pattern_y(i));
    REQUIRE_OK(opkit_memcpy(y, kGpu, host.data(), kCpu, bytes, nullptr));

    int64_t shape[1] = {n};
    opkit_tensor tx{x, kGpu, 1, bf16(), shape, nullptr, 0}, ty{y, kGpu, 1, bf16(), shape, nullptr, 0};
    REQUIRE_OK(opkit_axpy(0.5f, &tx, &ty, nullptr));
    REQUIRE_OK(opkit_memcpy(host.data(), kCpu, y, kGpu, bytes, nullptr));
    int64_t wrong = 0, first_wrong = -1;
    for (int64_t i = 0; i < n; ++i) {
        const float expect = bf16_to_float(float_to_bf16(bf16_to_float(float_to_bf16(pattern_y(i))) +
                                                         0.5f * bf16_to_float(float_to_bf16(pattern_x(i)))));
        if (bf16_to_float(host[size_t(i)]) != expect) {
            if (first_wrong < 0) first_wrong = i;
            ++wrong;
        }
    }
    INFO("first wrong element " << first_wrong);
    CHECK(wrong == 0);

    // softmax over rows of 4096 in the same buffer viewed as [rows, 4096]: the last rows
    // start past element 2^31. Check the first and the last two rows against the host.
    const int64_t N = 4096, rows = n / N;
    int64_t shape2[2] = {rows, N};
    opkit_tensor t2{x, kGpu, 2, bf16(), shape2, nullptr, 0};
    REQUIRE_OK(opkit_softmax_forward(&t2, &t2, nullptr));
    for (int64_t r : {int64_t(0), rows - 2, rows - 1}) {
        std::vector<uint16_t> row(static_cast<size_t>(N));
        REQUIRE_OK(opkit_memcpy(row.data(), kCpu, static_cast<uint16_t*>(x) + r * N, kGpu, size_t(N) * 2, nullptr));
        double m = -1e30, s = 0;
        for (int64_t j = 0; j < N; ++j) m = std::max(m, double(bf16_to_float(float_to_bf16(pattern_x(r * N + j)))));
        for (int64_t j = 0; j < N; ++j) s += std::exp(double(bf16_to_float(float_to_bf16(pattern_x(r * N + j)))) - m);
        int64_t bad = 0;
        for (int64_t j = 0; j < N; ++j) {
            const double ref = std::exp(double(bf16_to_float(float_to_bf16(pattern_x(r * N + j)))) - m) / s;
            const double got = bf16_to_float(row[size_t(j)]);
            bad += std::fabs(got - ref) > 1e-2 * ref + 1e-6;
        }
        INFO("row " << r << " (starts at element " << r * N << ")");
        CHECK(bad == 0);
    }
    REQUIRE_OK(opkit_free(kGpu, x));
    REQUIRE_OK(opkit_free(kGpu, y));
}
