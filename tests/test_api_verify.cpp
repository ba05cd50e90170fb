// OPKIT_VERIFY (DESIGN §4 [2]): a vendor-served call runs again on the CPU defaults and
// the first mismatch per (op, vendor, dtype) is logged at ERROR, naming the op, vendor,
// dtype, shapes and the worst element; the caller keeps the vendor's output. Through the
// public API with the fake vendors of tests/fake_vendor: a wrong one, correct ones, and a
// pretend accelerator (device memory, in place).
#include "host_tensor.h"
#include "opkit.h"
#include "own_directory.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <random>
#include <string>
#include <vector>

namespace {

const std::string kFakes = opkit_test::fake_vendor_dir();

struct Log {
    std::mutex m;
    std::vector<std::pair<int32_t, std::string>> records;
    std::vector<std::string> at(int32_t level) {
        std::lock_guard<std::mutex> lock(m);
        std::vector<std::string> out;
        for (auto& r : records)
            if (r.first == level) out.push_back(r.second);
        return out;
    }
};

void capture(int32_t level, const char* message, void* user) {
    Log* log = static_cast<Log*>(user);
    std::lock_guard<std::mutex> lock(log->m);
    log->records.emplace_back(level, message);
}

// opkit_init with OPKIT_VERIFY=`verify` in the environment (it is read at init only) and
// the log going to `log`.
void init_verifying(const char* verify, const std::string& vendor_dir, Log* log) {
    opkit_shutdown();
    if (verify)
        setenv("OPKIT_VERIFY", verify, 1);
    else
        unsetenv("OPKIT_VERIFY");
    opkit_set_log_callback(capture, log);
    opkit_set_log_level(OPKIT_LOG_WARN);  // for what initialization itself logs
    opkit_init_options o;
    std::memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.vendor_path = vendor_dir.c_str();
    o.host_fallback = 0;
    o.log_level = OPKIT_LOG_WARN;
    const opkit_status s = opkit_init(&o);
    unsetenv("OPKIT_VERIFY");
    INFO(opkit_last_error_message());
    REQUIRE(s == OPKIT_OK);
}

void done() {
    opkit_shutdown();
    opkit_set_log_callback(nullptr, nullptr);
}

bool contains(const std::string& s, const char* what) { return s.find(what) != std::string::npos; }

std::string served_by() {
    opkit_dispatch_info info{};
    info.struct_size = sizeof info;
    return opkit_last_dispatch(&info) == OPKIT_OK ? info.served_by : "?";
}

}  // namespace

TEST_CASE("OPKIT_VERIFY=1: a wrong vendor's result is logged at ERROR - the caller keeps it") {
    Log log;
    init_verifying("1", kFakes + "/wrong", &log);
    std::mt19937 rng(11);
    test::HostTensor x(test::DT::f32, {3, 7}), y(test::DT::f32, {3, 7});
    x.fill_random(rng);
    y.poison();
    REQUIRE(opkit_softmax_forward(x.ct(), y.t(), nullptr) == OPKIT_OK);
    REQUIRE(served_by() == "wrong");

    // The caller's output is the vendor's (it forgets to normalize): exp(x - max).
    const std::vector<double> xv = x.values(), yv = y.values();
    for (int64_t r = 0; r < 3; ++r) {
        double m = -1e300;
        for (int64_t j = 0; j < 7; ++j) m = std::max(m, xv[size_t(r * 7 + j)]);
        for (int64_t j = 0; j < 7; ++j)
            CHECK(yv[size_t(r * 7 + j)] == Approx(std::exp(xv[size_t(r * 7 + j)] - m)).epsilon(1e-6));
    }

    const std::vector<std::string> errors = log.at(OPKIT_LOG_ERROR);
    REQUIRE(errors.size() == 1);
    const std::string& e = errors[0];
    INFO(e);
    CHECK(contains(e, "OPKIT_VERIFY"));
    CHECK(contains(e, "softmax_forward"));
    CHECK(contains(e, "vendor 'wrong'"));
    CHECK(contains(e, "f32"));
    CHECK(contains(e, "[3,7]"));
    CHECK(contains(e, "worst element"));
    CHECK(contains(e, "vendor "));
    CHECK(contains(e, "CPU "));

    // Logged once per (op, vendor, dtype): a second wrong call adds no record.
    REQUIRE(opkit_softmax_forward(x.ct(), y.t(), nullptr) == OPKIT_OK);
    CHECK(log.at(OPKIT_LOG_ERROR).size() == 1);
    done();
}

TEST_CASE("OPKIT_VERIFY=1: correct vendors produce no record") {
    for (const char* dir : {"subset", "partial"}) {
        Log log;
        init_verifying("1", kFakes + "/" + dir, &log);
        std::mt19937 rng(5);
        for (int64_t n : {8, 127, 4097}) {
            test::HostTensor x(test::DT::f32, {3, n}), y(test::DT::f32, {3, n});
            x.fill_random(rng, -4, 4);
            REQUIRE(opkit_softmax_forward(x.ct(), y.t(), nullptr) == OPKIT_OK);
            // in place, and axpy (inout): the host copies must be taken before the vendor runs
            REQUIRE(opkit_softmax_forward(x.ct(), x.t(), nullptr) == OPKIT_OK);
            CHECK(served_by() == dir);
            test::HostTensor a(test::DT::f32, {3, n}), b(test::DT::f32, {3, n});
            a.fill_random(rng);
            b.fill_random(rng);
            REQUIRE(opkit_axpy(0.5f, a.ct(), b.t(), nullptr) == OPKIT_OK);
            CHECK(served_by() == dir);
        }
        INFO(dir);
        CHECK(log.at(OPKIT_LOG_ERROR).empty());
        CHECK(log.at(OPKIT_LOG_WARN).empty());
        done();
    }
}

TEST_CASE("OPKIT_VERIFY=1 on a device: host copies through the vendor's memory functions, in place") {
    Log log;
    init_verifying("1", kFakes + "/accel", &log);
    const opkit_device accel{16, 0}, cpu{OPKIT_DEVICE_CPU, 0};
    std::mt19937 rng(9);
    test::HostTensor x(test::DT::f32, {4, 33});
    x.fill_random(rng, -3, 3);
    const size_t bytes = 4 * 33 * 4;
    void* d = nullptr;
    REQUIRE(opkit_malloc(accel, bytes, &d) == OPKIT_OK);
    REQUIRE(opkit_memcpy(d, accel, x.ct()->data, cpu, bytes, nullptr) == OPKIT_OK);
    opkit_tensor t = *x.ct();
    t.data = d;
    t.device = accel;
    // In place: had the input been copied after the vendor ran, the CPU would compute the
    // softmax of a softmax, and the comparison would fail.
    REQUIRE(opkit_softmax_forward(&t, &t, nullptr) == OPKIT_OK);
    CHECK(served_by() == "accel");
    CHECK(log.at(OPKIT_LOG_ERROR).empty());
    opkit_free(accel, d);
    done();
}

TEST_CASE("OPKIT_VERIFY: off, a share, and a malformed value") {
    std::mt19937 rng(2);
    test::HostTensor x(test::DT::f32, {2, 9}), y(test::DT::f32, {2, 9});
    x.fill_random(rng);
    {
        Log log;  // off: a wrong vendor goes unnoticed
        init_verifying("0", kFakes + "/wrong", &log);
        REQUIRE(opkit_softmax_forward(x.ct(), y.t(), nullptr) == OPKIT_OK);
        CHECK(log.at(OPKIT_LOG_ERROR).empty());
        done();
    }
    {
        Log log;  // a share: the first call is among the verified ones
        init_verifying("0.01", kFakes + "/wrong", &log);
        REQUIRE(opkit_softmax_forward(x.ct(), y.t(), nullptr) == OPKIT_OK);
        CHECK(log.at(OPKIT_LOG_ERROR).size() == 1);
        done();
    }
    {
        Log log;
        init_verifying("often", kFakes + "/wrong", &log);
        bool warned = false;
        for (const std::string& w : log.at(OPKIT_LOG_WARN)) warned = warned || contains(w, "OPKIT_VERIFY");
        CHECK(warned);
        REQUIRE(opkit_softmax_forward(x.ct(), y.t(), nullptr) == OPKIT_OK);
        CHECK(log.at(OPKIT_LOG_ERROR).empty());
        done();
    }
}
