// opkit-conformance [VENDOR.so] [options]: every op, forward and backward, every dtype,
// odd shapes and strided views, on a vendor against opkit's CPU defaults; prints a parity
// table and exits non-zero on any mismatch. What a third party runs before shipping a
// backend package (docs/vendor-guide.md, docs/conformance.md).
//
// A declined case is never a pass: which implementation served each call comes from
// opkit_last_dispatch(), and an op the vendor exports whose every case it declined fails
// the run unless --allow-decline names it.
//
// Phases, each under its own opkit_init, so that a vendor serving the CPU itself is still
// compared against the built-in defaults and never against itself:
//   1. discover: which vendors exist, which one is under test;
//   2. build: the catalogue's inputs (backward statistics from the CPU defaults);
//   3. vendor: upload, call, download every case with only that vendor loaded and the
//      host fallback off, so a decline shows as a decline;
//   4. reference: the same calls on the host copies with every vendor disabled;
// then compare output by output, padding included.
#include "cases.h"
#include "compare.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

using namespace conformance;

namespace {

struct Options {
    std::string vendor_file;  // a vendor .so given on the command line
    std::string vendor_name;  // --vendor NAME
    int32_t device_id = 0;
    int max_failures = 20;
    bool list = false;           // --list: count the catalogue's cases per op, test nothing
    bool report_errors = false;  // --report-errors: worst error per (op, output, dtype)
    std::vector<std::string> allow_decline;  // ops the vendor may decline entirely
    CatalogueOptions catalogue;
};

void usage(FILE* f) {
    std::fprintf(f,
                 "usage: opkit-conformance [VENDOR.so] [--vendor NAME] [--device-id N] [--quick]\n"
                 "                         [--ops op,op] [--dtype f32,f16,bf16] [--max-failures N]\n"
                 "                         [--allow-decline op,op] [--report-errors]\n"
                 "       opkit-conformance --list [--quick] [--ops op,op] [--dtype ...]\n"
                 "Runs every op on a vendor against opkit's CPU defaults and prints a parity table.\n"
                 "Without VENDOR.so or --vendor, every READY vendor found (OPKIT_VENDOR_PATH, then the\n"
                 "install directory) is tested.\n"
                 "\n"
                 "A case the vendor declines (OPKIT_ERROR_UNSUPPORTED) is counted apart, never as a\n"
                 "pass. An op the vendor exports whose every case it declined fails the run, unless\n"
                 "--allow-decline names it (may be repeated). Tolerances: core/tolerances.def;\n"
                 "--report-errors prints the worst error per (op, output, dtype) against them.\n"
                 "\n"
                 "Exit status:\n"
                 "  0   every case the vendor served matches, and every op it exports served at\n"
                 "      least one case (or is named by --allow-decline)\n"
                 "  1   the vendor does not conform: a mismatch, a failed call, or an exported op\n"
                 "      that declined every case; or opkit could not be initialized\n"
                 "  2   bad usage, or no vendor to test\n"
                 "  3   an op has no case in the catalogue (a bug of this tool)\n"
                 "  77  the chosen vendor found no device (ctest: skipped)\n"
                 "--list prints the case count per op (exit 0, or 3 as above).\n");
}

std::vector<std::string> split(const std::string& s) {
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= s.size()) {
        const size_t end = s.find(',', start);
        const std::string item = s.substr(start, end == std::string::npos ? std::string::npos : end - start);
        if (!item.empty()) out.push_back(item);
        if (end == std::string::npos) break;
        start = end + 1;
    }
    return out;
}

bool parse(int argc, char** argv, Options* o) {
    std::vector<std::string> dtypes = {"f32", "f16", "bf16"};
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&](const char* name) -> const char* {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "opkit-conformance: %s needs a value\n", name);
                return nullptr;
            }
            return argv[++i];
        };
        if (a == "-h" || a == "--help") {
            usage(stdout);
            std::exit(0);
        } else if (a == "--list") {
            o->list = true;
        } else if (a == "--quick") {
            o->catalogue.quick = true;
        } else if (a == "--report-errors") {
            o->report_errors = true;
        } else if (a == "--allow-decline") {
            const char* v = value("--allow-decline");
            if (!v) return false;
            for (const std::string& op : split(v)) o->allow_decline.push_back(op);
        } else if (a == "--vendor") {
            const char* v = value("--vendor");
            if (!v) return false;
            o->vendor_name = v;
        } else if (a == "--device-id") {
            const char* v = value("--device-id");
            if (!v) return false;
            o->device_id = std::atoi(v);
        } else if (a == "--max-failures") {
            const char* v = value("--max-failures");
            if (!v) return false;
            o->max_failures = std::atoi(v);
        } else if (a == "--ops") {
            const char* v = value("--ops");
            if (!v) return false;
            o->catalogue.ops = split(v);
        } else if (a == "--dtype") {
            const char* v = value("--dtype");
            if (!v) return false;
            dtypes = split(v);
        } else if (!a.empty() && a[0] != '-' && o->vendor_file.empty()) {
            o->vendor_file = a;
        } else {
            std::fprintf(stderr, "opkit-conformance: unknown argument '%s'\n", a.c_str());
            return false;
        }
    }
    for (const std::string& d : dtypes) {
        if (d == "f32") o->catalogue.dtypes.push_back(f32());
        else if (d == "f16") o->catalogue.dtypes.push_back(f16());
        else if (d == "bf16") o->catalogue.dtypes.push_back(bf16());
        else {
            std::fprintf(stderr, "opkit-conformance: unknown dtype '%s' (f32, f16, bf16)\n", d.c_str());
            return false;
        }
    }
    std::vector<std::string> named = o->catalogue.ops;
    named.insert(named.end(), o->allow_decline.begin(), o->allow_decline.end());
    for (const std::string& op : named) {
        const char* served = nullptr;
        if (opkit_op_resolve(op.c_str(), OPKIT_DEVICE_CPU, &served) == OPKIT_ERROR_NOT_FOUND) {
            std::fprintf(stderr, "opkit-conformance: unknown op '%s'\n", op.c_str());
            return false;
        }
    }
    opkit_shutdown();  // the op check above initialized with the defaults
    return true;
}

// Who served the call just made on this thread: on the CPU a vendor's decline is followed
// by the defaults serving the call, so its status alone would count a decline as a pass.
enum class Served { vendor, declined, unknown };
Served who_served(const std::string& vendor, std::string* detail) {
    opkit_dispatch_info info{};
    info.struct_size = sizeof info;
    if (opkit_last_dispatch(&info) != OPKIT_OK) {
        *detail = std::string("opkit_last_dispatch: ") + opkit_last_error_message();
        return Served::unknown;
    }
    if (vendor == info.served_by) return Served::vendor;
    if (info.declined > 0 && vendor == info.first_declined_by) {
        *detail = std::string("declined") + (*info.served_by ? std::string(", then served by ") + info.served_by : "");
        return Served::declined;
    }
    *detail = std::string("served by '") + info.served_by + "', not by the vendor";
    return Served::unknown;
}

// The worst error seen per (op, output, dtype), for --report-errors.
struct ErrorRow {
    int compared = 0;
    double worst = 0, scaled_err = 0, rel_err = 0, needed_atol = 0;
};

std::string base_name(const std::string& output) { return output.substr(0, output.find(' ')); }

struct VendorRecord {
    std::string name, path, version, detail;
    int32_t device_type = 0, state = 0;
};

std::string real(const std::string& path) {
    char buf[PATH_MAX];
    return realpath(path.c_str(), buf) ? std::string(buf) : path;
}

opkit_status init_with(const char* vendor_path, const char* allow, const char* deny) {
    opkit_init_options o{};
    o.struct_size = sizeof o;
    o.vendor_path = vendor_path;
    o.vendors = allow;
    o.vendors_disable = deny;
    o.host_fallback = 0;  // a decline must show as a decline
    o.log_level = -1;
    return opkit_init(&o);
}

std::vector<VendorRecord> discover(const char* vendor_path) {
    std::vector<VendorRecord> out;
    if (init_with(vendor_path, nullptr, nullptr) != OPKIT_OK) return out;
    for (int32_t i = 0; i < opkit_vendor_count(); ++i) {
        opkit_vendor_info info{};
        info.struct_size = sizeof info;
        if (opkit_vendor_get_info(i, &info) != OPKIT_OK) continue;
        out.push_back({info.name ? info.name : "", info.path ? info.path : "", info.version ? info.version : "",
                       info.detail ? info.detail : "", info.device_type, info.state});
    }
    opkit_shutdown();
    return out;
}

const char* state_name(int32_t s) {
    static const char* names[] = {"READY", "NO_DEVICE", "INCOMPATIBLE", "LOAD_FAILED", "INIT_FAILED", "DISABLED"};
    return s >= 0 && s < 6 ? names[s] : "?";
}

struct OpRow {
    std::string served_by;
    int cases = 0, passed = 0, declined = 0, failed = 0;
    double worst = 0.0;
    bool exported = false;
};

// Cases per op of the library (its op spec), for the ops the run selected. An op with
// none is a bug of the catalogue (tools/conformance/cases.cpp): reported, and the run
// fails with status 3, so an op added to the spec fails conformance until it has cases.
std::map<std::string, int> cases_per_op(const Options& opt, const std::vector<std::unique_ptr<Case>>& cases,
                                        bool* complete) {
    std::map<std::string, int> count;
    *complete = true;
    for (int32_t k = 0; k < opkit_op_count(); ++k) {
        const std::string op = opkit_op_name(k);
        const auto& want = opt.catalogue.ops;
        if (!want.empty() && std::find(want.begin(), want.end(), op) == want.end()) continue;
        int n = 0;
        for (const auto& c : cases) n += c->op == op ? 1 : 0;
        count[op] = n;
        if (n == 0) {
            std::printf("opkit-conformance: op %s has no case in the catalogue (tools/conformance/cases.cpp)\n",
                        op.c_str());
            *complete = false;
        }
    }
    return count;
}

// The catalogue, built on the CPU defaults with every vendor found disabled (the backward
// cases take their saved statistics from the defaults). 0 when built and every selected
// op has cases, 3 when an op has none (a bug of the catalogue), 1 when opkit could not
// initialize or a case could not be built. *count, when given, gets the cases per op.
int build_on_defaults(const Options& opt, const char* vendor_path, const std::string& all_names,
                      std::vector<std::unique_ptr<Case>>* cases, std::map<std::string, int>* count) {
    if (init_with(vendor_path, nullptr, all_names.c_str()) != OPKIT_OK) {
        std::printf("cannot initialize opkit for the reference: %s\n", opkit_last_error_message());
        return 1;
    }
    try {
        *cases = build_catalogue(opt.catalogue);
    } catch (const std::exception& e) {
        std::printf("%s\n", e.what());
        opkit_shutdown();
        return 1;
    }
    bool complete = true;
    std::map<std::string, int> per_op = cases_per_op(opt, *cases, &complete);
    opkit_shutdown();
    if (count) *count = std::move(per_op);
    return complete ? 0 : 3;
}

// Runs the catalogue on one vendor; returns the number of failed cases (or -1 when the
// run itself could not happen).
int test_vendor(const Options& opt, const VendorRecord& v, const char* vendor_path, const std::string& all_names) {
    const auto t0 = std::chrono::steady_clock::now();
    const opkit_device dev{v.device_type, opt.device_id};
    std::printf("== vendor '%s' %s (%s), device type %d id %d\n", v.name.c_str(), v.version.c_str(), v.path.c_str(),
                v.device_type, opt.device_id);

    // 2. build, with every vendor disabled
    std::vector<std::unique_ptr<Case>> cases;
    const int built = build_on_defaults(opt, vendor_path, all_names, &cases, nullptr);
    if (built != 0) return built == 3 ? -3 : -1;

    // 3. the vendor alone
    std::map<std::string, OpRow> table;
    std::map<std::string, ErrorRow> errors;
    std::vector<std::string> problems;
    if (init_with(vendor_path, v.name.c_str(), nullptr) != OPKIT_OK) {
        std::printf("cannot initialize opkit with the vendor: %s\n", opkit_last_error_message());
        return -1;
    }
    if (opkit_device_count(v.device_type) <= opt.device_id) {
        std::printf("the vendor has no device %d\n", opt.device_id);
        opkit_shutdown();
        return -1;
    }
    std::vector<bool> ran(cases.size(), false);
    for (size_t i = 0; i < cases.size(); ++i) {
        Case& c = *cases[i];
        OpRow& row = table[c.op];
        const char* served = nullptr;
        if (opkit_op_resolve(c.op.c_str(), v.device_type, &served) != OPKIT_OK || v.name != served) {
            row.served_by = served ? served : "nobody";
            continue;
        }
        row.served_by = v.name;
        row.exported = true;
        ++row.cases;
        opkit_status s = OPKIT_OK;
        for (auto& t : c.tensors)
            if (s == OPKIT_OK) s = t->upload(dev);
        bool declined = false;
        if (s == OPKIT_OK) {
            s = c.call(true);
            c.vendor_message = s ? opkit_last_error_message() : "";
            std::string detail;
            const Served who = who_served(v.name, &detail);
            if (who == Served::declined) {
                declined = true;
            } else if (who == Served::unknown) {
                if (s == OPKIT_OK) s = OPKIT_ERROR_INTERNAL;
                c.vendor_message = detail + (c.vendor_message.empty() ? "" : ": " + c.vendor_message);
            }
            c.vendor_status = s;
            for (CaseOutput& o : c.outputs)
                if (s == OPKIT_OK && !declined) s = o.tensor->download(&o.vendor);
        } else {
            c.vendor_status = s;
            c.vendor_message = std::string("device memory: ") + opkit_last_error_message();
        }
        for (auto& t : c.tensors) t->release();
        if (declined) {
            ++row.declined;
        } else if (s != OPKIT_OK) {
            ++row.failed;
            problems.push_back(c.op + " " + c.label + ": " + opkit_status_string(s) + ": " + c.vendor_message);
        } else {
            ran[i] = true;
        }
    }
    opkit_shutdown();

    // 4. the reference on the host copies, then compare
    if (init_with(vendor_path, nullptr, all_names.c_str()) != OPKIT_OK) {
        std::printf("cannot initialize opkit for the reference: %s\n", opkit_last_error_message());
        return -1;
    }
    for (size_t i = 0; i < cases.size(); ++i) {
        if (!ran[i]) continue;
        Case& c = *cases[i];
        OpRow& row = table[c.op];
        const opkit_status s = c.call(false);
        if (s != OPKIT_OK) {
            ++row.failed;
            problems.push_back(c.op + " " + c.label + ": the CPU defaults failed (" + opkit_status_string(s) +
                               ": " + opkit_last_error_message() + ")");
            continue;
        }
        bool ok = true;
        for (const CaseOutput& o : c.outputs) {
            const Verdict verdict = compare(c.op, o.name, *o.tensor, o.vendor, o.tensor->host_storage(), o.scale_floor);
            row.worst = std::max(row.worst, verdict.worst);
            ErrorRow& e = errors[c.op + " " + base_name(o.name) + " " + dtype_name(o.tensor->dtype())];
            ++e.compared;
            e.worst = std::max(e.worst, verdict.worst);
            e.scaled_err = std::max(e.scaled_err, verdict.scaled_err);
            e.rel_err = std::max(e.rel_err, verdict.rel_err);
            e.needed_atol = std::max(e.needed_atol, verdict.needed_atol);
            if (!verdict.ok()) {
                ok = false;
                problems.push_back(c.op + " " + c.label + " -> " + o.name + ": " +
                                   std::to_string(verdict.mismatches) + " mismatching elements, " +
                                   std::to_string(verdict.bytes_outside) + " bytes outside the view changed; " +
                                   verdict.first_problem);
            }
        }
        ok ? ++row.passed : ++row.failed;
    }
    opkit_shutdown();

    int failed = 0, total = 0, passed = 0, declined = 0;
    std::vector<std::string> all_declined;  // exported ops that served no case
    std::printf("%-24s %-10s %6s %6s %9s %6s  %s\n", "op", "served by", "cases", "pass", "declined", "FAIL",
                "worst err/tolerance");
    for (int32_t k = 0; k < opkit_op_count(); ++k) {
        const std::string op = opkit_op_name(k);
        auto it = table.find(op);
        if (it == table.end()) continue;
        const OpRow& r = it->second;
        failed += r.failed;
        total += r.cases;
        passed += r.passed;
        declined += r.declined;
        const bool allowed =
            std::find(opt.allow_decline.begin(), opt.allow_decline.end(), op) != opt.allow_decline.end();
        const bool declined_all = r.exported && r.cases > 0 && r.declined == r.cases;
        if (declined_all && !allowed) all_declined.push_back(op);
        if (r.cases == 0)
            std::printf("%-24s %-10s %6s %6s %9s %6s  (not exported by '%s')\n", op.c_str(), r.served_by.c_str(), "-",
                        "-", "-", "-", v.name.c_str());
        else if (declined_all)
            std::printf("%-24s %-10s %6d %6d %9d %6d  %s\n", op.c_str(), r.served_by.c_str(), r.cases, r.passed,
                        r.declined, r.failed,
                        allowed ? "every case declined (allowed by --allow-decline)" : "EVERY CASE DECLINED");
        else
            std::printf("%-24s %-10s %6d %6d %9d %6d  %.3f\n", op.c_str(), r.served_by.c_str(), r.cases, r.passed,
                        r.declined, r.failed, r.worst);
    }
    opkit_shutdown();  // opkit_op_count initialized with the defaults
    if (opt.report_errors) {
        std::printf("\nerrors against the tolerances of core/tolerances.def (vendor '%s' vs the CPU defaults):\n",
                    v.name.c_str());
        std::printf("%-24s %-8s %-5s %8s %13s %12s %12s %12s\n", "op", "output", "dtype", "compared",
                    "worst err/tol", "max err/S", "max rel err", "needed atol");
        for (const auto& [key, e] : errors) {
            char op[64] = "", out[32] = "", dt[8] = "";
            std::sscanf(key.c_str(), "%63s %31s %7s", op, out, dt);
            std::printf("%-24s %-8s %-5s %8d %13.3g %12.3g %12.3g %12.3g\n", op, out, dt, e.compared, e.worst,
                        e.scaled_err, e.rel_err, e.needed_atol);
        }
        std::printf("\n");
    }
    // OPKIT_TOLERANCE_REPORT=FILE: the same rows for tests/support/tolerance_report.py.
    if (const char* path = std::getenv("OPKIT_TOLERANCE_REPORT"); path && *path && !errors.empty())
        if (FILE* f = std::fopen(path, "a")) {
            for (const auto& [key, e] : errors)
                std::fprintf(f, "conformance:%s %s %d %.6g %.6g %.6g %.6g\n", v.name.c_str(), key.c_str(),
                             e.compared, e.worst, e.scaled_err, e.rel_err, e.needed_atol);
            std::fclose(f);
        }
    for (size_t i = 0; i < problems.size() && int(i) < opt.max_failures; ++i)
        std::printf("FAIL %s\n", problems[i].c_str());
    if (int(problems.size()) > opt.max_failures)
        std::printf("... %zu more failures\n", problems.size() - size_t(opt.max_failures));
    for (const std::string& op : all_declined)
        std::printf("FAIL %s: the vendor exports it but declined every one of its %d case(s); a declined case is "
                    "not a pass (name it with --allow-decline %s if the vendor declines it on purpose)\n",
                    op.c_str(), table[op].cases, op.c_str());
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const char* verdict = failed ? "MISMATCH" : !all_declined.empty() ? "DECLINED" : "CONFORMS";
    std::printf("%s: %d cases on the vendor: %d passed, %d declined (not counted as passes), %d failed; "
                "%zu exported op(s) declined every case (%.1f s)\n",
                verdict, total, passed, declined, failed, all_declined.size(), secs);
    return failed + int(all_declined.size());
}

}  // namespace

int main(int argc, char** argv) {
    Options opt;
    if (!parse(argc, argv, &opt)) {
        usage(stderr);
        return 2;
    }
    const std::string file = opt.vendor_file.empty() ? "" : real(opt.vendor_file);
    const char* vendor_path = file.empty() ? nullptr : file.c_str();
    const std::vector<VendorRecord> found = discover(vendor_path);

    std::string all_names;
    for (const VendorRecord& v : found)
        if (!v.name.empty()) all_names += (all_names.empty() ? "" : ",") + v.name;

    if (opt.list) {  // the catalogue alone, built on the CPU defaults (every vendor disabled)
        std::vector<std::unique_ptr<Case>> cases;
        std::map<std::string, int> count;
        const int built = build_on_defaults(opt, vendor_path, all_names, &cases, &count);
        for (const auto& [op, n] : count) std::printf("%-24s %6d cases\n", op.c_str(), n);
        return built;
    }

    // --vendor NAME with a READY vendor of that name: a same-named one the loader disabled
    // as its duplicate (a replacement found first on OPKIT_VENDOR_PATH shadows the
    // installed one) is noted, not failed: the replacement is what NAME means here.
    bool ready_by_name = false;
    for (const VendorRecord& v : found)
        if (!opt.vendor_name.empty() && v.name == opt.vendor_name && v.state == OPKIT_VENDOR_READY) ready_by_name = true;
    std::vector<VendorRecord> under_test;
    for (const VendorRecord& v : found) {
        const bool chosen = !file.empty() ? real(v.path) == file
                            : !opt.vendor_name.empty() ? v.name == opt.vendor_name
                                                       : v.state == OPKIT_VENDOR_READY;
        if (!chosen) continue;
        if (file.empty() && ready_by_name && v.state == OPKIT_VENDOR_DISABLED) {
            std::printf("vendor '%s' (%s) not tested, %s: %s\n", v.name.c_str(), v.path.c_str(), state_name(v.state),
                        v.detail.c_str());
            continue;
        }
        if (v.state != OPKIT_VENDOR_READY) {
            std::printf("vendor '%s' (%s) is %s: %s\n", v.name.c_str(), v.path.c_str(), state_name(v.state),
                        v.detail.c_str());
            // No device is not a failure of the vendor: 77 lets ctest show it as skipped.
            return v.state == OPKIT_VENDOR_NO_DEVICE ? 77 : 1;
        }
        under_test.push_back(v);
    }
    if (under_test.empty()) {
        std::printf("opkit-conformance: no vendor to test%s%s (found %zu candidate(s))\n",
                    opt.vendor_name.empty() ? "" : " named ", opt.vendor_name.c_str(), found.size());
        for (const VendorRecord& v : found)
            std::printf("  %s %s: %s %s\n", v.name.c_str(), v.path.c_str(), state_name(v.state), v.detail.c_str());
        return 2;
    }
    int status = 0;
    for (const VendorRecord& v : under_test) {
        const int failed = test_vendor(opt, v, vendor_path, all_names);
        if (failed == -3) return 3;
        if (failed != 0) status = 1;
    }
    return status;
}
