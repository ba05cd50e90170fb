// opkit_last_dispatch() (1.1): who served this thread's last op call, how many candidates
// declined it and who declined first, through the public API, with the defaults and with
// the fake vendors of tests/fake_vendor (a decliner, a vendor that declines everything, a
// pretend accelerator with and without host fallback).
#include "host_tensor.h"
#include "opkit.h"
#include "own_directory.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <string>
#include <thread>

namespace {

const std::string kFakes = opkit_test::fake_vendor_dir();

void init_with(const std::string& vendor_path, int32_t host_fallback = 0) {
    opkit_shutdown();
    opkit_init_options o;
    std::memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.vendor_path = vendor_path.empty() ? nullptr : vendor_path.c_str();
    o.host_fallback = host_fallback;
    o.log_level = OPKIT_LOG_OFF;
    INFO(opkit_last_error_message());
    REQUIRE(opkit_init(&o) == OPKIT_OK);
}

struct Dispatch {
    opkit_status status = OPKIT_ERROR_INTERNAL;  // of opkit_last_dispatch itself
    opkit_dispatch_info info{};
    std::string op, served_by, first_declined_by;
};

Dispatch last() {
    Dispatch d;
    d.info.struct_size = sizeof d.info;
    d.status = opkit_last_dispatch(&d.info);
    if (d.status == OPKIT_OK) {
        d.op = d.info.op;
        d.served_by = d.info.served_by;
        d.first_declined_by = d.info.first_declined_by;
    }
    return d;
}

opkit_status softmax(int64_t rows, int64_t n, test::DT dt = test::DT::f32) {
    std::mt19937 rng(3);
    test::HostTensor x(dt, {rows, n}), y(dt, {rows, n});
    x.fill_random(rng);
    return opkit_softmax_forward(x.ct(), y.t(), nullptr);
}

}  // namespace

TEST_CASE("opkit_last_dispatch: the defaults serve a CPU op") {
    init_with("");
    CHECK(last().status == OPKIT_ERROR_NOT_FOUND);  // no op call since this init
    REQUIRE(softmax(2, 5) == OPKIT_OK);
    const Dispatch d = last();
    REQUIRE(d.status == OPKIT_OK);
    CHECK(d.op == "softmax_forward");
    CHECK(d.info.device_type == OPKIT_DEVICE_CPU);
    CHECK(d.info.status == OPKIT_OK);
    CHECK(d.served_by == "default");
    CHECK(d.info.declined == 0);
    CHECK(d.first_declined_by.empty());
    opkit_shutdown();
}

TEST_CASE("opkit_last_dispatch: a call that fails validation was served by nobody") {
    init_with("");
    test::HostTensor x(test::DT::f32, {2, 5}), y(test::DT::f32, {2, 6});
    REQUIRE(opkit_softmax_forward(x.ct(), y.t(), nullptr) == OPKIT_ERROR_INVALID_ARGUMENT);
    const std::string message = opkit_last_error_message();
    const Dispatch d = last();
    REQUIRE(d.status == OPKIT_OK);
    CHECK(d.op == "softmax_forward");
    CHECK(d.info.status == OPKIT_ERROR_INVALID_ARGUMENT);
    CHECK(d.served_by.empty());
    CHECK(d.info.declined == 0);
    CHECK(message == opkit_last_error_message());  // the op call's message survives the query
    opkit_shutdown();
}

TEST_CASE("opkit_last_dispatch: bad arguments and no initialization") {
    init_with("");
    CHECK(opkit_last_dispatch(nullptr) == OPKIT_ERROR_INVALID_ARGUMENT);
    opkit_dispatch_info small{};
    small.struct_size = 8;
    CHECK(opkit_last_dispatch(&small) == OPKIT_ERROR_INVALID_ARGUMENT);
    CHECK(std::string(opkit_last_error_message()).find("struct_size") != std::string::npos);
    REQUIRE(softmax(1, 3) == OPKIT_OK);
    CHECK(last().status == OPKIT_OK);
    opkit_shutdown();
    // After shutdown the record belongs to a runtime that is gone; the query never
    // initializes.
    CHECK(last().status == OPKIT_ERROR_NOT_FOUND);
}

TEST_CASE("opkit_last_dispatch: a vendor's decline is visible although the defaults served the call") {
    init_with(kFakes + "/decliner");
    REQUIRE(softmax(2, 8) == OPKIT_OK);  // even rows: the decliner serves
    Dispatch d = last();
    REQUIRE(d.status == OPKIT_OK);
    CHECK(d.served_by == "decliner");
    CHECK(d.info.declined == 0);
    REQUIRE(softmax(2, 7) == OPKIT_OK);  // odd rows: declined, the default serves
    d = last();
    REQUIRE(d.status == OPKIT_OK);
    CHECK(d.info.status == OPKIT_OK);
    CHECK(d.served_by == "default");
    CHECK(d.info.declined == 1);
    CHECK(d.first_declined_by == "decliner");
    opkit_shutdown();

    init_with(kFakes + "/decline_all");
    REQUIRE(softmax(3, 4) == OPKIT_OK);
    d = last();
    CHECK(d.served_by == "default");
    CHECK(d.info.declined == 1);
    CHECK(d.first_declined_by == "declineall");
    opkit_shutdown();
}

TEST_CASE("opkit_last_dispatch: a device op every candidate declined - and the host fallback") {
    const opkit_device accel{16, 0};
    for (int32_t fallback : {0, 1}) {
        init_with(kFakes + "/accel", fallback);
        void *dx = nullptr, *dy = nullptr;
        REQUIRE(opkit_malloc(accel, 64, &dx) == OPKIT_OK);
        REQUIRE(opkit_malloc(accel, 64, &dy) == OPKIT_OK);
        std::memset(dx, 0x3c, 64);  // f16 ones-ish: the accel vendor declines f16
        int64_t shape[2] = {4, 8};
        opkit_tensor x{dx, accel, 2, {OPKIT_DTYPE_FLOAT, 16, 1}, shape, nullptr, 0};
        opkit_tensor y = x;
        y.data = dy;
        const opkit_status s = opkit_softmax_forward(&x, &y, nullptr);
        const Dispatch d = last();
        REQUIRE(d.status == OPKIT_OK);
        CHECK(d.info.device_type == 16);
        CHECK(d.info.declined == 1);
        CHECK(d.first_declined_by == "accel");
        if (fallback) {
            CHECK(s == OPKIT_OK);
            CHECK(d.served_by == "host-fallback");
        } else {
            CHECK(s == OPKIT_ERROR_UNSUPPORTED);
            CHECK(d.info.status == OPKIT_ERROR_UNSUPPORTED);
            CHECK(d.served_by.empty());
        }
        opkit_free(accel, dx);
        opkit_free(accel, dy);
        opkit_shutdown();
    }
}

TEST_CASE("opkit_last_dispatch is per thread") {
    init_with(kFakes + "/decliner");
    REQUIRE(softmax(2, 7) == OPKIT_OK);  // this thread: declined, then the default
    std::string other_served;
    std::thread t([&] {
        if (last().status != OPKIT_ERROR_NOT_FOUND) return;  // nothing on that thread yet
        if (softmax(2, 8) != OPKIT_OK) return;
        other_served = last().served_by;
    });
    t.join();
    CHECK(other_served == "decliner");
    const Dispatch d = last();
    CHECK(d.served_by == "default");
    CHECK(d.first_declined_by == "decliner");
    opkit_shutdown();
}
