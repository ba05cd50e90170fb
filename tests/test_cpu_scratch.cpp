// The row kernels' per-thread scratch rows (core/cpu/rows.cpp): each slot its own row of
// at least the floats asked for, kept while it is long enough, separate per thread, and a
// request past what can be allocated throws std::bad_alloc (which an op's entry point
// turns into OPKIT_ERROR_OUT_OF_MEMORY) and leaves the slot's row as it was.
#include "cpu/rows.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <new>
#include <thread>

using opkit::cpu::scratch;

TEST_CASE("scratch rows: one row a slot, long enough, reused while it fits", "[scratch]") {
    float* a = scratch(0, 100);
    float* b = scratch(1, 100);
    REQUIRE(a != nullptr);
    REQUIRE(b != nullptr);
    CHECK(a != b);
    for (int i = 0; i < 100; ++i) {  // every float of both rows is writable (ASan would see otherwise)
        a[i] = float(i);
        b[i] = -float(i);
    }
    CHECK(scratch(0, 50) == a);  // shorter: the same row, its floats kept
    CHECK(a[99] == 99.0f);
    CHECK(b[99] == -99.0f);

    float* big = scratch(0, 100000);  // longer: a row of at least that many floats
    REQUIRE(big != nullptr);
    big[0] = 1.0f;
    big[99999] = 2.0f;
    CHECK(scratch(0, 100000) == big);
    CHECK(scratch(1, 100) == b);  // the other slot untouched
    CHECK(b[42] == -42.0f);
    CHECK(scratch(4, 10) == big);  // slots wrap at four, as before
}

TEST_CASE("scratch rows: a request too large throws bad_alloc and keeps the row", "[scratch]") {
    float* a = scratch(2, 64);
    REQUIRE(a != nullptr);
    a[0] = 7.0f;
    CHECK_THROWS_AS(scratch(2, INT64_MAX / 2), std::bad_alloc);
    CHECK(scratch(2, 64) == a);
    CHECK(a[0] == 7.0f);
}

TEST_CASE("scratch rows: each thread has its own", "[scratch]") {
    float* mine = scratch(3, 256);
    float* theirs = nullptr;
    std::thread t([&] {
        theirs = scratch(3, 256);
        theirs[255] = 3.0f;  // written before the thread exits and frees it
    });
    t.join();
    CHECK(theirs != nullptr);
    CHECK(theirs != mine);
}
