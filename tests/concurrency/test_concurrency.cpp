// Concurrency through the public API (DESIGN §4: any function from any thread at any time;
// init is race-free; opkit_shutdown must not race with calls in flight). Run by ctest as
// ordinary tests, and under ThreadSanitizer by scripts/ci-tsan.sh, where every data race
// is a failure. Each case starts from opkit_shutdown() (no call is in flight then), so the
// cases also hold when the whole binary runs in one process, as under TSan.
#include "opkit.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr opkit_dtype kF32{OPKIT_DTYPE_FLOAT, 32, 1};
constexpr opkit_device kCpu{OPKIT_DEVICE_CPU, 0};
constexpr int32_t kAccel = 16;  // the fake accelerator's device type (tests/fake_vendor)

// A contiguous f32 tensor owning its data.
struct F32 {
    std::vector<float> v;
    std::vector<int64_t> shape;
    opkit_tensor t{};
    F32(std::vector<int64_t> s, float seed, opkit_device dev = kCpu) : shape(std::move(s)) {
        size_t n = 1;
        for (int64_t d : shape) n *= size_t(d);
        v.resize(n);
        for (size_t i = 0; i < n; ++i) v[i] = std::sin(0.731f * float(i) + seed);
        t = opkit_tensor{v.data(), dev, int32_t(shape.size()), kF32, shape.data(), nullptr, 0};
    }
};

// softmax of `rows` x `n` checked against a scalar double computation.
bool softmax_ok(int64_t rows, int64_t n, float seed, opkit_device dev = kCpu) {
    F32 x({rows, n}, seed, dev), y({rows, n}, 0.0f, dev);
    if (opkit_softmax_forward(&x.t, &y.t, nullptr) != OPKIT_OK) return false;
    for (int64_t r = 0; r < rows; ++r) {
        const float* xr = &x.v[size_t(r * n)];
        double mx = -1e30, sum = 0;
        for (int64_t i = 0; i < n; ++i) mx = std::max(mx, double(xr[i]));
        for (int64_t i = 0; i < n; ++i) sum += std::exp(double(xr[i]) - mx);
        for (int64_t i = 0; i < n; ++i)
            if (std::fabs(double(y.v[size_t(r * n + i)]) - std::exp(double(xr[i]) - mx) / sum) > 1e-5) return false;
    }
    return true;
}

// rms_norm with weight and rstd, checked the same way.
bool rms_norm_ok(int64_t rows, int64_t n, float seed, opkit_device dev = kCpu) {
    F32 x({rows, n}, seed, dev), w({n}, seed + 1.0f, dev), y({rows, n}, 0.0f, dev), rstd({rows}, 0.0f, dev);
    if (opkit_rms_norm_forward(&x.t, &w.t, 1e-6f, 0.0f, &y.t, &rstd.t, nullptr) != OPKIT_OK) return false;
    for (int64_t r = 0; r < rows; ++r) {
        double ss = 0;
        for (int64_t i = 0; i < n; ++i) ss += double(x.v[size_t(r * n + i)]) * x.v[size_t(r * n + i)];
        const double inv = 1.0 / std::sqrt(ss / double(n) + 1e-6);
        if (std::fabs(rstd.v[size_t(r)] - inv) > 1e-4 * inv) return false;
        for (int64_t i = 0; i < n; ++i) {
            const double want = double(x.v[size_t(r * n + i)]) * inv * w.v[size_t(i)];
            if (std::fabs(double(y.v[size_t(r * n + i)]) - want) > 1e-4 * (1.0 + std::fabs(want))) return false;
        }
    }
    return true;
}

// y += alpha * x.
bool axpy_ok(int64_t n, float seed, opkit_device dev = kCpu) {
    F32 x({n}, seed, dev), y({n}, seed + 2.0f, dev);
    const std::vector<float> y0 = y.v;
    if (opkit_axpy(0.5f, &x.t, &y.t, nullptr) != OPKIT_OK) return false;
    for (int64_t i = 0; i < n; ++i)
        if (std::fabs(y.v[size_t(i)] - (y0[size_t(i)] + 0.5f * x.v[size_t(i)])) > 1e-6f) return false;
    return true;
}

// A call that must fail, and the calling thread's own message saying why: the shape in it
// is this thread's, so a message leaking between threads is caught.
bool own_error_message(int tag) {
    F32 x({3, 7 + tag}, 0.0f), y({3, 8 + tag}, 0.0f);
    if (opkit_softmax_forward(&x.t, &y.t, nullptr) != OPKIT_ERROR_INVALID_ARGUMENT) return false;
    const std::string m = opkit_last_error_message();
    return m.find("[3, " + std::to_string(7 + tag) + "]") != std::string::npos &&
           m.find("[3, " + std::to_string(8 + tag) + "]") != std::string::npos;
}

opkit_init_options options(const char* vendor_path, int32_t log_level = OPKIT_LOG_OFF, int32_t fallback = 0) {
    opkit_init_options o;
    std::memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.vendor_path = vendor_path;
    o.host_fallback = fallback;
    o.log_level = log_level;
    return o;
}

const std::string kDecliner = std::string(FAKE_VENDOR_ROOT) + "/decliner";
const std::string kAccelDir = std::string(FAKE_VENDOR_ROOT) + "/accel";

// Runs body(thread index) on `n` threads released together.
template <class F>
void run_threads(int n, F body) {
    std::atomic<int> ready{0};
    std::atomic<bool> go{false};
    std::vector<std::thread> threads;
    for (int t = 0; t < n; ++t)
        threads.emplace_back([&, t] {
            ++ready;
            while (!go.load()) std::this_thread::yield();
            body(t);
        });
    while (ready.load() < n) std::this_thread::yield();
    go = true;
    for (auto& th : threads) th.join();
}

struct Counter {
    std::atomic<int> n{0};
};
void count_record(int32_t, const char* message, void* user) {
    if (message && *message) ++static_cast<Counter*>(user)->n;
}

}  // namespace

TEST_CASE("16 threads race the implicit initialization, then run ops concurrently") {
    opkit_shutdown();  // the next call initializes again, implicitly
    std::atomic<int> failures{0};
    run_threads(16, [&](int t) {
        // Each thread's first call is a different API function: all of them initialize.
        switch (t % 4) {
        case 0: failures += !softmax_ok(3, 33 + t, float(t)); break;
        case 1: failures += !rms_norm_ok(2, 17 + t, float(t)); break;
        case 2: failures += !axpy_ok(100 + t, float(t)); break;
        default: {
            const char* who = nullptr;
            failures += opkit_vendor_count() < 0;
            failures += opkit_op_resolve("rms_norm_forward", OPKIT_DEVICE_CPU, &who) != OPKIT_OK;
            failures += !who || std::string(who) != "default";
        }
        }
        for (int i = 0; i < 20; ++i) {
            failures += !softmax_ok(1 + (t + i) % 5, 1 + (t * 37 + i * 11) % 300, float(t + i));
            failures += !rms_norm_ok(1 + i % 3, 1 + (t * 13 + i * 7) % 200, float(i));
            failures += !axpy_ok(1 + (t * 101 + i * 29) % 5000, float(t));
            failures += !own_error_message(t);
        }
        // Large enough to use the CPU thread pool from several callers at once.
        failures += !rms_norm_ok(64, 2048, float(t));
        failures += !softmax_ok(64, 2048, float(t));
    });
    CHECK(failures.load() == 0);
}

TEST_CASE("shutdown and init cycles with concurrent calls in between") {
    std::atomic<int> failures{0};
    setenv("OPKIT_NUM_THREADS", "4", 1);  // a pool bigger than this machine, torn down each cycle
    for (int round = 0; round < 12; ++round) {
        opkit_shutdown();  // no call is in flight here (the contract)
        // Workers that sleep as soon as a job ends, that spin longer than the gaps between
        // calls, and the default: each way of waking up meets the calls below.
        const char* spins[] = {"0", "5000", nullptr};
        if (spins[round % 3]) setenv("OPKIT_SPIN_US", spins[round % 3], 1);
        else unsetenv("OPKIT_SPIN_US");
        if (round % 3 == 0) {
            const opkit_init_options o = options(kDecliner.c_str());
            REQUIRE(opkit_init(&o) == OPKIT_OK);
        } else if (round % 3 == 1) {
            const opkit_init_options o = options(nullptr);
            REQUIRE(opkit_init(&o) == OPKIT_OK);
        }  // else: implicit initialization by the first call of a thread below
        run_threads(8, [&](int t) {
            for (int i = 0; i < 6; ++i) {
                // (the decliner misbehaves on purpose for rows of 14 and 16: not those)
                failures += !softmax_ok(2, 17 + (t + i + round) % 40, float(t * i));
                failures += !axpy_ok(64 + t, float(round));
                failures += !own_error_message(t + round);
            }
            failures += !rms_norm_ok(64, 1024, float(t));
            // Initializing again while initialized is refused, from any thread.
            const opkit_init_options o = options(nullptr);
            failures += opkit_init(&o) != OPKIT_ERROR_INVALID_ARGUMENT;
        });
    }
    unsetenv("OPKIT_NUM_THREADS");
    unsetenv("OPKIT_SPIN_US");
    opkit_shutdown();
    opkit_shutdown();  // twice is harmless
    CHECK(failures.load() == 0);
}

TEST_CASE("log level and callback changes while calls log from other threads") {
    opkit_shutdown();
    // The decliner vendor declines softmax rows of odd length; each decline is logged at
    // DEBUG before the CPU default serves the call, so calls log while the level and the
    // callback change under them.
    Counter a, b;
    opkit_set_log_callback(count_record, &a);
    const opkit_init_options o = options(kDecliner.c_str(), OPKIT_LOG_DEBUG);
    REQUIRE(opkit_init(&o) == OPKIT_OK);
    const char* who = nullptr;
    REQUIRE(opkit_op_resolve("softmax_forward", OPKIT_DEVICE_CPU, &who) == OPKIT_OK);
    REQUIRE(std::string(who) == "decliner");
    std::atomic<int> failures{0};
    std::atomic<bool> done{false};
    std::thread changer([&] {
        const int32_t levels[] = {OPKIT_LOG_TRACE, OPKIT_LOG_DEBUG, OPKIT_LOG_WARN, OPKIT_LOG_OFF, OPKIT_LOG_DEBUG};
        for (int i = 0; !done.load(); ++i) {
            opkit_set_log_level(levels[i % 5]);
            opkit_set_log_callback(count_record, i % 2 ? &a : &b);
            std::this_thread::yield();
        }
    });
    run_threads(8, [&](int t) {
        for (int i = 0; i < 40; ++i) {
            failures += !softmax_ok(2, 3 + 2 * ((t + i) % 20), float(i));  // odd: declined
            failures += !softmax_ok(2, 18 + 2 * ((t + i) % 20), float(i));  // even: the vendor
                                                                            // (not 14 or 16:
                                                                            // see fake_vendor.cpp)
        }
    });
    done = true;
    changer.join();
    opkit_set_log_level(OPKIT_LOG_DEBUG);
    opkit_set_log_callback(count_record, &a);
    const int before = a.n.load();
    CHECK(softmax_ok(1, 5, 0.0f));  // declined once more: logged to a
    CHECK(a.n.load() > before);
    CHECK(a.n.load() + b.n.load() > 0);
    opkit_set_log_callback(nullptr, nullptr);
    opkit_set_log_level(OPKIT_LOG_WARN);
    opkit_shutdown();
    CHECK(failures.load() == 0);
}

TEST_CASE("vendor and op introspection from many threads while ops run") {
    opkit_shutdown();
    const std::string path = kDecliner + ":" + kAccelDir;
    const opkit_init_options o = options(path.c_str());
    REQUIRE(opkit_init(&o) == OPKIT_OK);
    // The two fakes, plus whatever the build installed next to libopkit (the cuda vendor,
    // READY on a GPU machine, NO_DEVICE elsewhere): only the fakes' states are known.
    const int32_t vendors = opkit_vendor_count();
    REQUIRE(vendors >= 2);
    auto is_fake = [](const opkit_vendor_info& info) {
        return info.name && (std::strcmp(info.name, "decliner") == 0 || std::strcmp(info.name, "accel") == 0);
    };
    std::atomic<int> failures{0};
    run_threads(12, [&](int t) {
        for (int i = 0; i < 50; ++i) {
            failures += opkit_vendor_count() != vendors;
            opkit_vendor_info info;
            std::memset(&info, 0, sizeof info);
            info.struct_size = sizeof info;
            for (int32_t v = 0; v < vendors; ++v) {
                failures += opkit_vendor_get_info(v, &info) != OPKIT_OK;
                failures += is_fake(info) && info.state != OPKIT_VENDOR_READY;
            }
            const int32_t op = (t + i) % opkit_op_count();
            const char* name = opkit_op_name(op);
            failures += name == nullptr || opkit_op_schema(op) == nullptr;
            const char* who = nullptr;
            failures += opkit_op_resolve(name, OPKIT_DEVICE_CPU, &who) != OPKIT_OK || who == nullptr;
            failures += opkit_device_count(OPKIT_DEVICE_CPU) != 1 || opkit_device_count(kAccel) != 1;
            failures += opkit_version() == 0 || opkit_status_string(OPKIT_ERROR_VENDOR) == nullptr;
            if (t % 3 == 0) failures += !axpy_ok(33, float(i));
            if (t % 3 == 1) failures += !own_error_message(t);
        }
    });
    opkit_shutdown();
    CHECK(failures.load() == 0);
}

TEST_CASE("host fallback and verification mode under concurrent calls") {
    opkit_shutdown();
    // The fake accelerator (device type 16, host memory) serves softmax itself; every
    // other op runs through host fallback. OPKIT_VERIFY=1 re-runs each vendor-served call
    // on the CPU and compares, which shares the verifier's state between threads.
    setenv("OPKIT_VERIFY", "1", 1);
    const opkit_init_options o = options(kAccelDir.c_str(), OPKIT_LOG_OFF, 1);
    REQUIRE(opkit_init(&o) == OPKIT_OK);
    unsetenv("OPKIT_VERIFY");
    const opkit_device accel{kAccel, 0};
    std::atomic<int> failures{0};
    run_threads(8, [&](int t) {
        for (int i = 0; i < 15; ++i) {
            failures += !softmax_ok(3, 5 + (t + i) % 30, float(i), accel);   // the vendor, verified
            failures += !rms_norm_ok(3, 5 + (t + i) % 30, float(i), accel);  // host fallback
            failures += !axpy_ok(40 + t, float(i), accel);                   // host fallback
        }
    });
    opkit_shutdown();
    CHECK(failures.load() == 0);
}
