// The loader, through the public API, against real fake-vendor .so files built by
// tests/fake_vendor: states and reasons of every broken variant, routing of overridden
// and declined ops, allow/deny lists, duplicates, refused directories, a pretend
// accelerator with and without host fallback, and shutdown/re-init.
#include "host_tensor.h"
#include "opkit.h"

#include <catch2/catch.hpp>

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace {

const std::string kRoot = FAKE_VENDOR_ROOT;

std::string dir(const char* variant) { return kRoot + "/" + variant; }
std::string file(const char* variant, const char* name) {
    return dir(variant) + "/libopkit_vendor_" + name + ".so";
}

struct Info {
    int32_t state = -1;
    std::string detail, path;
    int32_t op_count = 0, device_type = 0;
};

// opkit_init with the given options, then every vendor's record by name (the last
// record wins for duplicate names; tests that care look at `all`).
struct Session {
    std::map<std::string, Info> vendors;
    std::vector<std::pair<std::string, Info>> all;
    explicit Session(const std::string& path, const char* allow = nullptr, const char* deny = nullptr,
                     int32_t host_fallback = 0) {
        opkit_init_options o;
        std::memset(&o, 0, sizeof o);
        o.struct_size = sizeof o;
        o.vendor_path = path.c_str();
        o.vendors = allow;
        o.vendors_disable = deny;
        o.host_fallback = host_fallback;
        o.log_level = OPKIT_LOG_OFF;
        opkit_shutdown();
        const opkit_status s = opkit_init(&o);
        INFO(opkit_last_error_message());
        REQUIRE(s == OPKIT_OK);
        for (int32_t i = 0; i < opkit_vendor_count(); ++i) {
            opkit_vendor_info vi;
            std::memset(&vi, 0, sizeof vi);
            vi.struct_size = sizeof vi;
            REQUIRE(opkit_vendor_get_info(i, &vi) == OPKIT_OK);
            Info in{vi.state, vi.detail, vi.path, vi.op_count, vi.device_type};
            vendors[vi.name] = in;
            all.emplace_back(vi.name, in);
        }
    }
    ~Session() { opkit_shutdown(); }
};

std::string resolve(const char* op, int32_t device = OPKIT_DEVICE_CPU) {
    const char* who = nullptr;
    if (opkit_op_resolve(op, device, &who) != OPKIT_OK) return "<unsupported>";
    return who;
}

std::string marker_path() {
    static std::string p = "/tmp/opkit_fake_marker_" + std::to_string(getpid());
    return p;
}

std::string read_marker() {
    std::ifstream f(marker_path());
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

// Softmax rows through the API, compared with a float64 computation.
bool softmax_ok(int64_t rows, int64_t n, opkit_device dev = {OPKIT_DEVICE_CPU, 0}) {
    std::mt19937 rng(7);
    test::HostTensor x(test::DT::f32, {rows, n}), y(test::DT::f32, {rows, n});
    x.fill_random(rng);
    y.poison();
    opkit_tensor tx = *x.ct(), ty = *y.ct();
    void *dx = nullptr, *dy = nullptr;
    const size_t bytes = size_t(rows * n) * 4;
    if (dev.device_type != OPKIT_DEVICE_CPU) {  // through device memory
        const opkit_device cpu{OPKIT_DEVICE_CPU, 0};
        if (opkit_malloc(dev, bytes, &dx) || opkit_malloc(dev, bytes, &dy)) return false;
        if (opkit_memcpy(dx, dev, tx.data, cpu, bytes, nullptr)) return false;
        tx.data = dx, ty.data = dy;
        tx.device = ty.device = dev;
    }
    const opkit_status s = opkit_softmax_forward(&tx, &ty, nullptr);
    if (dev.device_type != OPKIT_DEVICE_CPU) {
        opkit_memcpy(y.t()->data, {OPKIT_DEVICE_CPU, 0}, dy, dev, bytes, nullptr);
        opkit_synchronize(dev, nullptr);
        opkit_free(dev, dx);
        opkit_free(dev, dy);
    }
    if (s != OPKIT_OK) return false;
    const std::vector<double> xv = x.values(), yv = y.values();
    for (int64_t r = 0; r < rows; ++r) {
        double m = -1e300, sum = 0;
        for (int64_t i = 0; i < n; ++i) m = std::max(m, xv[size_t(r * n + i)]);
        for (int64_t i = 0; i < n; ++i) sum += std::exp(xv[size_t(r * n + i)] - m);
        for (int64_t i = 0; i < n; ++i)
            if (std::fabs(yv[size_t(r * n + i)] - std::exp(xv[size_t(r * n + i)] - m) / sum) > 1e-5) return false;
    }
    return true;
}

int calls_of(const char* variant, const char* name) {
    void* h = dlopen(file(variant, name).c_str(), RTLD_NOW | RTLD_NOLOAD);
    if (!h) return -1;
    auto fn = reinterpret_cast<int (*)()>(dlsym(h, "fake_vendor_calls"));
    const int n = fn ? fn() : -1;
    dlclose(h);
    return n;
}

std::string make_temp_dir() {
    char tmpl[] = "/tmp/opkit_loader_XXXXXX";
    REQUIRE(mkdtemp(tmpl) != nullptr);
    return tmpl;
}

void copy_file(const std::string& from, const std::string& to) {
    std::ifstream in(from, std::ios::binary);
    std::ofstream out(to, std::ios::binary);
    out << in.rdbuf();
}

}  // namespace

TEST_CASE("a CPU vendor exporting a subset overrides only that subset") {
    Session s(dir("subset"));
    REQUIRE(s.vendors.count("subset"));
    CHECK(s.vendors["subset"].state == OPKIT_VENDOR_READY);
    CHECK(s.vendors["subset"].op_count == 2);
    CHECK(resolve("softmax_forward") == "subset");
    CHECK(resolve("axpy") == "subset");
    CHECK(resolve("rms_norm_forward") == "default");
    CHECK(resolve("matmul") == "default");
    const int before = calls_of("subset", "subset");
    CHECK(softmax_ok(3, 10));
    CHECK(calls_of("subset", "subset") == before + 1);  // the call really reached it
}

TEST_CASE("declined calls fall through to the default with correct results") {
    Session s(dir("decliner"));
    REQUIRE(s.vendors["decliner"].state == OPKIT_VENDOR_READY);
    const int before = calls_of("decliner", "decliner");
    CHECK(softmax_ok(2, 8));   // even: served by the vendor
    CHECK(calls_of("decliner", "decliner") == before + 1);
    CHECK(softmax_ok(2, 7));   // odd: declined, the default serves it
    CHECK(calls_of("decliner", "decliner") == before + 1);
}

TEST_CASE("a vendor op that throws or returns a bogus status is contained") {
    Session s(dir("decliner"));
    REQUIRE(s.vendors["decliner"].state == OPKIT_VENDOR_READY);
    test::HostTensor x(test::DT::f32, {2, 14}), y(test::DT::f32, {2, 14});
    std::mt19937 rng(5);
    x.fill_random(rng);
    y.poison();
    CHECK(opkit_softmax_forward(x.ct(), y.t(), nullptr) == OPKIT_ERROR_VENDOR);
    std::string msg = opkit_last_error_message();
    CHECK(msg.find("vendor bug") != std::string::npos);
    CHECK(msg.find("decliner") != std::string::npos);
    test::HostTensor x16(test::DT::f32, {2, 16}), y16(test::DT::f32, {2, 16});
    x16.fill_random(rng);
    CHECK(opkit_softmax_forward(x16.ct(), y16.t(), nullptr) == OPKIT_ERROR_VENDOR);
    msg = opkit_last_error_message();
    CHECK(msg.find("unknown status 42") != std::string::npos);
    CHECK(softmax_ok(3, 8));  // and the library keeps working
}

TEST_CASE("a wrong ABI major is incompatible and its init never runs") {
    setenv("FAKE_VENDOR_MARKER", marker_path().c_str(), 1);
    std::remove(marker_path().c_str());
    Session s(dir("wrong_abi"));
    REQUIRE(s.vendors.count("wrongabi"));
    CHECK(s.vendors["wrongabi"].state == OPKIT_VENDOR_INCOMPATIBLE);
    CHECK(s.vendors["wrongabi"].detail.find("built for vendor ABI 99.0") != std::string::npos);
    CHECK(read_marker().find("wrongabi init") == std::string::npos);
    unsetenv("FAKE_VENDOR_MARKER");
}

TEST_CASE("missing init - failing init - throwing init - unresolved symbol") {
    Session s(dir("no_init") + ":" + dir("init_fails") + ":" + dir("init_throws") + ":" + dir("unresolved"));
    CHECK(s.vendors["noinit"].state == OPKIT_VENDOR_INCOMPATIBLE);
    CHECK(s.vendors["noinit"].detail.find("opkit_vendor_init") != std::string::npos);
    CHECK(s.vendors["initfail"].state == OPKIT_VENDOR_INIT_FAILED);
    CHECK(s.vendors["initfail"].detail.find("OPKIT_ERROR_DEVICE") != std::string::npos);
    CHECK(s.vendors["initfail"].detail.find("on fire") != std::string::npos);
    CHECK(s.vendors["throws"].state == OPKIT_VENDOR_INIT_FAILED);
    CHECK(s.vendors["throws"].detail.find("boom") != std::string::npos);
    CHECK(s.vendors["unresolved"].state == OPKIT_VENDOR_LOAD_FAILED);
    CHECK(s.vendors["unresolved"].detail.find("fake_vendor_symbol_nobody_defines") != std::string::npos);
    // None of them serves anything; the defaults still do.
    CHECK(resolve("softmax_forward") == "default");
    CHECK(softmax_ok(4, 33));
}

TEST_CASE("duplicate names: the first found wins and the rest are disabled") {
    Session s(dir("dup_a") + ":" + dir("dup_b"));
    int ready = 0, disabled = 0;
    for (auto& [name, info] : s.all) {
        if (name != "dup") continue;
        if (info.state == OPKIT_VENDOR_READY) {
            ++ready;
            CHECK(info.path.find("/dup_a/") != std::string::npos);
        }
        if (info.state == OPKIT_VENDOR_DISABLED) {
            ++disabled;
            CHECK(info.detail.find("duplicate") != std::string::npos);
            CHECK(info.detail.find("dup_a") != std::string::npos);
        }
    }
    CHECK(ready == 1);
    CHECK(disabled == 1);
}

TEST_CASE("files not named libopkit_vendor_*.so are ignored") {
    Session s(dir("misnamed") + ":" + dir("misnamed") + "/libnot_a_vendor.so");
    CHECK(s.vendors.count("misnamed") == 0);
    CHECK(s.vendors.count("not_a_vendor") == 0);
}

TEST_CASE("a world-writable directory is refused before dlopen") {
    const std::string tmp = make_temp_dir();
    copy_file(file("subset", "subset"), tmp + "/libopkit_vendor_subset.so");
    chmod(tmp.c_str(), 0777);
    {
        Session s(tmp);
        REQUIRE(s.vendors.count("subset"));
        CHECK(s.vendors["subset"].state == OPKIT_VENDOR_LOAD_FAILED);
        CHECK(s.vendors["subset"].detail.find("writable by every user") != std::string::npos);
        CHECK(resolve("softmax_forward") == "default");
    }
    chmod(tmp.c_str(), 0755);  // the same file in a safe directory loads
    {
        Session s(tmp);
        CHECK(s.vendors["subset"].state == OPKIT_VENDOR_READY);
    }
    std::remove((tmp + "/libopkit_vendor_subset.so").c_str());
    rmdir(tmp.c_str());
}

TEST_CASE("OPKIT_VENDORS orders and filters - OPKIT_VENDORS_DISABLE disables") {
    const std::string both = dir("subset") + ":" + dir("decliner");
    {
        Session s(both, "decliner,subset");  // decliner first
        CHECK(resolve("softmax_forward") == "decliner");
        CHECK(resolve("axpy") == "decliner");
    }
    {
        Session s(both, "subset,decliner");
        CHECK(resolve("softmax_forward") == "subset");
    }
    {
        Session s(both, "subset");
        CHECK(s.vendors["decliner"].state == OPKIT_VENDOR_DISABLED);
        CHECK(s.vendors["decliner"].detail.find("OPKIT_VENDORS") != std::string::npos);
    }
    {
        Session s(both, nullptr, "subset");
        CHECK(s.vendors["subset"].state == OPKIT_VENDOR_DISABLED);
        CHECK(s.vendors["subset"].detail.find("OPKIT_VENDORS_DISABLE") != std::string::npos);
        CHECK(resolve("softmax_forward") == "decliner");
    }
}

TEST_CASE("the environment configures the loader when no options are given") {
    setenv("OPKIT_VENDOR_PATH", dir("subset").c_str(), 1);
    setenv("OPKIT_VENDORS_DISABLE", "subset", 1);
    opkit_shutdown();
    REQUIRE(opkit_init(nullptr) == OPKIT_OK);
    bool seen = false;
    for (int32_t i = 0; i < opkit_vendor_count(); ++i) {
        opkit_vendor_info vi;
        std::memset(&vi, 0, sizeof vi);
        vi.struct_size = sizeof vi;
        REQUIRE(opkit_vendor_get_info(i, &vi) == OPKIT_OK);
        if (std::string(vi.name) != "subset") continue;
        seen = true;
        CHECK(vi.state == OPKIT_VENDOR_DISABLED);
    }
    CHECK(seen);
    opkit_shutdown();
    unsetenv("OPKIT_VENDOR_PATH");
    unsetenv("OPKIT_VENDORS_DISABLE");
}

TEST_CASE("a pretend accelerator: unexported ops fail without host fallback and work with it") {
    const opkit_device accel{16, 0};
    {
        Session s(dir("accel"));
        REQUIRE(s.vendors["accel"].state == OPKIT_VENDOR_READY);
        CHECK(opkit_device_count(16) == 1);
        CHECK(resolve("softmax_forward", 16) == "accel");
        CHECK(resolve("rms_norm_forward", 16) == "<unsupported>");
        CHECK(softmax_ok(3, 9, accel));  // exported: runs in the vendor on "device" memory
        // rms_norm is not exported and host fallback is off
        std::vector<float> host(12, 0.5f);
        void* d = nullptr;
        REQUIRE(opkit_malloc(accel, 48, &d) == OPKIT_OK);
        int64_t shape[2] = {3, 4};
        opkit_tensor t{d, accel, 2, {OPKIT_DTYPE_FLOAT, 32, 1}, shape, nullptr, 0};
        CHECK(opkit_rms_norm_forward(&t, nullptr, 1e-6f, 0.f, &t, nullptr, nullptr) == OPKIT_ERROR_UNSUPPORTED);
        const std::string msg = opkit_last_error_message();
        CHECK(msg.find("rms_norm_forward") != std::string::npos);
        CHECK(msg.find("device type 16") != std::string::npos);
        CHECK(msg.find("accel") != std::string::npos);
        opkit_free(accel, d);
    }
    {
        Session s(dir("accel"), nullptr, nullptr, /*host_fallback=*/1);
        CHECK(resolve("rms_norm_forward", 16) == "host-fallback");
        std::mt19937 rng(3);
        test::HostTensor x(test::DT::f32, {5, 17}), y(test::DT::f32, {5, 17}), w(test::DT::f32, {17});
        x.fill_random(rng);
        w.fill_random(rng);
        // reference on the CPU defaults
        const opkit_status ref = opkit_rms_norm_forward(x.ct(), w.ct(), 1e-6f, 0.f, y.t(), nullptr, nullptr);
        INFO(opkit_last_error_message());
        REQUIRE(ref == OPKIT_OK);
        const std::vector<double> want = y.values();
        // the same on the accelerator, through host fallback
        const opkit_device cpu{OPKIT_DEVICE_CPU, 0};
        void *dx, *dw, *dy;
        REQUIRE(opkit_malloc(accel, 5 * 17 * 4, &dx) == OPKIT_OK);
        REQUIRE(opkit_malloc(accel, 17 * 4, &dw) == OPKIT_OK);
        REQUIRE(opkit_malloc(accel, 5 * 17 * 4, &dy) == OPKIT_OK);
        REQUIRE(opkit_memcpy(dx, accel, x.ct()->data, cpu, 5 * 17 * 4, nullptr) == OPKIT_OK);
        REQUIRE(opkit_memcpy(dw, accel, w.ct()->data, cpu, 17 * 4, nullptr) == OPKIT_OK);
        opkit_tensor tx = *x.ct(), tw = *w.ct(), ty = *y.ct();
        tx.data = dx, tw.data = dw, ty.data = dy;
        tx.device = tw.device = ty.device = accel;
        REQUIRE(opkit_rms_norm_forward(&tx, &tw, 1e-6f, 0.f, &ty, nullptr, nullptr) == OPKIT_OK);
        y.poison();
        REQUIRE(opkit_memcpy(y.t()->data, cpu, dy, accel, 5 * 17 * 4, nullptr) == OPKIT_OK);
        CHECK(test::rel_error(y.values(), want) < 1e-6);
        opkit_free(accel, dx), opkit_free(accel, dw), opkit_free(accel, dy);
    }
}

TEST_CASE("shutdown calls each vendor's shutdown - and init works again") {
    setenv("FAKE_VENDOR_MARKER", marker_path().c_str(), 1);
    std::remove(marker_path().c_str());
    for (int round = 0; round < 3; ++round) {
        Session s(dir("subset"));
        CHECK(s.vendors["subset"].state == OPKIT_VENDOR_READY);
        CHECK(softmax_ok(2, 6));
    }
    const std::string log = read_marker();
    size_t inits = 0, shutdowns = 0;
    for (size_t p = 0; (p = log.find("subset init", p)) != std::string::npos; ++p) ++inits;
    for (size_t p = 0; (p = log.find("subset shutdown", p)) != std::string::npos; ++p) ++shutdowns;
    CHECK(inits == 3);
    CHECK(shutdowns == 3);
    unsetenv("FAKE_VENDOR_MARKER");
}
