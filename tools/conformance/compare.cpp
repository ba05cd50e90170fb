#include "compare.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace conformance {

double rtol_for(opkit_dtype d) {
    if (d.code == OPKIT_DTYPE_BFLOAT) return 2e-2;
    return d.bits == 16 ? 4e-3 : 1e-4;
}

double atol_for(opkit_dtype d) {
    if (d.code == OPKIT_DTYPE_BFLOAT) return 1e-2;
    return d.bits == 16 ? 2e-3 : 2e-5;
}

Verdict compare(const TwinTensor& t, const std::vector<uint8_t>& vendor, const std::vector<uint8_t>& reference,
                double scale_floor) {
    Verdict v;
    const size_t es = t.element_size();
    const int64_t n = t.numel();
    const double rtol = rtol_for(t.dtype()), atol = atol_for(t.dtype());

    std::vector<uint8_t> in_view(reference.size(), 0);
    double max_ref = scale_floor;
    for (int64_t i = 0; i < n; ++i) {
        std::fill_n(in_view.begin() + t.offset_of(i) * int64_t(es), es, uint8_t(1));
        const double r = t.value_in(reference, i);
        if (std::isfinite(r)) max_ref = std::max(max_ref, std::fabs(r));
    }
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
    for (int64_t i = 0; i < n; ++i) {
        const double r = t.value_in(reference, i), g = t.value_in(vendor, i);
        bool ok;
        if (std::isnan(r) || std::isnan(g)) {
            ok = std::isnan(r) && std::isnan(g);
        } else if (std::isinf(r) || std::isinf(g)) {
            ok = r == g;
        } else {
            const double allowed = rtol * std::fabs(r) + atol * std::max(max_ref, 1e-30);
            const double err = std::fabs(g - r);
            v.worst = std::max(v.worst, err / allowed);
            ok = err <= allowed;
        }
        if (!ok) {
            if (v.first_problem.empty()) {
                std::ostringstream o;
                o << "element " << i << " is " << g << ", the CPU defaults give " << r << " (max |ref| " << max_ref
                  << ")";
                v.first_problem = o.str();
            }
            ++v.mismatches;
        }
    }
    return v;
}

}  // namespace conformance
