// A first look at bandwidth, not a benchmark suite (that is opkit-bench): hidden ([.]),
// run explicitly with `opkit_cuda_tests "[bench]"`. Each op runs 3 times to warm up, then
// 20 times between two device synchronizations; GB/s counts each input read once and
// each output written once.
#include "cuda_test_support.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>
#include <functional>

using namespace cudatest;

namespace {

double time_ms(const std::function<opkit_status()>& op) {
    for (int i = 0; i < 3; ++i) REQUIRE(op() == OPKIT_OK);
    REQUIRE(opkit_synchronize(kGpu, nullptr) == OPKIT_OK);
    const auto t0 = std::chrono::steady_clock::now();
    const int reps = 20;
    for (int i = 0; i < reps; ++i) REQUIRE(op() == OPKIT_OK);
    REQUIRE(opkit_synchronize(kGpu, nullptr) == OPKIT_OK);
    const auto t1 = std::chrono::steady_clock::now();
    return std::chrono::duration<double, std::milli>(t1 - t0).count() / reps;
}

void report(const char* what, double ms, double bytes) {
    std::printf("BENCH %-40s %9.3f ms %8.0f GB/s\n", what, ms, bytes / ms / 1e6);
    std::fflush(stdout);
}

// Device-only tensor (no host reference needed), filled with random values.
struct Dev {
    Tensor t;
    Dev(opkit_dtype d, std::vector<int64_t> s, float lo = -1, float hi = 1) : t(d, std::move(s)) {
        t.random(lo, hi, 42);
        t.upload();
    }
    opkit_tensor* g() { return t.gpu(); }
};

}  // namespace

TEST_CASE("bench: first bandwidth numbers", "[.][bench]") {
    if (!cuda_or_skip()) return;
    {
        const size_t bytes = size_t(1) << 30;
        void *a = nullptr, *b = nullptr;
        REQUIRE(opkit_malloc(kGpu, bytes, &a) == OPKIT_OK);
        REQUIRE(opkit_malloc(kGpu, bytes, &b) == OPKIT_OK);
        report("memcpy d2d 1 GiB", time_ms([&] { return opkit_memcpy(b, kGpu, a, kGpu, bytes, nullptr); }), 2.0 * bytes);
        opkit_free(kGpu, a);
        opkit_free(kGpu, b);
    }
    const opkit_dtype d = bf16();
    for (int64_t N : {int64_t(4096), int64_t(32768)}) {
        const int64_t M = (int64_t(1) << 26) / N;  // 2^26 elements = 128 MiB of bf16
        const double e = double(M) * double(N) * 2;
        char name[64];
        Dev x(d, {M, N}), y(d, {M, N}), dy(d, {M, N}), dx(d, {M, N}), w(d, {N}), dw(d, {N});
        Dev rstd(f32(), {M}, 0.5f, 1.5f);
        std::snprintf(name, sizeof name, "rms_norm fwd bf16 %lldx%lld", (long long)M, (long long)N);
        report(name, time_ms([&] { return opkit_rms_norm_forward(x.g(), w.g(), 1e-6f, 0.0f, y.g(), rstd.g(), nullptr); }), 2 * e);
        std::snprintf(name, sizeof name, "rms_norm bwd bf16 %lldx%lld", (long long)M, (long long)N);
        report(name, time_ms([&] {
                   return opkit_rms_norm_backward(dy.g(), x.g(), w.g(), rstd.g(), 0.0f, dx.g(), dw.g(), nullptr);
               }), 3 * e);
        std::snprintf(name, sizeof name, "softmax fwd bf16 %lldx%lld", (long long)M, (long long)N);
        report(name, time_ms([&] { return opkit_softmax_forward(x.g(), y.g(), nullptr); }), 2 * e);
        std::snprintf(name, sizeof name, "softmax bwd bf16 %lldx%lld", (long long)M, (long long)N);
        report(name, time_ms([&] { return opkit_softmax_backward(dy.g(), y.g(), dx.g(), nullptr); }), 3 * e);
        std::snprintf(name, sizeof name, "swiglu fwd bf16 %lldx%lld", (long long)M, (long long)N);
        report(name, time_ms([&] { return opkit_swiglu_forward(x.g(), dy.g(), y.g(), nullptr); }), 3 * e);
        std::snprintf(name, sizeof name, "axpy bf16 %lldx%lld", (long long)M, (long long)N);
        report(name, time_ms([&] { return opkit_axpy(0.5f, x.g(), y.g(), nullptr); }), 3 * e);
        Tensor target(i64(), {M});
        target.random_ints(0, N - 1, 3);
        target.upload();
        Dev loss(f32(), {});
        std::snprintf(name, sizeof name, "cross_entropy fwd+grad bf16 %lldx%lld", (long long)M, (long long)N);
        report(name, time_ms([&] {
                   return opkit_cross_entropy_forward(x.g(), target.gpu(), -100, 0.0f, OPKIT_REDUCTION_MEAN, loss.g(),
                                                      nullptr, dx.g(), nullptr);
               }), 2 * e);
    }
    {
        const int64_t M = 8192, N = 8192, K = 8192;
        Dev a(d, {M, K}), b(d, {K, N}), c(d, {M, N});
        const double ms = time_ms([&] { return opkit_matmul(a.g(), b.g(), c.g(), 1.0f, 0.0f, 0, 0, nullptr); });
        std::printf("BENCH %-40s %9.3f ms %8.1f TFLOP/s\n", "matmul bf16 8192^3", ms, 2.0 * M * N * K / ms / 1e9);
    }
}
