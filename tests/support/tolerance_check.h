// The tests' side of the one tolerance table (core/tolerances.def): compare a result with
// its float64 reference under the tolerance of (op, output, dtype), and record the worst
// error per (op, output, dtype) for docs/tolerances.md.
//
// OPKIT_TOLERANCE_REPORT=FILE appends, when the test process exits, one line per
// (op, output, dtype) it compared: "suite op output dtype compared worst_ratio
// max_err_over_S max_rel_err needed_atol" (tests/support/tolerance_report.py prints the
// table; core/tolerances.h defines the measures).
#pragma once

#include "host_tensor.h"

#include <string>
#include <vector>

namespace test {

struct ToleranceCheck {
    bool ok = false;
    std::string detail;  // the tolerance and the worst element, for INFO()
};

// got (any view) against want (float64, logical row-major) under the tolerance of
// (op, output, got's dtype); floor is S's lower bound (docs/tolerances.md). A missing
// table row fails. The result is recorded for the report.
ToleranceCheck check_tolerance(const char* op, const char* output, const HostTensor& got,
                               const std::vector<double>& want, double floor = 0.0);

// The same for values already in hand (dtype: "f32", "f16" or "bf16").
ToleranceCheck check_tolerance(const char* op, const char* output, const char* dtype,
                               const std::vector<double>& got, const std::vector<double>& want,
                               double floor = 0.0);

}  // namespace test
