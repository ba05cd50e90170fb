// Runtime behaviour through the public API: versions, status strings, logging,
// explicit init with options, shutdown and re-init, and 16 threads racing the first call.
#include "opkit.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Captured {
    std::mutex m;
    std::vector<std::pair<int32_t, std::string>> records;
};

void capture(int32_t level, const char* message, void* user) {
    auto* c = static_cast<Captured*>(user);
    std::lock_guard<std::mutex> lock(c->m);
    c->records.emplace_back(level, message);
}

opkit_init_options default_options() {
    opkit_init_options o;
    std::memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.host_fallback = -1;
    o.log_level = -1;
    return o;
}

// Softmax of one row through the API, checked against a scalar computation.
bool softmax_row_ok(int n, float shift) {
    std::vector<float> x(static_cast<size_t>(n)), y(static_cast<size_t>(n), -1.0f);
    for (int i = 0; i < n; ++i) x[size_t(i)] = std::sin(0.37f * float(i) + shift);
    int64_t shape[1] = {n};
    opkit_tensor tx{x.data(), {OPKIT_DEVICE_CPU, 0}, 1, {OPKIT_DTYPE_FLOAT, 32, 1}, shape, nullptr, 0};
    opkit_tensor ty = tx;
    ty.data = y.data();
    if (opkit_softmax_forward(&tx, &ty, nullptr) != OPKIT_OK) return false;
    double mx = -1e30, sum = 0;
    for (float v : x) mx = std::max(mx, double(v));
    for (float v : x) sum += std::exp(double(v) - mx);
    for (int i = 0; i < n; ++i)
        if (std::fabs(double(y[size_t(i)]) - std::exp(double(x[size_t(i)]) - mx) / sum) > 1e-6) return false;
    return true;
}

}  // namespace

TEST_CASE("version macros match the run-time version") {
    CHECK(opkit_version() == ((uint32_t(OPKIT_VERSION_MAJOR) << 16) |
                              (uint32_t(OPKIT_VERSION_MINOR) << 8) | uint32_t(OPKIT_VERSION_PATCH)));
    CHECK(opkit_version() == OPKIT_VERSION_NUMBER);
}

TEST_CASE("status values are pinned and named") {
    CHECK(OPKIT_OK == 0);
    CHECK(OPKIT_ERROR_INVALID_ARGUMENT == 1);
    CHECK(OPKIT_ERROR_UNSUPPORTED == 2);
    CHECK(OPKIT_ERROR_OUT_OF_MEMORY == 3);
    CHECK(OPKIT_ERROR_DEVICE == 4);
    CHECK(OPKIT_ERROR_VENDOR == 5);
    CHECK(OPKIT_ERROR_NOT_FOUND == 6);
    CHECK(OPKIT_ERROR_INTERNAL == 7);
    CHECK(OPKIT_LOG_TRACE == 0);
    CHECK(OPKIT_LOG_OFF == 5);
    CHECK(OPKIT_REDUCTION_SUM == 2);
    CHECK(OPKIT_GELU_TANH == 1);
    CHECK(OPKIT_VENDOR_READY == 0);
    CHECK(OPKIT_VENDOR_DISABLED == 5);
    CHECK(std::string(opkit_status_string(OPKIT_ERROR_UNSUPPORTED)) == "OPKIT_ERROR_UNSUPPORTED");
    CHECK(std::string(opkit_status_string(12345)) == "OPKIT_ERROR_UNKNOWN_STATUS");
}

TEST_CASE("the op catalogue lists all 20 entry points and the CPU defaults serve them") {
    REQUIRE(opkit_op_count() == 20);
    std::vector<std::string> names;
    for (int32_t i = 0; i < opkit_op_count(); ++i) names.push_back(opkit_op_name(i));
    CHECK(names.front() == "rms_norm_forward");
    CHECK(std::find(names.begin(), names.end(), "cross_entropy_backward") != names.end());
    CHECK(names[17] == "axpy");  // ops added later come after it: indices never move
    CHECK(names.back() == "rope_qk_backward");
    for (const std::string& n : names) {
        const char* who = nullptr;
        REQUIRE(opkit_op_resolve(n.c_str(), OPKIT_DEVICE_CPU, &who) == OPKIT_OK);
        CHECK(std::string(who) == "default");
    }
    CHECK(opkit_device_count(OPKIT_DEVICE_CPU) == 1);
}

TEST_CASE("log callback receives warnings at the chosen level - and nothing when off") {
    opkit_shutdown();  // earlier cases in this process may have initialized implicitly
    Captured c;
    opkit_set_log_callback(capture, &c);
    opkit_set_log_level(OPKIT_LOG_WARN);
    opkit_init_options o = default_options();
    o.vendor_path = "relative/vendors";  // only absolute paths are searched: a warning
    o.log_level = OPKIT_LOG_WARN;
    REQUIRE(opkit_init(&o) == OPKIT_OK);
    {
        std::lock_guard<std::mutex> lock(c.m);
        bool found = false;
        for (auto& r : c.records)
            found = found || (r.first == OPKIT_LOG_WARN && r.second.find("relative/vendors") != std::string::npos);
        CHECK(found);
        c.records.clear();
    }
    opkit_shutdown();
    o.log_level = OPKIT_LOG_OFF;
    REQUIRE(opkit_init(&o) == OPKIT_OK);
    CHECK(c.records.empty());
    opkit_shutdown();
    opkit_set_log_callback(nullptr, nullptr);
}

TEST_CASE("init options are checked - and shutdown then init works again") {
    opkit_shutdown();  // earlier cases in this process may have initialized implicitly
    opkit_init_options o = default_options();
    o.struct_size = 8;
    CHECK(opkit_init(&o) == OPKIT_ERROR_INVALID_ARGUMENT);
    CHECK(std::string(opkit_last_error_message()).find("struct_size") != std::string::npos);
    o = default_options();
    o.host_fallback = 7;
    CHECK(opkit_init(&o) == OPKIT_ERROR_INVALID_ARGUMENT);
    o = default_options();
    for (int round = 0; round < 3; ++round) {
        REQUIRE(opkit_init(&o) == OPKIT_OK);
        CHECK(softmax_row_ok(33, float(round)));
        CHECK(opkit_init(&o) == OPKIT_ERROR_INVALID_ARGUMENT);
        opkit_shutdown();
    }
    opkit_shutdown();  // twice is harmless
    CHECK(softmax_row_ok(5, 0.5f));  // implicit init after shutdown
}

TEST_CASE("16 threads racing the first call - then calling ops concurrently") {
    // No call has happened yet in this process (each test case runs in its own).
    std::atomic<int> go{0}, failures{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 16; ++t) {
        threads.emplace_back([&, t] {
            while (go.load() == 0) {
            }
            for (int i = 0; i < 50; ++i)
                if (!softmax_row_ok(1 + (t * 37 + i * 11) % 700, float(t + i))) ++failures;
            opkit_vendor_info info;
            std::memset(&info, 0, sizeof info);
            info.struct_size = sizeof info;
            for (int32_t v = 0; v < opkit_vendor_count(); ++v)
                if (opkit_vendor_get_info(v, &info) != OPKIT_OK) ++failures;
        });
    }
    go = 1;
    for (auto& th : threads) th.join();
    CHECK(failures.load() == 0);
}

TEST_CASE("a log level and callback set before the first call survive its initialization", "[runtime][log]") {
    opkit_shutdown();
    Captured c;
    // ctest runs this binary with OPKIT_LOG_LEVEL=error: the application's own call wins
    // over the environment, which only sets the default.
    opkit_set_log_level(OPKIT_LOG_DEBUG);
    opkit_set_log_callback(capture, &c);
    CHECK(opkit_vendor_count() >= 0);  // the first call initializes implicitly
    bool saw_init = false;
    {
        std::lock_guard<std::mutex> lock(c.m);
        for (const auto& r : c.records)
            saw_init = saw_init || (r.first == OPKIT_LOG_DEBUG && r.second.find("initialized in") != std::string::npos);
    }
    CHECK(saw_init);

    // An explicit init option replaces the application's earlier level.
    opkit_shutdown();
    {
        std::lock_guard<std::mutex> lock(c.m);
        c.records.clear();
    }
    opkit_init_options o = default_options();
    o.log_level = OPKIT_LOG_ERROR;
    REQUIRE(opkit_init(&o) == OPKIT_OK);
    {
        std::lock_guard<std::mutex> lock(c.m);
        CHECK(c.records.empty());
    }
    opkit_set_log_callback(nullptr, nullptr);
    opkit_set_log_level(OPKIT_LOG_WARN);
    opkit_shutdown();
}
