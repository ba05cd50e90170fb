// Catch2 checks on twin tensors (tools/twin_tensor): a vendor's result in the device copy
// against the CPU defaults' in the host copy, after the same call on both. Shared by the
// vendors' test suites (tests/gpu, tests/ascend); opkit-conformance compares the same
// tensors without Catch2 (tools/conformance/compare.cpp).
#pragma once

#include "twin_tensor.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

// The call returned OPKIT_OK; otherwise the test case stops, showing the status and opkit's
// message.
#define REQUIRE_OK(call)                                                                        \
    do {                                                                                        \
        const opkit_status s_ = (call);                                                         \
        INFO(#call << " -> " << opkit_status_string(s_) << ": " << opkit_last_error_message()); \
        REQUIRE(s_ == OPKIT_OK);                                                                \
    } while (0)

namespace test {

// The device copy's storage, padding included (synchronizes the device first); a failed
// copy fails the test case.
std::vector<uint8_t> download(const opkit_twin::TwinTensor& t);

// Every view element of the device copy within the tolerance of (op, output, the tensor's
// dtype) of the one table (core/tolerances.def, docs/tolerances.md) from the host copy's:
// |got - ref| <= rtol |ref| + atol S + step, S = max(max|ref|, scale_floor), NaN matching
// NaN; every byte outside the view identical. scale_floor is for results that cancel to
// ~0 from O(1) inputs (rms_norm dx at N = 1, the loss at V = 1). Reports the first
// mismatches through Catch2 and the worst error to OPKIT_TOLERANCE_REPORT
// (tolerance_check.h); true when all match.
bool same(const opkit_twin::TwinTensor& t, const char* op, const char* output, const std::string& what,
          double scale_floor = 0.0);
// The same for the columns [begin, begin + count) of the last dimension only (one half of a
// buffer holding two outputs side by side); bytes outside the view are not checked.
bool same_columns(const opkit_twin::TwinTensor& t, int64_t begin, int64_t count, const char* op,
                  const char* output, const std::string& what);
// Bit for bit the same (NaN matching NaN), padding included.
bool identical(const opkit_twin::TwinTensor& t, const std::string& what);
// The device copy still holds what was uploaded (an output a failed call must not touch).
bool untouched(const opkit_twin::TwinTensor& t, const std::string& what);

}  // namespace test
