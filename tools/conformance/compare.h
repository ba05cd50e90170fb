// Vendor result versus CPU-default result for one output tensor, with the tolerance of
// (op, output, dtype) from the one table (core/tolerances.def, docs/tolerances.md).
#pragma once

#include "twin_names.h"

#include <string>
#include <vector>

namespace conformance {

struct Verdict {
    int64_t mismatches = 0;       // view elements outside tolerance (or NaN/Inf disagreeing)
    int64_t bytes_outside = 0;    // bytes outside the view that the vendor changed
    double worst = 0.0;           // max |vendor - reference| / allowed error: < 1 passes
    double scaled_err = 0.0;      // max |vendor - reference| / S (see tolerances.def)
    double rel_err = 0.0;         // max |vendor - reference| / |reference| (|reference| >= S/8)
    double needed_atol = 0.0;     // the least atol that would pass with the table's rtol
    bool no_tolerance = false;    // the table has no row for (op, output, dtype)
    std::string first_problem;    // a sentence about the first mismatch, "" when none
    bool ok() const { return mismatches == 0 && bytes_outside == 0 && !no_tolerance; }
};

// Every view element must satisfy |v - r| <= rtol*|r| + atol*max(max|r|, scale_floor),
// the (rtol, atol) of (op, output, the tensor's dtype), NaN matching NaN and infinities
// matching exactly; every byte outside the view (row padding, the gap before a
// misaligned start) must be unchanged. scale_floor serves results that cancel to ~0 from
// O(1) inputs, where max|r| is itself rounding noise. `output` may carry a note after
// the parameter name ("y (in place)").
Verdict compare(const std::string& op, const std::string& output, const TwinTensor& t,
                const std::vector<uint8_t>& vendor, const std::vector<uint8_t>& reference, double scale_floor);

}  // namespace conformance
