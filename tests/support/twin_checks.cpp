#include "twin_checks.h"

#include "tolerance_check.h"

#include <algorithm>
#include <cmath>

namespace test {

using opkit_twin::TwinTensor;

namespace {

// Bytes outside the view must be unchanged; reports the first few.
int bytes_outside_changed(const TwinTensor& t, const std::vector<uint8_t>& got, const std::string& what) {
    const std::vector<uint8_t>& ref = t.host_storage();
    const size_t es = t.element_size();
    std::vector<uint8_t> in_view(ref.size(), 0);
    for (int64_t i = 0; i < t.numel(); ++i) std::fill_n(in_view.begin() + t.offset_of(i) * int64_t(es), es, uint8_t(1));
    int bad = 0;
    for (size_t b = 0; b < ref.size(); ++b)
        if (!in_view[b] && got[b] != ref[b]) {
            if (bad < 3)
                FAIL_CHECK(what << ": byte " << b << " outside the view changed (" << int(ref[b]) << " -> "
                                << int(got[b]) << ")");
            ++bad;
        }
    return bad;
}

}  // namespace

std::vector<uint8_t> download(const TwinTensor& t) {
    std::vector<uint8_t> got;
    REQUIRE_OK(t.download(&got));
    return got;
}

bool same(const TwinTensor& t, const char* op, const char* output, const std::string& what, double scale_floor) {
    const std::vector<uint8_t> got = download(t);
    const int bad = bytes_outside_changed(t, got, what);
    std::vector<double> g(size_t(t.numel())), r(size_t(t.numel()));
    for (int64_t i = 0; i < t.numel(); ++i) {
        g[size_t(i)] = t.value_in(got, i);
        r[size_t(i)] = t.host_value(i);
    }
    const ToleranceCheck c = check_tolerance(op, output, opkit_twin::dtype_name(t.dtype()), g, r, scale_floor);
    if (!c.ok) FAIL_CHECK(what << " " << opkit_twin::shape_str(t.shape()) << ": " << c.detail);
    return c.ok && bad == 0;
}

bool same_columns(const TwinTensor& t, int64_t begin, int64_t count, const char* op, const char* output,
                  const std::string& what) {
    const std::vector<uint8_t> got = download(t);
    const int64_t cols = t.shape().back();
    std::vector<double> g, r;
    for (int64_t i = 0; i < t.numel(); ++i) {
        const int64_t col = i % cols;
        if (col < begin || col >= begin + count) continue;
        g.push_back(t.value_in(got, i));
        r.push_back(t.host_value(i));
    }
    const ToleranceCheck c = check_tolerance(op, output, opkit_twin::dtype_name(t.dtype()), g, r);
    if (!c.ok) FAIL_CHECK(what << " " << opkit_twin::shape_str(t.shape()) << ": " << c.detail);
    return c.ok;
}

bool identical(const TwinTensor& t, const std::string& what) {
    const std::vector<uint8_t> got = download(t);
    const int bad = bytes_outside_changed(t, got, what);
    int64_t mismatches = 0;
    for (int64_t i = 0; i < t.numel(); ++i) {
        const double r = t.host_value(i), g = t.value_in(got, i);
        if (std::isnan(r) && std::isnan(g)) continue;
        if (r != g) {
            if (mismatches < 5) FAIL_CHECK(what << ": element " << i << " is " << g << ", the CPU reference is " << r);
            ++mismatches;
        }
    }
    return mismatches == 0 && bad == 0;
}

bool untouched(const TwinTensor& t, const std::string& what) {
    const bool same_bytes = download(t) == t.host_storage();
    if (!same_bytes) FAIL_CHECK(what << ": the device copy changed although the call failed");
    return same_bytes;
}

}  // namespace test
