// Dispatch overhead: a resolved CPU op through the public API (validation, table lookup,
// indirect call) versus calling the same CPU default kernel directly. The difference is
// what opkit adds per call; the target is under 30 ns (DESIGN §9). Tiny tensors keep the
// kernel itself cheap so that the overhead is visible.
#include "cpu/kernels.h"
#include "opkit.h"

#include <benchmark/benchmark.h>

#include <vector>

namespace {

struct Row {
    std::vector<float> x, y;
    int64_t shape[2];
    opkit_tensor tx{}, ty{};
    explicit Row(int64_t n) : x(size_t(n)), y(size_t(n)) {
        for (int64_t i = 0; i < n; ++i) x[size_t(i)] = 0.5f + 0.01f * float(i);
        shape[0] = 1;
        shape[1] = n;
        tx = {x.data(), {OPKIT_DEVICE_CPU, 0}, 2, {OPKIT_DTYPE_FLOAT, 32, 1}, shape, nullptr, 0};
        ty = tx;
        ty.data = y.data();
    }
};

void BM_axpy_direct(benchmark::State& state) {
    Row r(state.range(0));
    for (auto _ : state) {
        benchmark::DoNotOptimize(opkit::cpu::axpy(opkit::args::axpy{0.5f, &r.tx, &r.ty, nullptr}));
        benchmark::ClobberMemory();
    }
}

void BM_axpy_api(benchmark::State& state) {
    Row r(state.range(0));
    for (auto _ : state) {
        benchmark::DoNotOptimize(opkit_axpy(0.5f, &r.tx, &r.ty, nullptr));
        benchmark::ClobberMemory();
    }
}

void BM_softmax_direct(benchmark::State& state) {
    Row r(state.range(0));
    for (auto _ : state) {
        benchmark::DoNotOptimize(opkit::cpu::softmax_forward(opkit::args::softmax_forward{&r.tx, &r.ty, nullptr}));
        benchmark::ClobberMemory();
    }
}

void BM_softmax_api(benchmark::State& state) {
    Row r(state.range(0));
    for (auto _ : state) {
        benchmark::DoNotOptimize(opkit_softmax_forward(&r.tx, &r.ty, nullptr));
        benchmark::ClobberMemory();
    }
}

void BM_rms_norm_direct(benchmark::State& state) {
    Row r(state.range(0));
    for (auto _ : state) {
        benchmark::DoNotOptimize(opkit::cpu::rms_norm_forward(opkit::args::rms_norm_forward{&r.tx, nullptr, 1e-6f, 0.f, &r.ty, nullptr, nullptr}));
        benchmark::ClobberMemory();
    }
}

void BM_rms_norm_api(benchmark::State& state) {
    Row r(state.range(0));
    for (auto _ : state) {
        benchmark::DoNotOptimize(opkit_rms_norm_forward(&r.tx, nullptr, 1e-6f, 0.f, &r.ty, nullptr, nullptr));
        benchmark::ClobberMemory();
    }
}

}  // namespace

BENCHMARK(BM_axpy_direct)->Arg(16);
BENCHMARK(BM_axpy_api)->Arg(16);
BENCHMARK(BM_softmax_direct)->Arg(16);
BENCHMARK(BM_softmax_api)->Arg(16);
BENCHMARK(BM_rms_norm_direct)->Arg(16);
BENCHMARK(BM_rms_norm_api)->Arg(16);

int main(int argc, char** argv) {
    opkit_init(nullptr);  // resolve once, outside the timed loops
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    opkit_shutdown();
    return 0;
}
