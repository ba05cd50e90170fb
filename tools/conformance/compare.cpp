#include "compare.h"

#include "tolerances.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace conformance {

Verdict compare(const std::string& op, const std::string& output, const TwinTensor& t,
                const std::vector<uint8_t>& vendor, const std::vector<uint8_t>& reference, double scale_floor) {
    Verdict v;
    const opkit::tolerance::Entry* tol = opkit::tolerance::find(op.c_str(), output.c_str(), t.dtype());
    if (!tol) {
        v.no_tolerance = true;
        v.first_problem = "no tolerance for (" + op + ", " + output + ", " + dtype_name(t.dtype()) +
                          ") in core/tolerances.def";
        return v;
    }
    const size_t es = t.element_size();
    const int64_t n = t.numel();

    std::vector<uint8_t> in_view(reference.size(), 0);
    for (int64_t i = 0; i < n; ++i) std::fill_n(in_view.begin() + t.offset_of(i) * int64_t(es), es, uint8_t(1));
    for (size_t b = 0; b < reference.size(); ++b)
        if (!in_view[b] && vendor[b] != reference[b]) {
            if (v.first_problem.empty()) {
                std::ostringstream o;
                o << "byte " << b << " outside the view changed (" << int(reference[b]) << " -> " << int(vendor[b])
                  << ")";
                v.first_problem = o.str();
            }
            ++v.bytes_outside;
        }
    const opkit::tolerance::Result r = opkit::tolerance::compare(
        *tol, n, [&](int64_t i) { return t.value_in(vendor, i); }, [&](int64_t i) { return t.value_in(reference, i); },
        scale_floor);
    v.mismatches = r.mismatches;
    v.worst = r.worst_ratio;
    v.scaled_err = r.max_scaled_err;
    v.rel_err = r.max_rel_err;
    v.needed_atol = r.needed_atol;
    if (!r.ok() && v.first_problem.empty()) {
        std::ostringstream o;
        const int64_t i = r.worst_index;
        o << "worst element " << i << " is " << r.worst_got << ", the CPU defaults give " << r.worst_ref << " (|diff| "
          << std::fabs(r.worst_got - r.worst_ref) << ", allowed " << r.worst_allowed << " = rtol " << tol->rtol
          << " x |ref| + atol " << tol->atol << " x " << r.scale << ")";
        v.first_problem = o.str();
    }
    return v;
}

}  // namespace conformance
