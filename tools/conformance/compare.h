// Vendor result versus CPU-default result for one output tensor.
#pragma once

#include "twin_tensor.h"

#include <string>
#include <vector>

namespace conformance {

// Per-dtype tolerances for results computed in fp32 and rounded to the dtype: about two
// units in the last place of f16/bf16, and a reduction-order allowance for f32.
double rtol_for(opkit_dtype d);
double atol_for(opkit_dtype d);

struct Verdict {
    int64_t mismatches = 0;       // view elements outside tolerance (or NaN/Inf disagreeing)
    int64_t bytes_outside = 0;    // bytes outside the view that the vendor changed
    double worst = 0.0;           // max |vendor - reference| / allowed error: < 1 passes
    std::string first_problem;    // a sentence about the first mismatch, "" when none
    bool ok() const { return mismatches == 0 && bytes_outside == 0; }
};

// Every view element must satisfy |v - r| <= rtol*|r| + atol*max(max|r|, scale_floor),
// NaN matching NaN and infinities matching exactly; every byte outside the view (row
// padding, the gap before a misaligned start) must be unchanged. scale_floor serves
// results that cancel to ~0 from O(1) inputs, where max|r| is itself rounding noise.
Verdict compare(const TwinTensor& t, const std::vector<uint8_t>& vendor, const std::vector<uint8_t>& reference,
                double scale_floor);

}  // namespace conformance
