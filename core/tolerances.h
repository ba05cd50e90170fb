// The tolerance table (tolerances.def) and the one comparison rule every checker uses:
// libopkit's OPKIT_VERIFY, the C++ tests, opkit-conformance (and pytest, which parses the
// same .def file and implements the same rule in python/tests/tolerances.py).
// Header-only and dependent on opkit.h alone, so tools and tests outside libopkit can
// include it. docs/tolerances.md justifies the values.
#pragma once

#include "opkit.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace opkit::tolerance {

struct Entry {
    const char* op;      // "layer_norm_backward"
    const char* output;  // the spec's parameter name: "dx"
    const char* dtype;   // the output tensor's dtype: "f32", "f16" or "bf16"
    double rtol, atol;
};

inline constexpr Entry kTable[] = {
#define OPKIT_TOLERANCE(op, output, dtype, rtol, atol) {#op, #output, #dtype, rtol, atol},
#include "tolerances.def"
#undef OPKIT_TOLERANCE
};

// "f32", "f16", "bf16"; nullptr for any other dtype.
inline const char* dtype_key(opkit_dtype d) {
    if (d.lanes != 1) return nullptr;
    if (d.code == OPKIT_DTYPE_FLOAT) return d.bits == 32 ? "f32" : d.bits == 16 ? "f16" : nullptr;
    if (d.code == OPKIT_DTYPE_BFLOAT && d.bits == 16) return "bf16";
    return nullptr;
}

// The entry for (op, output, dtype), or nullptr. `output` may carry a note after a blank
// ("y (in place)" is looked up as "y").
inline const Entry* find(const char* op, const char* output, const char* dtype) {
    if (!op || !output || !dtype) return nullptr;
    const size_t out_len = std::strcspn(output, " ");
    for (const Entry& e : kTable)
        if (std::strcmp(e.op, op) == 0 && std::strlen(e.output) == out_len &&
            std::strncmp(e.output, output, out_len) == 0 && std::strcmp(e.dtype, dtype) == 0)
            return &e;
    return nullptr;
}
inline const Entry* find(const char* op, const char* output, opkit_dtype d) {
    return find(op, output, dtype_key(d));
}

// The spacing of the dtype's smallest (subnormal) numbers: no rounding to the dtype can
// be closer than this, whatever the scale (f16: 2^-24, about 6e-8, which matters for
// softmax probabilities and gradients below f16's smallest normal 2^-14).
inline double subnormal_step(const char* dtype) {
    if (!dtype) return 0.0;
    if (std::strcmp(dtype, "f16") == 0) return 0x1p-24;
    if (std::strcmp(dtype, "bf16") == 0) return 0x1p-133;
    return 0x1p-149;
}

// The result of comparing one tensor's elements.
struct Result {
    int64_t elements = 0;
    int64_t mismatches = 0;    // elements outside tolerance (or NaN/Inf disagreeing)
    double scale = 0;          // S = max(max |ref|, floor)
    double worst_ratio = 0;    // max |got - ref| / allowed: < 1 passes (inf: NaN/Inf mismatch)
    int64_t worst_index = -1;  // the element with that ratio (row-major logical index)
    double worst_got = 0, worst_ref = 0, worst_allowed = 0;
    int64_t first_mismatch = -1;
    // What the errors were (docs/tolerances.md's measurements):
    double max_scaled_err = 0;  // max |got - ref| / S
    double max_rel_err = 0;     // max |got - ref| / |ref| over the large elements, |ref| >= S / 8
    double needed_atol = 0;     // max (|got - ref| - rtol |ref| - step) / S: the least atol
                                // that would pass with this rtol
    bool ok() const { return mismatches == 0; }
};

// Compares n elements: got(i) against ref(i), both as double, i in logical row-major
// order. The rule of tolerances.def: |got - ref| <= rtol |ref| + atol S + step, step =
// subnormal_step(the output's dtype).
template <class Got, class Ref>
Result compare(double rtol, double atol, double step, int64_t n, Got&& got, Ref&& ref, double floor = 0.0) {
    Result r;
    r.elements = n;
    double max_ref = floor;
    for (int64_t i = 0; i < n; ++i) {
        const double v = ref(i);
        if (std::isfinite(v)) max_ref = std::max(max_ref, std::fabs(v));
    }
    r.scale = max_ref;
    const double s = std::max(max_ref, 1e-300);
    for (int64_t i = 0; i < n; ++i) {
        const double g = got(i), v = ref(i);
        double ratio, allowed = 0;
        if (std::isnan(v) || std::isnan(g)) {
            ratio = std::isnan(v) && std::isnan(g) ? 0.0 : std::numeric_limits<double>::infinity();
        } else if (std::isinf(v) || std::isinf(g)) {
            ratio = v == g ? 0.0 : std::numeric_limits<double>::infinity();
        } else {
            const double err = std::fabs(g - v);
            allowed = rtol * std::fabs(v) + atol * s + step;
            ratio = err == 0 ? 0.0 : allowed > 0 ? err / allowed : std::numeric_limits<double>::infinity();
            r.max_scaled_err = std::max(r.max_scaled_err, err / s);
            r.needed_atol = std::max(r.needed_atol, (err - rtol * std::fabs(v) - step) / s);
            if (std::fabs(v) >= s / 8) r.max_rel_err = std::max(r.max_rel_err, err / std::fabs(v));
        }
        if (ratio > 1.0) {
            ++r.mismatches;
            if (r.first_mismatch < 0) r.first_mismatch = i;
        }
        if (ratio > r.worst_ratio || r.worst_index < 0) {
            r.worst_ratio = std::max(r.worst_ratio, ratio);
            r.worst_index = i;
            r.worst_got = g;
            r.worst_ref = v;
            r.worst_allowed = allowed;
        }
    }
    return r;
}

template <class Got, class Ref>
Result compare(const Entry& e, int64_t n, Got&& got, Ref&& ref, double floor = 0.0) {
    return compare(e.rtol, e.atol, subnormal_step(e.dtype), n, got, ref, floor);
}

}  // namespace opkit::tolerance
