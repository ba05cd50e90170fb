// Dispatch overhead: a resolved CPU op through the public API (validation, table lookup,
// indirect call) versus calling the same CPU default kernel directly. The difference is
// what opkit adds per call; the target is under 30 ns (DESIGN §9). Tiny tensors keep the
// kernel itself cheap so that the overhead is visible.
//
// Two API columns: `_api` is the entry point linked into this program with the kernels
// (libopkit's objects, statically: its thread-locals are then the executable's own, a
// few instructions away), `_api_dlopen` the real libopkit.so.1 opened with dlopen as
// Python's ctypes or Rust's libloading open it, where every thread-local lookup is a
// __tls_get_addr call. The second is what such applications pay.
#include "cpu/kernels.h"
#include "opkit.h"

#include <benchmark/benchmark.h>
#include <dlfcn.h>

#include <cstdlib>
#include <string>
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

// $OPKIT_BENCH_LIBRARY names another libopkit.so.1 (a copy of the build carried elsewhere,
// an A/B against another build); by default the build tree's.
const char* shared_library_path() {
    const char* env = std::getenv("OPKIT_BENCH_LIBRARY");
    return env && *env ? env : OPKIT_BENCH_SHARED_LIBRARY;
}

// The dlopen'ed library's entry points (NULL where it does not open: the benchmarks then
// report an error instead of a time).
struct SharedLibrary {
    void* handle = dlopen(shared_library_path(), RTLD_NOW | RTLD_LOCAL);
    decltype(&opkit_axpy) axpy = handle ? (decltype(&opkit_axpy))dlsym(handle, "opkit_axpy") : nullptr;
    decltype(&opkit_softmax_forward) softmax =
        handle ? (decltype(&opkit_softmax_forward))dlsym(handle, "opkit_softmax_forward") : nullptr;
    decltype(&opkit_rms_norm_forward) rms_norm =
        handle ? (decltype(&opkit_rms_norm_forward))dlsym(handle, "opkit_rms_norm_forward") : nullptr;
};

const SharedLibrary& shared_library() {
    static const SharedLibrary lib;
    return lib;
}

// Runs one call through the dlopen'ed library per iteration; call(lib, row) makes it.
template <class Call>
void through_dlopen(benchmark::State& state, Call call) {
    const SharedLibrary& lib = shared_library();
    if (!lib.axpy || !lib.softmax || !lib.rms_norm) {
        state.SkipWithError((std::string("dlopen of ") + shared_library_path() + " failed").c_str());
        return;
    }
    Row r(state.range(0));
    if (call(lib, r) != OPKIT_OK) {  // the library's implicit init, outside the timed loop
        state.SkipWithError("the first call failed");
        return;
    }
    for (auto _ : state) {
        benchmark::DoNotOptimize(call(lib, r));
        benchmark::ClobberMemory();
    }
}

void BM_axpy_api_dlopen(benchmark::State& state) {
    through_dlopen(state, [](const SharedLibrary& l, Row& r) { return l.axpy(0.5f, &r.tx, &r.ty, nullptr); });
}

void BM_softmax_api_dlopen(benchmark::State& state) {
    through_dlopen(state, [](const SharedLibrary& l, Row& r) { return l.softmax(&r.tx, &r.ty, nullptr); });
}

void BM_rms_norm_api_dlopen(benchmark::State& state) {
    through_dlopen(state, [](const SharedLibrary& l, Row& r) {
        return l.rms_norm(&r.tx, nullptr, 1e-6f, 0.f, &r.ty, nullptr, nullptr);
    });
}

}  // namespace

BENCHMARK(BM_axpy_direct)->Arg(16);
BENCHMARK(BM_axpy_api)->Arg(16);
BENCHMARK(BM_axpy_api_dlopen)->Arg(16);
BENCHMARK(BM_softmax_direct)->Arg(16);
BENCHMARK(BM_softmax_api)->Arg(16);
BENCHMARK(BM_softmax_api_dlopen)->Arg(16);
BENCHMARK(BM_rms_norm_direct)->Arg(16);
BENCHMARK(BM_rms_norm_api)->Arg(16);
BENCHMARK(BM_rms_norm_api_dlopen)->Arg(16);

int main(int argc, char** argv) {
    opkit_init(nullptr);  // resolve once, outside the timed loops
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    opkit_shutdown();
    return 0;
}
