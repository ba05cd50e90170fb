// No exception leaves the API even when initialization itself throws (as an allocation
// failure inside it would): the internal fault-injection flag makes the next
// initialization throw. Linked statically against libopkit's objects to reach the flag.
#include "opkit.h"
#include "runtime.h"

#include <catch2/catch.hpp>

#include <cstring>

namespace {

void inject_init_failure() {
    opkit_shutdown();
    opkit::testing::throw_in_next_init = true;
}

bool message_mentions_the_fault() {
    return std::strstr(opkit_last_error_message(), "fault injected") != nullptr;
}

}  // namespace

TEST_CASE("counting functions report 0 when initialization throws", "[guards]") {
    inject_init_failure();
    int32_t n = -1;
    CHECK_NOTHROW(n = opkit_vendor_count());
    CHECK(n == 0);
    CHECK(message_mentions_the_fault());

    inject_init_failure();
    CHECK_NOTHROW(n = opkit_device_count(OPKIT_DEVICE_CPU));
    CHECK(n == 0);
    CHECK(message_mentions_the_fault());

    // The failure is not sticky: the next call initializes.
    CHECK(opkit_device_count(OPKIT_DEVICE_CPU) == 1);
    opkit_shutdown();
}

TEST_CASE("status-returning functions report an error when initialization throws", "[guards]") {
    float x[4] = {1, 2, 3, 4}, y[4] = {0, 0, 0, 0};
    int64_t shape[1] = {4};
    opkit_tensor tx{x, {OPKIT_DEVICE_CPU, 0}, 1, {OPKIT_DTYPE_FLOAT, 32, 1}, shape, nullptr, 0};
    opkit_tensor ty = tx;
    ty.data = y;

    inject_init_failure();
    opkit_status s = OPKIT_OK;
    CHECK_NOTHROW(s = opkit_softmax_forward(&tx, &ty, nullptr));
    CHECK(s == OPKIT_ERROR_INTERNAL);
    CHECK(message_mentions_the_fault());
    CHECK(y[0] == 0.0f);  // nothing written

    inject_init_failure();
    opkit_vendor_info info{};
    info.struct_size = sizeof info;
    CHECK_NOTHROW(s = opkit_vendor_get_info(0, &info));
    CHECK(s != OPKIT_OK);

    inject_init_failure();
    const char* who = nullptr;
    CHECK_NOTHROW(s = opkit_op_resolve("softmax_forward", OPKIT_DEVICE_CPU, &who));
    CHECK(s != OPKIT_OK);

    inject_init_failure();
    CHECK_NOTHROW(s = opkit_init(nullptr));
    CHECK(s == OPKIT_ERROR_INTERNAL);
    CHECK(message_mentions_the_fault());

    CHECK(opkit_softmax_forward(&tx, &ty, nullptr) == OPKIT_OK);  // and it recovers
    opkit_shutdown();
}
