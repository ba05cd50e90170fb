// vendors/common/guarded_call.h, the exception guard every vendor export runs in: an
// exception of any kind becomes a status and one recorded sentence, the record is cleared
// before each call, and a status the body returns passes through untouched. (In the unit
// binary because it is internal code, header-only; the vendors' own suites exercise it
// through their exports.)
#include "../vendors/common/guarded_call.h"

#include <catch2/catch.hpp>

#include <cstdarg>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace {

// A vendor's error record, as each vendor keeps one (thread-local there; one thread here).
std::string g_recorded;
int g_clears = 0;

opkit_status record(opkit_status status, const char* fmt, ...) {
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    g_recorded = buf;
    return status;
}

void clear() {
    g_recorded.clear();
    ++g_clears;
}

template <class F>
opkit_status run(F&& f) {
    return opkit_vendor_common::guarded_call("opkit_vendor_test_op", clear, record, std::forward<F>(f));
}

}  // namespace

TEST_CASE("guarded_call: a status from the body passes through and the record is cleared first",
          "[guards]") {
    g_recorded = "a message from an earlier call";
    const int clears = g_clears;
    CHECK(run([] { return OPKIT_OK; }) == OPKIT_OK);
    CHECK(g_clears == clears + 1);
    CHECK(g_recorded.empty());
    CHECK(run([] { return record(OPKIT_ERROR_UNSUPPORTED, "declined: %s", "why"); }) == OPKIT_ERROR_UNSUPPORTED);
    CHECK(g_recorded == "declined: why");
}

TEST_CASE("guarded_call: exceptions become statuses with the export's name", "[guards]") {
    CHECK(run([]() -> opkit_status { throw std::bad_alloc(); }) == OPKIT_ERROR_OUT_OF_MEMORY);
    CHECK(g_recorded == "opkit_vendor_test_op: out of host memory");

    CHECK(run([]() -> opkit_status { throw std::runtime_error("the driver said no"); }) == OPKIT_ERROR_INTERNAL);
    CHECK(g_recorded == "opkit_vendor_test_op: the driver said no");

    CHECK(run([]() -> opkit_status { throw 42; }) == OPKIT_ERROR_INTERNAL);
    CHECK(g_recorded == "opkit_vendor_test_op: unknown exception");
}

TEST_CASE("guarded_call: OPKIT_VENDOR_RETURN_IF_ERROR returns the first failure", "[guards]") {
    int reached = 0;
    const auto body = [&]() -> opkit_status {
        OPKIT_VENDOR_RETURN_IF_ERROR(OPKIT_OK);
        ++reached;
        OPKIT_VENDOR_RETURN_IF_ERROR(OPKIT_ERROR_INVALID_ARGUMENT);
        ++reached;
        return OPKIT_OK;
    };
    CHECK(run(body) == OPKIT_ERROR_INVALID_ARGUMENT);
    CHECK(reached == 1);
}
