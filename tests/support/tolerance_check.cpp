#include "tolerance_check.h"

#include "../../core/tolerances.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <sstream>

namespace test {
namespace {

struct Worst {
    long compared = 0;
    double ratio = 0, scaled = 0, rel = 0, atol = 0;
};

// Aggregated per (op, output, dtype); written at exit when OPKIT_TOLERANCE_REPORT is set.
class Report {
public:
    void add(const std::string& key, const opkit::tolerance::Result& r) {
        std::lock_guard<std::mutex> lock(m_);
        Worst& w = rows_[key];
        ++w.compared;
        w.ratio = std::max(w.ratio, r.worst_ratio);
        w.scaled = std::max(w.scaled, r.max_scaled_err);
        w.rel = std::max(w.rel, r.max_rel_err);
        w.atol = std::max(w.atol, r.needed_atol);
    }
    ~Report() {
        const char* path = std::getenv("OPKIT_TOLERANCE_REPORT");
        if (!path || !*path || rows_.empty()) return;
        FILE* f = std::fopen(path, "a");
        if (!f) return;
        for (const auto& [key, w] : rows_)
            std::fprintf(f, "c++ %s %ld %.6g %.6g %.6g %.6g\n", key.c_str(), w.compared, w.ratio, w.scaled, w.rel,
                         w.atol);
        std::fclose(f);
    }

private:
    std::mutex m_;
    std::map<std::string, Worst> rows_;
};

Report& report() {
    static Report r;
    return r;
}

}  // namespace

ToleranceCheck check_tolerance(const char* op, const char* output, const char* dtype, const std::vector<double>& got,
                               const std::vector<double>& want, double floor) {
    ToleranceCheck c;
    const opkit::tolerance::Entry* tol = opkit::tolerance::find(op, output, dtype);
    std::ostringstream o;
    if (!tol) {
        o << "no tolerance for (" << op << ", " << output << ", " << dtype << ") in core/tolerances.def";
        c.detail = o.str();
        return c;
    }
    if (got.size() != want.size()) {
        o << output << ": " << got.size() << " values, the reference has " << want.size();
        c.detail = o.str();
        return c;
    }
    const opkit::tolerance::Result r = opkit::tolerance::compare(
        *tol, int64_t(got.size()), [&](int64_t i) { return got[size_t(i)]; },
        [&](int64_t i) { return want[size_t(i)]; }, floor);
    const std::string base = std::string(output).substr(0, std::string(output).find(' '));
    report().add(std::string(op) + " " + base + " " + dtype, r);
    c.ok = r.ok();
    o << op << " " << output << " " << dtype << ": rtol " << tol->rtol << ", atol " << tol->atol << " x S " << r.scale
      << "; worst err/tolerance " << r.worst_ratio;
    if (r.worst_index >= 0)
        o << " at element " << r.worst_index << " (got " << r.worst_got << ", want " << r.worst_ref << ")";
    o << "; " << r.mismatches << " of " << r.elements << " outside";
    c.detail = o.str();
    return c;
}

ToleranceCheck check_tolerance(const char* op, const char* output, const HostTensor& got,
                               const std::vector<double>& want, double floor) {
    return check_tolerance(op, output, name_of(got.dtype()), got.values(), want, floor);
}

}  // namespace test
