// CPU defaults versus a plain scalar loop. For a few representative ops, times the
// opkit CPU default (through the public API, 1 thread and all threads) against the
// straightforward single-threaded loop a user would write (this file is compiled with
// -fno-tree-vectorize so the baseline stays scalar). Prints a table; median of N runs.
//
//   bench_cpu_vs_scalar [reps]
#include "opkit.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <thread>
#include <vector>

namespace {

double median_ms(const std::function<void()>& fn, int reps) {
    fn();  // warm-up: page faults, thread pool start
    std::vector<double> t;
    for (int i = 0; i < reps; ++i) {
        const auto a = std::chrono::steady_clock::now();
        fn();
        t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count());
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

opkit_tensor view(float* p, int64_t* shape, int32_t nd) {
    return opkit_tensor{p, {OPKIT_DEVICE_CPU, 0}, nd, {OPKIT_DTYPE_FLOAT, 32, 1}, shape, nullptr, 0};
}

void set_threads(int n) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%d", n);
    setenv("OPKIT_NUM_THREADS", buf, 1);
    opkit_shutdown();
    opkit_init(nullptr);
}

struct Row {
    const char* op;
    const char* shape;
    double scalar, one, all;
};

}  // namespace

int main(int argc, char** argv) {
    const int reps = argc > 1 ? std::atoi(argv[1]) : 11;
    const int hw = int(std::max(1u, std::thread::hardware_concurrency()));
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> u(-2.f, 2.f);
    auto random = [&](size_t n) {
        std::vector<float> v(n);
        for (float& x : v) x = u(rng);
        return v;
    };
    std::vector<Row> rows;

    // rms_norm forward 4096 x 4096
    {
        const int64_t R = 4096, N = 4096;
        auto x = random(size_t(R * N)), w = random(size_t(N)), y = x;
        int64_t s2[2] = {R, N}, s1[1] = {N};
        opkit_tensor tx = view(x.data(), s2, 2), tw = view(w.data(), s1, 1), ty = view(y.data(), s2, 2);
        Row r{"rms_norm_forward", "4096x4096", 0, 0, 0};
        r.scalar = median_ms([&] {
            for (int64_t i = 0; i < R; ++i) {
                const float* a = x.data() + i * N;
                float ss = 0;
                for (int64_t j = 0; j < N; ++j) ss += a[j] * a[j];
                const float inv = 1.0f / std::sqrt(ss / float(N) + 1e-6f);
                for (int64_t j = 0; j < N; ++j) y[size_t(i * N + j)] = a[j] * inv * w[size_t(j)];
            }
        }, reps);
        auto api = [&] { opkit_rms_norm_forward(&tx, &tw, 1e-6f, 0.f, &ty, nullptr, nullptr); };
        set_threads(1);
        r.one = median_ms(api, reps);
        set_threads(hw);
        r.all = median_ms(api, reps);
        rows.push_back(r);
    }
    // softmax forward 4096 x 4096
    {
        const int64_t R = 4096, N = 4096;
        auto x = random(size_t(R * N)), y = x;
        int64_t s2[2] = {R, N};
        opkit_tensor tx = view(x.data(), s2, 2), ty = view(y.data(), s2, 2);
        Row r{"softmax_forward", "4096x4096", 0, 0, 0};
        r.scalar = median_ms([&] {
            for (int64_t i = 0; i < R; ++i) {
                const float* a = x.data() + i * N;
                float* b = y.data() + i * N;
                float m = -INFINITY, s = 0;
                for (int64_t j = 0; j < N; ++j) m = std::max(m, a[j]);
                for (int64_t j = 0; j < N; ++j) s += (b[j] = std::exp(a[j] - m));
                for (int64_t j = 0; j < N; ++j) b[j] /= s;
            }
        }, reps);
        auto api = [&] { opkit_softmax_forward(&tx, &ty, nullptr); };
        set_threads(1);
        r.one = median_ms(api, reps);
        set_threads(hw);
        r.all = median_ms(api, reps);
        rows.push_back(r);
    }
    // swiglu forward 4096 x 4096
    {
        const int64_t R = 4096, N = 4096;
        auto a = random(size_t(R * N)), b = random(size_t(R * N)), y = a;
        int64_t s2[2] = {R, N};
        opkit_tensor ta = view(a.data(), s2, 2), tb = view(b.data(), s2, 2), ty = view(y.data(), s2, 2);
        Row r{"swiglu_forward", "4096x4096", 0, 0, 0};
        r.scalar = median_ms([&] {
            for (size_t i = 0; i < a.size(); ++i) y[i] = a[i] / (1.0f + std::exp(-a[i])) * b[i];
        }, reps);
        auto api = [&] { opkit_swiglu_forward(&ta, &tb, &ty, nullptr); };
        set_threads(1);
        r.one = median_ms(api, reps);
        set_threads(hw);
        r.all = median_ms(api, reps);
        rows.push_back(r);
    }
    // axpy 16M
    {
        const int64_t N = 1 << 24;
        auto x = random(size_t(N)), y = random(size_t(N));
        int64_t s2[2] = {4096, N / 4096};
        opkit_tensor tx = view(x.data(), s2, 2), ty = view(y.data(), s2, 2);
        Row r{"axpy", "16M", 0, 0, 0};
        r.scalar = median_ms([&] { for (int64_t i = 0; i < N; ++i) y[size_t(i)] += 0.5f * x[size_t(i)]; }, reps);
        auto api = [&] { opkit_axpy(0.5f, &tx, &ty, nullptr); };
        set_threads(1);
        r.one = median_ms(api, reps);
        set_threads(hw);
        r.all = median_ms(api, reps);
        rows.push_back(r);
    }
    // matmul 512^3
    {
        const int64_t M = 512, N = 512, K = 512;
        auto a = random(size_t(M * K)), b = random(size_t(K * N)), c = random(size_t(M * N));
        int64_t sa[2] = {M, K}, sb[2] = {K, N}, sc[2] = {M, N};
        opkit_tensor ta = view(a.data(), sa, 2), tb = view(b.data(), sb, 2), tc = view(c.data(), sc, 2);
        Row r{"matmul", "512^3", 0, 0, 0};
        r.scalar = median_ms([&] {
            for (int64_t i = 0; i < M; ++i)
                for (int64_t j = 0; j < N; ++j) {
                    float s = 0;
                    for (int64_t k = 0; k < K; ++k) s += a[size_t(i * K + k)] * b[size_t(k * N + j)];
                    c[size_t(i * N + j)] = s;
                }
        }, std::max(3, reps / 3));
        auto api = [&] { opkit_matmul(&ta, &tb, &tc, 1.f, 0.f, 0, 0, nullptr); };
        set_threads(1);
        r.one = median_ms(api, reps);
        set_threads(hw);
        r.all = median_ms(api, reps);
        rows.push_back(r);
        std::printf("# matmul 512^3: scalar %.2f GFLOP/s, opkit 1 thread %.2f GFLOP/s, %d threads %.2f GFLOP/s\n",
                    2e-6 * double(M * N * K) / r.scalar, 2e-6 * double(M * N * K) / r.one, hw,
                    2e-6 * double(M * N * K) / r.all);
    }

    std::printf("| op | shape | scalar loop (ms) | opkit 1 thread (ms) | speed-up | opkit %d threads (ms) | speed-up |\n", hw);
    std::printf("|---|---|---|---|---|---|---|\n");
    for (const Row& r : rows)
        std::printf("| %s | %s | %.2f | %.2f | %.1fx | %.2f | %.1fx |\n", r.op, r.shape, r.scalar, r.one,
                    r.scalar / r.one, r.all, r.scalar / r.all);
    opkit_shutdown();
    return 0;
}
