// The loader, through the public API, against real fake-vendor .so files built by
// tests/fake_vendor: states and reasons of every broken variant, routing of overridden
// and declined ops, allow/deny lists, duplicates, refused directories, a pretend
// accelerator with and without host fallback, and shutdown/re-init; the permission rule
// (DESIGN §4 [2], docs/security.md) on real files and directories under /tmp.
#include "host_tensor.h"
#include "opkit.h"

#include <catch2/catch.hpp>

#include <dlfcn.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
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

// ---- permission rule helpers -------------------------------------------------------

// The uid the permission tests give away files to (Debian's `nobody`).
constexpr uid_t kForeignUid = 65534;

// A directory tree under /tmp (itself root-owned, world-writable and sticky: it passes),
// removed with everything in it at the end of the test. mkdtemp makes the root 0700;
// every mode below it is set explicitly, so the test does not depend on the umask.
struct TempTree {
    std::string root = make_temp_dir();
    ~TempTree() {
        std::error_code ec;
        std::filesystem::remove_all(root, ec);
    }
    // mkdir -p of root/rel with `mode` on the last component (parents 0755).
    std::string mkdir(const std::string& rel, mode_t mode = 0755) {
        std::string p = root;
        size_t start = 0;
        while (start <= rel.size()) {
            size_t end = rel.find('/', start);
            if (end == std::string::npos) end = rel.size();
            p += "/" + rel.substr(start, end - start);
            ::mkdir(p.c_str(), 0755);
            REQUIRE(chmod(p.c_str(), end == rel.size() ? mode : 0755) == 0);
            start = end + 1;
        }
        return p;
    }
    // A copy of the fake "subset" vendor in root/rel with the given mode.
    std::string vendor(const std::string& rel, mode_t mode = 0644) {
        const std::string p = root + "/" + rel + "/libopkit_vendor_subset.so";
        copy_file(file("subset", "subset"), p);
        REQUIRE(chmod(p.c_str(), mode) == 0);
        return p;
    }
};

// Whether `path` is mapped into this process (dlopen RTLD_NOLOAD maps nothing, but
// it does open the file: only asked of regular files, since opening a fifo blocks).
bool is_loaded(const std::string& path) {
    struct stat st{};
    if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
    void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
    if (h) dlclose(h);
    return h != nullptr;
}

// The owners the rule accepts, as the refusal messages write them.
std::string trusted_owners() {
    return geteuid() == 0 ? "root" : "root or uid " + std::to_string(geteuid());
}

// Loads `location` alone and expects the "subset" vendor refused before dlopen, with a
// reason that contains each of `parts`; nothing of it serves and nothing of it is mapped.
void expect_refused(const std::string& location, const std::vector<std::string>& parts) {
    Session s(location);
    REQUIRE(s.vendors.count("subset"));
    const Info& v = s.vendors["subset"];
    INFO("detail: " << v.detail);
    CHECK(v.state == OPKIT_VENDOR_LOAD_FAILED);
    for (const std::string& part : parts) CHECK(v.detail.find(part) != std::string::npos);
    CHECK(resolve("softmax_forward") == "default");
    CHECK_FALSE(is_loaded(v.path));
}

void expect_ready(const std::string& location) {
    Session s(location);
    REQUIRE(s.vendors.count("subset"));
    INFO("detail: " << s.vendors["subset"].detail);
    CHECK(s.vendors["subset"].state == OPKIT_VENDOR_READY);
    CHECK(resolve("softmax_forward") == "subset");
}

// Catch2 v2 has no SKIP: a case that cannot run here says so the way the GPU tests do
// ("SKIPPED: ..." as a warning, always printed) and returns.
bool root_or_skip() {
    if (geteuid() == 0) return true;
    WARN("SKIPPED: needs root to give a file to uid " << kForeignUid << " (running as uid " << geteuid() << ")");
    return false;
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
    chmod((tmp + "/libopkit_vendor_subset.so").c_str(), 0644);  // whatever the umask
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

TEST_CASE("permissions: the fake vendors' build tree itself passes the rule") {
    // Every other case loads from the build tree; this one says why they all fail when
    // the tree was made group-writable (umask 002) or sits under such a directory.
    Session s(dir("subset"));
    REQUIRE(s.vendors.count("subset"));
    INFO("detail: " << s.vendors["subset"].detail);
    INFO("the loader refuses vendors in a build tree writable by others: build with umask 022 "
         "or chmod go-w the tree and the directories above it (docs/security.md)");
    CHECK(s.vendors["subset"].state == OPKIT_VENDOR_READY);
}

TEST_CASE("permissions: 0755 directories and a 0644 or 0755 file owned by us load") {
    TempTree t;
    t.mkdir("opt/vendors", 0755);
    const std::string f = t.vendor("opt/vendors", 0644);
    expect_ready(t.root + "/opt/vendors");
    REQUIRE(chmod(f.c_str(), 0755) == 0);
    expect_ready(t.root + "/opt/vendors");
    expect_ready(f);  // listed as a file
    REQUIRE(chmod(f.c_str(), 0500) == 0);  // read-only for everyone else is fine too
    expect_ready(t.root + "/opt/vendors");
}

TEST_CASE("permissions: a group-writable or world-writable vendor file is refused") {
    TempTree t;
    const std::string d = t.mkdir("vendors", 0755);
    const std::string f = t.vendor("vendors", 0664);
    expect_refused(d, {"refused: " + f + " is group-writable (mode 0664); a vendor file and every directory "
                       "above it must be writable only by its owner (" + trusted_owners() + ")"});
    {  // the message ends there: a file has no sticky-bit way out
        Session s(d);
        CHECK(s.vendors["subset"].detail.find("sticky") == std::string::npos);
    }
    REQUIRE(chmod(f.c_str(), 0646) == 0);
    expect_refused(d, {f + " is writable by every user (mode 0646)"});
    REQUIRE(chmod(f.c_str(), 0666) == 0);
    expect_refused(f, {f + " is group-writable and writable by every user (mode 0666)"});
    REQUIRE(chmod(f.c_str(), 0644) == 0);
    expect_ready(d);
}

TEST_CASE("permissions: a group-writable vendor directory is refused") {
    TempTree t;
    const std::string d = t.mkdir("opt/x/vendors", 0775);
    t.vendor("opt/x/vendors");
    const std::string rule = "; a vendor file and every directory above it must be writable only by its owner (" +
                             trusted_owners() + "), or carry the sticky bit like /tmp";
    expect_refused(d, {"refused: " + d + " is group-writable (mode 0775)" + rule});
    REQUIRE(chmod(d.c_str(), 0757) == 0);
    expect_refused(d, {"refused: " + d + " is writable by every user (mode 0757)" + rule});
    REQUIRE(chmod(d.c_str(), 0755) == 0);
    expect_ready(d);
}

TEST_CASE("permissions: a writable parent or grandparent directory is refused") {
    TempTree t;
    const std::string d = t.mkdir("opt/x/vendors", 0755);
    t.vendor("opt/x/vendors");
    const std::string parent = t.root + "/opt/x", grandparent = t.root + "/opt";
    REQUIRE(chmod(parent.c_str(), 0775) == 0);
    expect_refused(d, {"refused: " + parent + " is group-writable (mode 0775)"});
    REQUIRE(chmod(parent.c_str(), 0755) == 0);
    REQUIRE(chmod(grandparent.c_str(), 0777) == 0);
    expect_refused(d, {"refused: " + grandparent + " is group-writable and writable by every user (mode 0777)"});
    REQUIRE(chmod(grandparent.c_str(), 0755) == 0);
    REQUIRE(chmod(t.root.c_str(), 0770) == 0);  // the temp root, our own top directory
    expect_refused(d, {"refused: " + t.root + " is group-writable (mode 0770)"});
    REQUIRE(chmod(t.root.c_str(), 0700) == 0);
    expect_ready(d);
}

TEST_CASE("permissions: a world-writable directory with the sticky bit passes (like /tmp)") {
    TempTree t;
    const std::string shared = t.mkdir("shared", 01777);
    t.vendor("shared");
    expect_ready(shared);
    REQUIRE(chmod(shared.c_str(), 01775) == 0);  // group-writable and sticky: same reasoning
    expect_ready(shared);
    const std::string below = t.mkdir("shared/mine", 0755);  // a private directory inside it
    t.vendor("shared/mine");
    expect_ready(below);
    REQUIRE(chmod(shared.c_str(), 0777) == 0);  // without the sticky bit: refused
    expect_refused(below, {"refused: " + shared + " is group-writable and writable by every user (mode 0777)"});
}

TEST_CASE("permissions: a file or directory owned by another user is refused (root only)") {
    if (!root_or_skip()) return;
    TempTree t;
    const std::string d = t.mkdir("vendors", 0755);
    const std::string f = t.vendor("vendors");
    REQUIRE(chown(f.c_str(), kForeignUid, kForeignUid) == 0);
    expect_refused(d, {"refused: " + f + " is owned by uid 65534; a vendor file and every directory above it "
                       "must be owned by root"});
    REQUIRE(chown(f.c_str(), 0, 0) == 0);
    expect_ready(d);
    REQUIRE(chown(d.c_str(), kForeignUid, kForeignUid) == 0);  // 0755 but not ours
    expect_refused(d, {"refused: " + d + " is owned by uid 65534"});
    REQUIRE(chown(d.c_str(), 0, 0) == 0);
    // Even in a sticky world-writable directory, another user's file is not ours.
    const std::string shared = t.mkdir("shared", 01777);
    const std::string g = t.vendor("shared");
    REQUIRE(chown(g.c_str(), kForeignUid, kForeignUid) == 0);
    expect_refused(shared, {"refused: " + g + " is owned by uid 65534"});
}

TEST_CASE("permissions: symbolic links are followed and checked where they lead") {
    TempTree t;
    const std::string safe = t.mkdir("safe", 0755);
    const std::string real = t.vendor("safe");
    // A link to a file in a safe directory loads (as the link's path).
    const std::string links = t.mkdir("links", 0755);
    REQUIRE(symlink(real.c_str(), (links + "/libopkit_vendor_subset.so").c_str()) == 0);
    expect_ready(links);
    // A link in a safe directory to a file in a group-writable one: refused, naming the
    // real directory (what dlopen would map).
    const std::string open_dir = t.mkdir("open", 0775);
    t.vendor("open");
    const std::string links2 = t.mkdir("links2", 0755);
    REQUIRE(symlink((open_dir + "/libopkit_vendor_subset.so").c_str(), (links2 + "/libopkit_vendor_subset.so").c_str()) == 0);
    expect_refused(links2, {"refused: " + open_dir + " is group-writable (mode 0775)"});
    // The listed directory itself a link to a group-writable directory: refused too.
    const std::string dirlink = t.root + "/dirlink";
    REQUIRE(symlink(open_dir.c_str(), dirlink.c_str()) == 0);
    expect_refused(dirlink, {"refused: " + open_dir + " is group-writable (mode 0775)"});
    // A link to a safe directory under a group-writable listed path: the path as listed
    // is checked too, not only where it leads.
    const std::string upper = t.mkdir("upper", 0775);
    REQUIRE(symlink(safe.c_str(), (upper + "/vendors").c_str()) == 0);
    expect_refused(upper + "/vendors", {"refused: " + upper + " is group-writable (mode 0775)"});
    // A symlink loop and a dangling link: not resolvable, never handed to dlopen.
    const std::string loop = t.mkdir("loop", 0755);
    REQUIRE(symlink("libopkit_vendor_subset.so", (loop + "/libopkit_vendor_subset.so").c_str()) == 0);
    expect_refused(loop, {"cannot resolve " + loop + "/libopkit_vendor_subset.so: Too many levels of symbolic links"});
    const std::string dangling = t.mkdir("dangling", 0755);
    REQUIRE(symlink("/nonexistent-opkit/libopkit_vendor_subset.so", (dangling + "/libopkit_vendor_subset.so").c_str()) == 0);
    expect_refused(dangling, {"cannot resolve " + dangling + "/libopkit_vendor_subset.so: No such file or directory"});
}

TEST_CASE("permissions: a symbolic link owned by another user is refused (root only)") {
    if (!root_or_skip()) return;
    TempTree t;
    t.mkdir("safe", 0755);
    const std::string real = t.vendor("safe");  // root's, in a safe directory
    // Planted by someone else in a sticky directory, pointing at a trusted file: the link
    // decides what is loaded, so its owner counts.
    const std::string shared = t.mkdir("shared", 01777);
    const std::string link = shared + "/libopkit_vendor_subset.so";
    REQUIRE(symlink(real.c_str(), link.c_str()) == 0);
    REQUIRE(lchown(link.c_str(), kForeignUid, kForeignUid) == 0);
    expect_refused(shared, {"refused: " + link + " is a symbolic link owned by uid 65534; a symbolic link on the "
                            "way to a vendor file must be owned by root"});
    REQUIRE(lchown(link.c_str(), 0, 0) == 0);
    expect_ready(shared);
}

TEST_CASE("permissions: a fifo or a directory named like a vendor is refused without opening it") {
    TempTree t;
    const std::string d = t.mkdir("vendors", 0755);
    REQUIRE(mkfifo((d + "/libopkit_vendor_subset.so").c_str(), 0644) == 0);  // dlopen would block on it
    expect_refused(d, {"refused: " + d + "/libopkit_vendor_subset.so is a fifo, not a regular file"});
    const std::string d2 = t.mkdir("vendors2", 0755);
    t.mkdir("vendors2/libopkit_vendor_subset.so", 0755);
    expect_refused(d2, {"refused: " + d2 + "/libopkit_vendor_subset.so is a directory, not a regular file"});
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

TEST_CASE("a vendor malloc that succeeds with NULL is refused as a vendor error") {
    const opkit_device accel{16, 0};
    Session s(dir("accel"));
    REQUIRE(s.vendors["accel"].state == OPKIT_VENDOR_READY);
    void* p = reinterpret_cast<void*>(0x1);
    CHECK(opkit_malloc(accel, 13, &p) == OPKIT_ERROR_VENDOR);  // the fake's bug, on request
    CHECK(p == reinterpret_cast<void*>(0x1));                // nothing written
    CHECK(std::string(opkit_last_error_message()).find("returned NULL for 13 bytes") != std::string::npos);
    REQUIRE(opkit_malloc(accel, 12, &p) == OPKIT_OK);
    CHECK(p != nullptr);
    CHECK(opkit_free(accel, p) == OPKIT_OK);
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

namespace {

// A host tensor's twin in the pretend accelerator's memory (device type 16).
struct OnAccel {
    test::HostTensor& host;
    opkit_tensor t;
    void* ptr = nullptr;
    size_t bytes;
    explicit OnAccel(test::HostTensor& h) : host(h), t(*h.ct()), bytes(h.bytes().size()) {
        REQUIRE(opkit_malloc({16, 0}, bytes, &ptr) == OPKIT_OK);
        REQUIRE(opkit_memcpy(ptr, {16, 0}, h.ct()->data, {OPKIT_DEVICE_CPU, 0}, bytes, nullptr) == OPKIT_OK);
        t.data = ptr;
        t.device = {16, 0};
    }
    ~OnAccel() { opkit_free({16, 0}, ptr); }
    // The accelerator's bytes back into the host tensor.
    void download() {
        REQUIRE(opkit_memcpy(host.t()->data, {OPKIT_DEVICE_CPU, 0}, ptr, {16, 0}, bytes, nullptr) == OPKIT_OK);
    }
};

struct Dispatch {
    std::string op, served_by, first_declined_by;
    int32_t declined = -1;
    opkit_status status = -1;
};
Dispatch last_dispatch() {
    opkit_dispatch_info info;
    std::memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    REQUIRE(opkit_last_dispatch(&info) == OPKIT_OK);
    return {info.op, info.served_by, info.first_declined_by, info.declined, info.status};
}

// rope_qk (forward or backward) of q [2,3,Hq,8] and k [2,3,Hk,8] on the accelerator, then
// the same on the CPU defaults: the status, and whether the accelerator's outputs match.
struct QKRun {
    opkit_status status;
    bool matches;  // the CPU defaults' result (within 1e-5)
    bool untouched;  // the outputs kept their poison
    std::string message;  // opkit_last_error_message() after the accelerator's call
};
QKRun rope_qk_on_accel(test::DT dt, int64_t Hq, int64_t Hk, bool backward) {
    std::mt19937 rng(11);
    test::HostTensor q(dt, {2, 3, Hq, 8}), k(dt, {2, 3, Hk, 8}), cos(dt, {3, 8}), sin(dt, {3, 8});
    test::HostTensor qo(dt, {2, 3, Hq, 8}), ko(dt, {2, 3, Hk, 8}), rq(dt, {2, 3, Hq, 8}), rk(dt, {2, 3, Hk, 8});
    for (test::HostTensor* t : {&q, &k, &cos, &sin}) t->fill_random(rng);
    for (test::HostTensor* t : {&qo, &ko, &rq, &rk}) t->poison();
    OnAccel dq(q), dk(k), dc(cos), ds(sin), dqo(qo), dko(ko);
    auto call = [&](const opkit_tensor* a, const opkit_tensor* b, const opkit_tensor* c, const opkit_tensor* s,
                    opkit_tensor* o1, opkit_tensor* o2) {
        return backward ? opkit_rope_qk_backward(a, b, c, s, o1, o2, nullptr)
                        : opkit_rope_qk_forward(a, b, c, s, o1, o2, nullptr);
    };
    QKRun r{};
    r.status = call(&dq.t, &dk.t, &dc.t, &ds.t, &dqo.t, &dko.t);
    r.message = opkit_last_error_message();
    dqo.download();
    dko.download();
    r.untouched = qo.bytes() == rq.bytes() && ko.bytes() == rk.bytes();
    REQUIRE(call(q.ct(), k.ct(), cos.ct(), sin.ct(), rq.t(), rk.t()) == OPKIT_OK);
    r.matches = test::all_finite(qo.values()) && test::all_finite(ko.values()) &&
                test::rel_error(qo.values(), rq.values()) < 1e-5 && test::rel_error(ko.values(), rk.values()) < 1e-5;
    // leave the accelerator call's record (opkit_last_dispatch) for the caller: repeat it
    OnAccel eq(q), ek(k), ec(cos), es(sin), eqo(qo), eko(ko);
    CHECK(call(&eq.t, &ek.t, &ec.t, &es.t, &eqo.t, &eko.t) == r.status);
    return r;
}

}  // namespace

TEST_CASE("rope_qk on a vendor with rope but no rope_qk: the composite default serves it on the device") {
    using test::DT;
    {
        Session s(dir("rope_accel"));
        REQUIRE(s.vendors["ropeaccel"].state == OPKIT_VENDOR_READY);
        // the vendor's rope ops and the composite through them
        CHECK(resolve("rope_forward", 16) == "ropeaccel");
        CHECK(resolve("rope_qk_forward", 16) == "ropeaccel");
        CHECK(resolve("rope_qk_backward", 16) == "ropeaccel");
        CHECK(resolve("rms_norm_forward", 16) == "<unsupported>");
        for (bool backward : {false, true}) {
            INFO("backward " << backward);
            const int before = calls_of("rope_accel", "ropeaccel");
            const QKRun r = rope_qk_on_accel(DT::f32, 4, 2, backward);
            CHECK(r.status == OPKIT_OK);
            CHECK(r.matches);
            // two component calls, made twice (rope_qk_on_accel repeats the call)
            CHECK(calls_of("rope_accel", "ropeaccel") - before == 4);
            const Dispatch d = last_dispatch();
            CHECK(d.op == (backward ? "rope_qk_backward" : "rope_qk_forward"));  // the op called
            CHECK(d.served_by == "ropeaccel");
            CHECK(d.declined == 0);
            CHECK(d.status == OPKIT_OK);
        }
        // zero heads on one side: the components still both go to the vendor
        const int before = calls_of("rope_accel", "ropeaccel");
        CHECK(rope_qk_on_accel(DT::f32, 0, 3, false).status == OPKIT_OK);
        CHECK(calls_of("rope_accel", "ropeaccel") - before == 4);

        // the vendor declines the first component (f16): nothing served, nothing written,
        // the error and the record are rope_qk's as before the composite
        {
            const int before2 = calls_of("rope_accel", "ropeaccel");
            const QKRun r = rope_qk_on_accel(DT::f16, 4, 2, false);
            CHECK(r.status == OPKIT_ERROR_UNSUPPORTED);
            CHECK(r.untouched);
            const std::string& msg = r.message;
            CHECK(msg.find("rope_qk_forward on device type 16") == 0);
            CHECK(msg.find("declined on purpose") != std::string::npos);
            CHECK(msg.find("OPKIT_HOST_FALLBACK=1") != std::string::npos);
            CHECK(calls_of("rope_accel", "ropeaccel") == before2);
            const Dispatch d = last_dispatch();
            CHECK(d.op == "rope_qk_forward");
            CHECK(d.served_by == "");
            CHECK(d.declined == 1);
            CHECK(d.first_declined_by == "ropeaccel");
            CHECK(d.status == OPKIT_ERROR_UNSUPPORTED);
        }
        // ... or only the second (k with 5 heads): q_out is written, the call fails naming
        // rope_qk_backward and the component nobody served
        {
            const QKRun r = rope_qk_on_accel(DT::f32, 4, 5, true);
            CHECK(r.status == OPKIT_ERROR_UNSUPPORTED);
            const std::string& msg = r.message;
            CHECK(msg.find("rope_qk_backward on device type 16") == 0);
            INFO(msg);
            CHECK(msg.find("declined: rope_backward: vendor ropeaccel: fake vendor: declined on purpose") != std::string::npos);
            const Dispatch d = last_dispatch();
            CHECK(d.op == "rope_qk_backward");
            CHECK(d.served_by == "");
            CHECK(d.declined == 1);
        }
    }
    {
        // with host fallback: declined components fall back; the first served by the vendor
        // and the second on the host report the host fallback
        Session s(dir("rope_accel"), nullptr, nullptr, /*host_fallback=*/1);
        const int before = calls_of("rope_accel", "ropeaccel");
        QKRun r = rope_qk_on_accel(DT::f16, 4, 2, false);  // both declined: rope_qk on the host
        CHECK(r.status == OPKIT_OK);
        CHECK(r.matches);
        CHECK(calls_of("rope_accel", "ropeaccel") == before);
        Dispatch d = last_dispatch();
        CHECK(d.op == "rope_qk_forward");
        CHECK(d.served_by == "host-fallback");
        CHECK(d.declined == 1);
        r = rope_qk_on_accel(DT::f32, 4, 5, true);  // q on the vendor, k (5 heads) on the host
        CHECK(r.status == OPKIT_OK);
        CHECK(r.matches);
        CHECK(calls_of("rope_accel", "ropeaccel") - before == 2);
        d = last_dispatch();
        CHECK(d.op == "rope_qk_backward");
        CHECK(d.served_by == "host-fallback");
        CHECK(d.declined == 1);
    }
    {
        // a vendor without rope at all (accel): no composite, the error as before
        Session s(dir("accel"));
        CHECK(resolve("rope_qk_forward", 16) == "<unsupported>");
        const QKRun r = rope_qk_on_accel(DT::f32, 2, 2, false);
        CHECK(r.status == OPKIT_ERROR_UNSUPPORTED);
        CHECK(r.untouched);
        INFO(r.message);
        CHECK(r.message.find("rope_qk_forward on device type 16:0: no vendor implements it") == 0);
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
