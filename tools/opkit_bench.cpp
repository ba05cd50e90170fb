// opkit-bench: per op and vendor, three shape groups (small, medium, large): median time,
// effective GB/s (TFLOP/s for matmul), and the fraction of the device's measured copy
// bandwidth; as a table or as JSON. Everything runs through the public C API only.
// The case catalogue (shapes, tensors, byte model) is in bench_cases.cpp.
#include "bench_cases.h"
#include "opkit.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace {

using namespace opkit_bench;

const char kUsage[] =
    "usage: opkit-bench [--device cpu|cuda|rocm|ascend|<type>[:<id>]] [--group small,medium,large]\n"
    "                   [--ops name,name] [--dtype f32,f16,bf16] [--reps N] [--json]\n"
    "                   [--vendor-path PATH]\n"
    "       opkit-bench --list\n"
    "\n"
    "  --device       device to benchmark (default: the device type of the first READY\n"
    "                 vendor, else cpu); <type> is a DLPack device type number\n"
    "  --group        shape groups (default: all three)\n"
    "  --ops          ops by name (rms_norm_forward, ...); a family name such as rms_norm\n"
    "                 selects its forward and backward (default: every op)\n"
    "  --dtype        float dtypes (default: all three)\n"
    "  --reps N       timed samples per case; the median is reported (default 20; a case\n"
    "                 stops after 1 s of samples once it has 5)\n"
    "  --json         one JSON object on stdout instead of the table\n"
    "  --vendor-path  colon-separated vendor directories or files (like OPKIT_VENDOR_PATH)\n"
    "  --list         print every op with its byte model and exit\n"
    "\n"
    "Exit status: 0 every call succeeded, 1 a call failed, 2 bad usage, 3 the tool's case\n"
    "catalogue lacks an op of the library (a bug of opkit-bench).\n";

// ------------------------------------------------------------ options --------------

struct Options {
    bool device_given = false;
    opkit_device device = {OPKIT_DEVICE_CPU, 0};
    std::vector<Group> groups = {Group::small, Group::medium, Group::large};
    std::vector<const OpBench*> ops;  // empty: every op
    std::vector<FloatType> types = float_types();
    int reps = 20;
    bool json = false;
    std::string vendor_path;  // empty: OPKIT_VENDOR_PATH decides
};

std::vector<std::string> split_list(const std::string& list) {
    std::vector<std::string> items;
    size_t start = 0;
    while (start <= list.size()) {
        const size_t comma = std::min(list.find(',', start), list.size());
        if (comma > start) items.push_back(list.substr(start, comma - start));
        start = comma + 1;
    }
    return items;
}

bool parse_int(const std::string& text, long* value) {
    char* end = nullptr;
    *value = std::strtol(text.c_str(), &end, 10);
    return !text.empty() && *end == '\0';
}

bool parse_device(const std::string& text, opkit_device* device) {
    const size_t colon = text.find(':');
    const std::string type = text.substr(0, colon);
    long id = 0, number = 0;
    if (colon != std::string::npos && (!parse_int(text.substr(colon + 1), &id) || id < 0)) return false;
    if (type == "cpu") device->device_type = OPKIT_DEVICE_CPU;
    else if (type == "cuda") device->device_type = OPKIT_DEVICE_CUDA;
    else if (type == "rocm") device->device_type = OPKIT_DEVICE_ROCM;
    else if (type == "ascend") device->device_type = OPKIT_DEVICE_ASCEND;
    else if (parse_int(type, &number) && number > 0) device->device_type = int32_t(number);
    else return false;
    device->device_id = int32_t(id);
    return true;
}

bool parse_groups(const std::string& text, std::vector<Group>* groups) {
    groups->clear();
    for (const std::string& name : split_list(text)) {
        bool known = false;
        for (Group g : {Group::small, Group::medium, Group::large})
            if (name == group_name(g)) groups->push_back(g), known = true;
        if (!known) return false;
    }
    return !groups->empty();
}

bool parse_types(const std::string& text, std::vector<FloatType>* types) {
    types->clear();
    for (const std::string& name : split_list(text)) {
        bool known = false;
        for (const FloatType& t : float_types())
            if (name == t.name) types->push_back(t), known = true;
        if (!known) return false;
    }
    return !types->empty();
}

// An exact op name, or a family name that stands for its _forward and _backward.
bool names_op(const std::string& name, const std::string& op) {
    return op == name || op == name + "_forward" || op == name + "_backward";
}

bool parse_ops(const std::string& text, std::vector<const OpBench*>* ops, std::string* unknown) {
    ops->clear();
    for (const std::string& name : split_list(text)) {
        bool known = false;
        for (const OpBench& bench : op_benches()) {
            if (!names_op(name, bench.op)) continue;
            known = true;
            if (std::find(ops->begin(), ops->end(), &bench) == ops->end()) ops->push_back(&bench);
        }
        if (!known) return *unknown = name, false;
    }
    return !ops->empty();
}

// The library searches absolute entries only (a relative one in the environment would
// depend on the working directory); on a command line, relative to here is what is meant.
std::string absolute_entries(const std::string& path_list) {
    std::string out;
    size_t start = 0;
    while (start <= path_list.size()) {
        const size_t colon = std::min(path_list.find(':', start), path_list.size());
        const std::string entry = path_list.substr(start, colon - start);
        if (!entry.empty()) {
            std::error_code ignored;
            const std::filesystem::path absolute = std::filesystem::absolute(entry, ignored);
            out += (out.empty() ? "" : ":") + (absolute.empty() ? entry : absolute.string());
        }
        start = colon + 1;
    }
    return out;
}

enum class Parsed { run, help, list, bad };

Parsed bad_argument(const std::string& message) {
    std::fprintf(stderr, "opkit-bench: %s (opkit-bench --help prints the usage)\n", message.c_str());
    return Parsed::bad;
}

Parsed parse_args(int argc, char** argv, Options* options) {
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--help" || arg == "-h") return Parsed::help;
        if (arg == "--list") return Parsed::list;
        if (arg == "--json") {
            options->json = true;
            continue;
        }
        if (i + 1 >= argc) return bad_argument("unknown option or missing value: " + arg);
        const std::string value = argv[++i];
        std::string unknown;
        long reps = 0;
        if (arg == "--device") {
            if (!parse_device(value, &options->device)) return bad_argument("bad --device: " + value);
            options->device_given = true;
        } else if (arg == "--group") {
            if (!parse_groups(value, &options->groups)) return bad_argument("bad --group: " + value);
        } else if (arg == "--ops") {
            if (!parse_ops(value, &options->ops, &unknown)) return bad_argument("unknown op in --ops: " + unknown);
        } else if (arg == "--dtype") {
            if (!parse_types(value, &options->types)) return bad_argument("bad --dtype: " + value);
        } else if (arg == "--reps") {
            if (!parse_int(value, &reps) || reps < 1 || reps > 100000) return bad_argument("bad --reps: " + value);
            options->reps = int(reps);
        } else if (arg == "--vendor-path") {
            options->vendor_path = absolute_entries(value);
        } else {
            return bad_argument("unknown option: " + arg);
        }
    }
    if (options->ops.empty())
        for (const OpBench& bench : op_benches()) options->ops.push_back(&bench);
    return Parsed::run;
}

// ------------------------------------------------------------ device ---------------

std::string device_name(opkit_device device) {
    std::string type;
    switch (device.device_type) {
    case OPKIT_DEVICE_CPU: return "cpu";
    case OPKIT_DEVICE_CUDA: type = "cuda"; break;
    case OPKIT_DEVICE_ROCM: type = "rocm"; break;
    case OPKIT_DEVICE_ASCEND: case 12: type = "ascend"; break;
    default: type = std::to_string(device.device_type);
    }
    return type + ":" + std::to_string(device.device_id);
}

// The device type of the first READY vendor, else the CPU: what a user with one
// accelerator wants measured.
int32_t default_device_type() {
    for (int32_t i = 0; i < opkit_vendor_count(); ++i) {
        opkit_vendor_info info;
        std::memset(&info, 0, sizeof info);
        info.struct_size = sizeof info;
        if (opkit_vendor_get_info(i, &info) == OPKIT_OK && info.state == OPKIT_VENDOR_READY &&
            info.device_type != 0)
            return info.device_type;
    }
    return OPKIT_DEVICE_CPU;
}

bool is_cpu(opkit_device device) { return device.device_type == OPKIT_DEVICE_CPU; }

// ------------------------------------------------------------ timing ---------------
//
// Samples are host-timed: synchronize, start the clock, issue k calls back to back on one
// stream, synchronize, stop. Host timing of device work includes the launch gaps between
// calls and the synchronize round trip, which is why k calls are batched: with one batch
// lasting at least ~1 ms those fixed costs shrink to noise, while each call still pays its
// own launch, as it does in a real training step. The reported time is the median of the
// per-call times (batch time / k) over all samples, which ignores the odd preempted batch.
// A case stops sampling early once its samples have taken kSampleBudgetSeconds and there
// are kMinSamples of them: only slow CPU kernels (a 300 ms cross-entropy) ever reach it,
// and it keeps a full CPU run near a minute; the JSON says how many samples each row has.
//
// Inputs are not rotated between calls, so a small case whose tensors fit in the last-level
// cache (50 MB L2 on an H100) re-reads them from cache and can show more GB/s than DRAM has.

constexpr int kWarmupCalls = 3;
constexpr double kMinBatchSeconds = 1e-3;
constexpr int kMaxBatchCalls = 100;
constexpr double kSampleBudgetSeconds = 1.0;
constexpr int kMinSamples = 5;

Error synchronize(const Setup& setup) {
    return check(opkit_synchronize(setup.device, setup.stream), "opkit_synchronize");
}

Error timed_batch(const std::function<opkit_status()>& call, const Setup& setup, int calls, double* seconds) {
    if (Error e = synchronize(setup); !e.ok()) return e;
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) {
        const opkit_status status = call();
        if (status != OPKIT_OK) return check(status, "call");
    }
    if (Error e = synchronize(setup); !e.ok()) return e;
    *seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return {};
}

int batch_calls(double seconds_per_call) {
    if (seconds_per_call <= 0) return kMaxBatchCalls;
    return int(std::clamp(std::ceil(kMinBatchSeconds / seconds_per_call), 1.0, double(kMaxBatchCalls)));
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    const size_t n = values.size();
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

struct Timing {
    double seconds = 0;  // median per call
    int batch = 1;       // calls per sample
    int samples = 0;
};

Error time_calls(const std::function<opkit_status()>& call, const Setup& setup, int reps, Timing* out) {
    // The first calls pay one-time costs (page faults, module loads, workspace allocation).
    for (int i = 0; i < kWarmupCalls - 1; ++i) {
        const opkit_status status = call();
        if (status != OPKIT_OK) return check(status, "warm-up call");
    }
    // The last warm-up call, timed alone, sizes the batch. It overstates a microsecond
    // kernel by the synchronize round trip, so a trial batch sized from it refines that.
    double seconds = 0;
    if (Error e = timed_batch(call, setup, 1, &seconds); !e.ok()) return e;
    int batch = batch_calls(seconds);
    if (batch > 1) {
        if (Error e = timed_batch(call, setup, batch, &seconds); !e.ok()) return e;
        batch = batch_calls(seconds / batch);
    }
    std::vector<double> samples;
    double spent = 0;
    for (int r = 0; r < reps; ++r) {
        if (Error e = timed_batch(call, setup, batch, &seconds); !e.ok()) return e;
        samples.push_back(seconds / batch);
        spent += seconds;
        if (int(samples.size()) >= kMinSamples && spent >= kSampleBudgetSeconds) break;
    }
    *out = {median(samples), batch, int(samples.size())};
    return {};
}

// ------------------------------------------------------------ copy bandwidth -------

struct CopyBandwidth {
    double bytes = 0;
    double gbps = 0;  // 0 when the measurement failed
};

// The device's practical memory bandwidth: a device-to-device opkit_memcpy, counted as
// read + write. Large enough to defeat every cache. The source is filled first because on
// the CPU untouched pages all map one zero page, which would read from cache.
Error measure_copy_bandwidth(const Setup& setup, int reps, CopyBandwidth* out) {
    const int64_t bytes = is_cpu(setup.device) ? (int64_t(256) << 20) : (int64_t(1) << 30);
    const opkit_dtype f32 = {OPKIT_DTYPE_FLOAT, 32, 1};
    DeviceTensor src(setup.device, f32, {bytes / 4}), dst(setup.device, f32, {bytes / 4});
    Error e = src.allocate();
    if (e.ok()) e = dst.allocate();
    if (e.ok()) e = fill_uniform(src, 12345, setup.stream);
    const auto copy = [&] {
        return opkit_memcpy(dst.view()->data, setup.device, src.view()->data, setup.device, size_t(bytes),
                            setup.stream);
    };
    Timing timing;
    if (e.ok()) e = time_calls(copy, setup, reps, &timing);
    if (!e.ok()) return e;
    *out = {double(bytes), 2.0 * double(bytes) / timing.seconds / 1e9};
    return {};
}

// ------------------------------------------------------------ one case -------------

enum class Outcome { ok, unsupported, failed };

struct Row {
    std::string op, vendor, group, shape, dtype;
    Outcome outcome = Outcome::ok;
    std::string detail;  // why unsupported or failed
    double median_ms = 0, gbps = 0, tflops = 0, frac_copy = NAN;
    int batch = 0, samples = 0;
    bool is_matmul = false;
};

Row run_case(const OpBench& bench, const char* vendor, Group group, const FloatType& type, const Setup& base,
             int reps, double copy_gbps) {
    const Shape shape = bench.shape(group, is_cpu(base.device));
    Row row;
    row.op = bench.op;
    row.vendor = vendor ? vendor : "-";
    row.group = group_name(group);
    row.shape = shape.label;
    row.dtype = type.name;
    row.is_matmul = std::strcmp(bench.op, "matmul") == 0;
    if (!vendor) {
        row.outcome = Outcome::unsupported;
        row.detail = "no vendor serves it on this device type";
        return row;
    }
    Setup setup = base;
    setup.type = type;
    PreparedCase prepared;
    Error e = bench.prepare(setup, shape, &prepared);
    Timing timing;
    if (e.ok()) e = time_calls(prepared.call, setup, reps, &timing);
    if (!e.ok()) {
        // A vendor that declines a dtype or shape is a fact about it, not a broken run.
        row.outcome = e.status == OPKIT_ERROR_UNSUPPORTED ? Outcome::unsupported : Outcome::failed;
        row.detail = e.message;
        return row;
    }
    row.median_ms = timing.seconds * 1e3;
    row.batch = timing.batch;
    row.samples = timing.samples;
    row.gbps = prepared.bytes / timing.seconds / 1e9;
    row.tflops = prepared.flops / timing.seconds / 1e12;
    row.frac_copy = copy_gbps > 0 ? row.gbps / copy_gbps : NAN;  // NaN: no copy bandwidth to compare with
    return row;
}

// ------------------------------------------------------------ table ----------------

void print_table_header(const std::string& device, const CopyBandwidth& copy, int reps) {
    std::printf("opkit-bench: device %s, ", device.c_str());
    if (copy.gbps > 0)
        std::printf("copy bandwidth %.1f GB/s (device-to-device opkit_memcpy of %.0f MiB, read + write)\n",
                    copy.gbps, copy.bytes / (1 << 20));
    else
        std::printf("copy bandwidth unknown (its measurement failed)\n");
    std::printf("median of %d samples per case (fewer once a case's samples took %.0f s; at least %d)\n\n", reps,
                kSampleBudgetSeconds, kMinSamples);
    std::printf("%-23s %-13s %-6s %-24s %-5s %10s %9s %8s %6s\n", "op", "vendor", "group", "shape", "dtype",
                "median ms", "GB/s", "TFLOP/s", "/copy");
}

void print_table_row(const Row& row) {
    std::printf("%-23s %-13s %-6s %-24s %-5s ", row.op.c_str(), row.vendor.c_str(), row.group.c_str(),
                row.shape.c_str(), row.dtype.c_str());
    if (row.outcome == Outcome::ok) {
        char tflops[16] = "-";
        if (row.is_matmul) std::snprintf(tflops, sizeof tflops, "%.2f", row.tflops);
        char frac[16] = "-";
        if (std::isfinite(row.frac_copy)) std::snprintf(frac, sizeof frac, "%.2f", row.frac_copy);
        std::printf("%10.4f %9.1f %8s %6s\n", row.median_ms, row.gbps, tflops, frac);
    } else {
        std::printf("%10s\n", row.outcome == Outcome::unsupported ? "unsupported" : "FAILED");
    }
    std::fflush(stdout);  // a large run takes minutes: show each row as it lands
}

void print_table_legend() {
    std::printf("\nEffective bytes per call: every tensor the op must read or write, counted once\n"
                "(n = elements of the main tensor; GB/s = bytes / median time; /copy = GB/s / copy bandwidth):\n");
    for (const OpBench& bench : op_benches()) std::printf("  %-23s %s\n", bench.op, bench.bytes_model);
    std::printf("Times are host-timed batches of back-to-back calls on one stream (launch gaps included).\n"
                "Inputs are not rotated: small cases may run from the last-level cache and exceed the copy "
                "bandwidth.\n");
}

// ------------------------------------------------------------ JSON -----------------

std::string json_string(const std::string& text) {
    std::string out = "\"";
    for (const unsigned char c : text) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += char(c);
        } else if (c < 0x20) {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
            out += escaped;
        } else {
            out += char(c);
        }
    }
    return out + "\"";
}

// JSON has no inf or NaN.
std::string json_number(double value) {
    if (!std::isfinite(value)) return "null";
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", value);
    return text;
}

const char* outcome_name(Outcome outcome) {
    switch (outcome) {
    case Outcome::ok: return "ok";
    case Outcome::unsupported: return "unsupported";
    case Outcome::failed: return "failed";
    }
    return "?";
}

std::string json_row(const Row& row) {
    std::string s = "{\"op\": " + json_string(row.op) + ", \"vendor\": " + json_string(row.vendor) +
                    ", \"group\": " + json_string(row.group) + ", \"shape\": " + json_string(row.shape) +
                    ", \"dtype\": " + json_string(row.dtype) + ", \"status\": " + json_string(outcome_name(row.outcome));
    if (row.outcome != Outcome::ok) return s + ", \"detail\": " + json_string(row.detail) + "}";
    s += ", \"median_ms\": " + json_number(row.median_ms) + ", \"GBps\": " + json_number(row.gbps);
    if (row.is_matmul) s += ", \"TFLOPs\": " + json_number(row.tflops);
    return s + ", \"frac_copy_bw\": " + json_number(row.frac_copy) + ", \"batch\": " + std::to_string(row.batch) +
           ", \"samples\": " + std::to_string(row.samples) + "}";
}

void print_json(const std::string& device, const CopyBandwidth& copy, int reps, const std::vector<Row>& rows) {
    std::printf("{\n  \"device\": %s,\n  \"copy_GBps\": %s,\n  \"copy_bytes\": %.0f,\n  \"reps\": %d,\n",
                json_string(device).c_str(), json_number(copy.gbps > 0 ? copy.gbps : NAN).c_str(), copy.bytes, reps);
    std::printf("  \"bytes_model\": {");
    const auto& benches = op_benches();
    for (size_t i = 0; i < benches.size(); ++i)
        std::printf("%s\n    %s: %s", i ? "," : "", json_string(benches[i].op).c_str(),
                    json_string(benches[i].bytes_model).c_str());
    std::printf("\n  },\n  \"rows\": [");
    for (size_t i = 0; i < rows.size(); ++i) std::printf("%s\n    %s", i ? "," : "", json_row(rows[i]).c_str());
    std::printf("\n  ]\n}\n");
}

// ------------------------------------------------------------ main -----------------

void report_failure(const std::string& what, const std::string& message) {
    std::fprintf(stderr, "opkit-bench: %s: %s\n", what.c_str(), message.c_str());
}

Error init_library(const Options& options) {
    opkit_init_options init;
    std::memset(&init, 0, sizeof init);
    init.struct_size = sizeof init;
    init.vendor_path = options.vendor_path.empty() ? nullptr : options.vendor_path.c_str();
    init.host_fallback = -1;
    init.log_level = -1;
    return check(opkit_init(&init), "opkit_init");
}

// The op's serving vendor on this device type, or nullptr when nobody serves it.
const char* resolve_vendor(const char* op, int32_t device_type) {
    const char* vendor = nullptr;
    return opkit_op_resolve(op, device_type, &vendor) == OPKIT_OK ? vendor : nullptr;
}

bool device_exists(opkit_device device) {
    return is_cpu(device) || device.device_id < opkit_device_count(device.device_type);
}

int run(const Options& options) {
    opkit_device device = options.device;
    if (!options.device_given) device.device_type = default_device_type();
    const std::string name = device_name(device);
    if (!device_exists(device)) {
        std::fprintf(stderr, "opkit-bench: no device %s (%d of that type; opkit-info says why)\n", name.c_str(),
                     opkit_device_count(device.device_type));
        return 1;
    }
    Setup setup{device, float_types()[0], nullptr};
    // The CPU's ops complete before returning; a device gets its own stream, as an
    // application would use.
    if (!is_cpu(device)) {
        if (Error e = check(opkit_stream_create(device, &setup.stream), "opkit_stream_create"); !e.ok()) {
            report_failure(name, e.message);
            return 1;
        }
    }
    bool failed = false;
    CopyBandwidth copy;
    if (Error e = measure_copy_bandwidth(setup, options.reps, &copy); !e.ok()) {
        report_failure("copy bandwidth", e.message);
        failed = true;
    }
    if (!options.json) print_table_header(name, copy, options.reps);
    std::vector<Row> rows;
    for (const OpBench* bench : options.ops) {
        const char* vendor = resolve_vendor(bench->op, device.device_type);
        for (Group group : options.groups)
            for (const FloatType& type : options.types) {
                Row row = run_case(*bench, vendor, group, type, setup, options.reps, copy.gbps);
                if (row.outcome == Outcome::failed) {
                    report_failure(row.op + " " + row.group + " " + row.dtype, row.detail);
                    failed = true;
                }
                if (!options.json) print_table_row(row);
                rows.push_back(row);
            }
    }
    if (options.json) print_json(name, copy, options.reps, rows);
    else print_table_legend();
    if (setup.stream) opkit_stream_destroy(device, setup.stream);
    return failed ? 1 : 0;
}

}  // namespace

// Every op the library knows (its op spec) must have a bench case: an op added to the
// spec without one makes every run fail until tools/bench_cases.cpp has it.
bool catalogue_covers_every_op() {
    bool ok = true;
    for (int32_t i = 0; i < opkit_op_count(); ++i) {
        const std::string op = opkit_op_name(i);
        bool found = false;
        for (const OpBench& bench : op_benches()) found = found || op == bench.op;
        if (!found) {
            std::fprintf(stderr, "opkit-bench: op %s has no bench case (tools/bench_cases.cpp)\n", op.c_str());
            ok = false;
        }
    }
    return ok;
}

int main(int argc, char** argv) {
    Options options;
    const Parsed parsed = parse_args(argc, argv, &options);
    if (parsed == Parsed::help) {
        std::printf("%s", kUsage);
        return 0;
    }
    if (parsed == Parsed::bad) return 2;
    if (!catalogue_covers_every_op()) return 3;
    if (parsed == Parsed::list) {
        for (const OpBench& bench : op_benches()) std::printf("%-23s %s\n", bench.op, bench.bytes_model);
        return 0;
    }
    if (Error e = init_library(options); !e.ok()) {
        report_failure("init", e.message);
        return 1;
    }
    const int status = run(options);
    opkit_shutdown();
    return status;
}
