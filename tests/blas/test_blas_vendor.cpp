// The blas vendor (vendors/blas) through the public API, as an application sees it:
// opkit_init pointed at the vendor alone, each matmul compared with the float64
// reference under the table's tolerance and with the CPU default's result, and
// opkit_last_dispatch telling who served it (or that the vendor declined).
//
// A case that needs a real CBLAS and finds none exits 77 (ctest: skipped) with the
// vendor's reason; every case is its own ctest process (catch_discover_tests).
#include "host_tensor.h"
#include "reference.h"
#include "tolerance_check.h"

#include <catch2/catch.hpp>
#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

using test::DT;
using test::HostTensor;

namespace {

struct VendorState {
    int32_t state = -1;
    std::string detail, version;
};

// opkit initialized with the blas vendor only (or with it disabled), shut down at scope end.
struct Session {
    explicit Session(bool with_blas) {
        opkit_init_options o{};
        o.struct_size = sizeof o;
        o.vendor_path = OPKIT_BLAS_VENDOR_DIR;  // where the build tree keeps it (vendors/blas/CMakeLists.txt)
        o.vendors = with_blas ? "blas" : nullptr;
        o.vendors_disable = with_blas ? nullptr : "blas";
        o.host_fallback = -1;
        o.log_level = -1;
        REQUIRE(opkit_init(&o) == OPKIT_OK);
    }
    ~Session() { opkit_shutdown(); }
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

    VendorState blas() const {
        VendorState s;
        for (int32_t i = 0; i < opkit_vendor_count(); ++i) {
            opkit_vendor_info info{};
            info.struct_size = sizeof info;
            if (opkit_vendor_get_info(i, &info) == OPKIT_OK && std::strcmp(info.name, "blas") == 0) {
                s.state = info.state;
                s.detail = info.detail ? info.detail : "";
                s.version = info.version ? info.version : "";
            }
        }
        return s;
    }
};

// For cases that need a working CBLAS: skip (exit 77) with the reason when there is none.
void require_cblas(const Session& s) {
    const VendorState v = s.blas();
    if (v.state != OPKIT_VENDOR_READY) {
        std::printf("SKIP: the blas vendor is not READY (state %d): %s\n", int(v.state), v.detail.c_str());
        std::fflush(stdout);
        std::_Exit(77);
    }
}

opkit_dispatch_info last_dispatch() {
    opkit_dispatch_info info{};
    info.struct_size = sizeof info;
    REQUIRE(opkit_last_dispatch(&info) == OPKIT_OK);
    return info;
}

struct Case {
    int64_t batch, ba, bb, M, N, K;
    bool ta, tb;
    float alpha, beta;
    int64_t pad;  // row padding of every operand (strided views)
};

std::vector<int64_t> dims(int64_t batch, bool batched, int64_t r, int64_t c) {
    return batched ? std::vector<int64_t>{batch, r, c} : std::vector<int64_t>{r, c};
}

struct Operands {
    HostTensor a, b, c;
    std::vector<double> c0;  // c's values before the call
};

Operands make(DT dt, const Case& k, uint32_t seed) {
    const bool batched = k.batch > 1 || k.ba > 1 || k.bb > 1;
    Operands o{HostTensor(dt, dims(k.ba, batched, k.ta ? k.K : k.M, k.ta ? k.M : k.K), k.pad),
               HostTensor(dt, dims(k.bb, batched, k.tb ? k.N : k.K, k.tb ? k.K : k.N), k.pad),
               HostTensor(dt, dims(k.batch, batched, k.M, k.N), k.pad), {}};
    std::mt19937 rng(seed);
    o.a.fill_random(rng);
    o.b.fill_random(rng);
    o.c.fill_random(rng);
    o.c0 = o.c.values();
    return o;
}

std::vector<double> reference(const Operands& o, const Case& k) {
    std::vector<double> want = o.c0;
    test::ref::matmul(o.a.values(), o.b.values(), &want, k.batch, k.ba, k.bb, k.M, k.N, k.K, k.ta, k.tb, k.alpha,
                      k.beta);
    return want;
}

opkit_status run(Operands& o, const Case& k) {
    return opkit_matmul(o.a.ct(), o.b.ct(), o.c.t(), k.alpha, k.beta, k.ta, k.tb, nullptr);
}

// The case on the vendor and on the default; both within tolerance of float64, the
// vendor's call served by it, and the padding between rows untouched.
void check_case(DT dt, const Case& k, const char* want_served = "blas") {
    INFO("dtype " << test::name_of(dt) << " batch " << k.batch << "/" << k.ba << "/" << k.bb << " M " << k.M
                  << " N " << k.N << " K " << k.K << " ta " << k.ta << " tb " << k.tb << " alpha " << k.alpha
                  << " beta " << k.beta << " pad " << k.pad);
    Operands on_blas = make(dt, k, 7), on_default = make(dt, k, 7);
    const std::vector<double> want = reference(on_blas, k);
    {
        Session s(true);
        require_cblas(s);
        REQUIRE(run(on_blas, k) == OPKIT_OK);
        const opkit_dispatch_info d = last_dispatch();
        CHECK(std::string(d.served_by) == want_served);
    }
    {
        Session s(false);
        REQUIRE(run(on_default, k) == OPKIT_OK);
        CHECK(std::string(last_dispatch().served_by) == "default");
    }
    const test::ToleranceCheck vs_ref = test::check_tolerance("matmul", "c", on_blas.c, want);
    INFO(vs_ref.detail);
    CHECK(vs_ref.ok);
    const test::ToleranceCheck default_vs_ref = test::check_tolerance("matmul", "c", on_default.c, want);
    INFO(default_vs_ref.detail);
    CHECK(default_vs_ref.ok);
    // the two implementations agree with each other as closely as each with float64
    const std::vector<double> got = on_blas.c.values(), dflt = on_default.c.values();
    CHECK(test::rel_error(got, dflt, 1.0) <= (dt == DT::f32 ? 1e-4 : dt == DT::f16 ? 4e-3 : 3e-2));
    CHECK(on_blas.c.padding_intact());
}

const Case kShapes[] = {
    {1, 1, 1, 1, 1, 1, false, false, 1.0f, 0.0f, 0},
    {1, 1, 1, 7, 13, 5, false, false, 1.0f, 0.0f, 0},
    {1, 1, 1, 33, 17, 65, false, true, 0.5f, 0.0f, 0},
    {1, 1, 1, 31, 47, 19, true, false, 1.0f, 1.0f, 0},
    {1, 1, 1, 64, 96, 128, true, true, -1.5f, 0.25f, 0},
    {1, 1, 1, 129, 65, 257, false, false, 1.0f, 0.0f, 0},
    {1, 1, 1, 5, 3, 1, false, false, 1.0f, 0.0f, 0},
    {1, 1, 1, 1, 300, 7, false, true, 1.0f, 0.0f, 0},
};

}  // namespace

TEST_CASE("f32 matmul matches float64 and the CPU default, odd sizes and every transpose") {
    for (const Case& k : kShapes) check_case(DT::f32, k);
}

TEST_CASE("f32 strided operands (padded rows) are served in place") {
    for (Case k : kShapes) {
        k.pad = 3;
        check_case(DT::f32, k);
    }
}

TEST_CASE("an operand at a byte offset into its buffer") {
    Session s(true);
    require_cblas(s);
    // a [4, 6] starting 2 elements into a buffer of 26 floats, row stride 6
    std::vector<float> abuf(26), bbuf(6 * 5), cbuf(4 * 5, 0.0f);
    for (size_t i = 0; i < abuf.size(); ++i) abuf[i] = 0.25f * float(int(i % 7) - 3);
    for (size_t i = 0; i < bbuf.size(); ++i) bbuf[i] = 0.5f * float(int(i % 5) - 2);
    int64_t as[2] = {4, 6}, bs[2] = {6, 5}, cs[2] = {4, 5};
    const opkit_device cpu{OPKIT_DEVICE_CPU, 0};
    const opkit_dtype f32{OPKIT_DTYPE_FLOAT, 32, 1};
    opkit_tensor ta{abuf.data(), cpu, 2, f32, as, nullptr, 2 * sizeof(float)};
    opkit_tensor tb{bbuf.data(), cpu, 2, f32, bs, nullptr, 0};
    opkit_tensor tc{cbuf.data(), cpu, 2, f32, cs, nullptr, 0};
    REQUIRE(opkit_matmul(&ta, &tb, &tc, 1.0f, 0.0f, 0, 0, nullptr) == OPKIT_OK);
    CHECK(std::string(last_dispatch().served_by) == "blas");
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 5; ++j) {
            double want = 0;
            for (int k = 0; k < 6; ++k) want += double(abuf[size_t(2 + i * 6 + k)]) * bbuf[size_t(k * 5 + j)];
            CHECK(cbuf[size_t(i * 5 + j)] == Approx(want).margin(1e-5));
        }
}

TEST_CASE("batched 3-D, with a broadcast batch of 1 on either side, and the stacked form") {
    const Case cases[] = {
        {3, 3, 3, 9, 11, 13, false, false, 1.0f, 0.0f, 0},
        {4, 4, 1, 17, 8, 12, false, false, 1.0f, 0.5f, 0},  // b broadcasts: stacked into one sgemm
        {4, 4, 1, 17, 8, 12, false, true, 1.0f, 0.0f, 2},   // padded: batches not stackable
        {3, 1, 3, 6, 10, 7, true, false, 2.0f, 0.0f, 0},    // a broadcasts
        {2, 2, 2, 1, 5, 3, true, true, 1.0f, 1.0f, 1},
    };
    for (const Case& k : cases) check_case(DT::f32, k);
}

TEST_CASE("bf16 and f16 through fp32, every transpose, strided and batched") {
    const Case cases[] = {
        {1, 1, 1, 7, 13, 5, false, false, 1.0f, 0.0f, 0},
        {1, 1, 1, 33, 17, 65, true, true, 1.0f, 0.5f, 2},
        {1, 1, 1, 300, 40, 24, false, true, 1.0f, 0.0f, 0},
        {3, 3, 1, 9, 11, 13, true, false, 0.75f, 1.0f, 1},
    };
    for (DT dt : {DT::bf16, DT::f16})
        for (const Case& k : cases) check_case(dt, k);
}

TEST_CASE("bf16 and f16 larger than one block of rows") {
    // K + N = 16392 floats per row: blocks of 256 rows, so 260 rows take two (256 + 4)
    const Case small_k{1, 1, 1, 260, 16380, 12, true, false, 1.0f, 0.5f, 0};
    for (DT dt : {DT::bf16, DT::f16}) check_case(dt, small_k);
}

TEST_CASE("with beta 0, c is not read (NaN in c does not propagate)") {
    Session s(true);
    require_cblas(s);
    for (DT dt : {DT::f32, DT::bf16, DT::f16}) {
        HostTensor a(dt, {5, 4}), b(dt, {4, 6}), c(dt, {5, 6});
        std::mt19937 rng(3);
        a.fill_random(rng);
        b.fill_random(rng);
        c.poison();  // all NaN
        REQUIRE(opkit_matmul(a.ct(), b.ct(), c.t(), 1.0f, 0.0f, 0, 0, nullptr) == OPKIT_OK);
        CHECK(std::string(last_dispatch().served_by) == "blas");
        CHECK(test::all_finite(c.values()));
    }
}

TEST_CASE("a call it cannot take is declined, counted as a decline, and the default serves it") {
    Session s(true);
    require_cblas(s);
    SECTION("alpha 0") {
        HostTensor a(DT::f32, {3, 4}), b(DT::f32, {4, 5}), c(DT::f32, {3, 5});
        std::mt19937 rng(5);
        a.fill_random(rng);
        b.fill_random(rng);
        c.fill_random(rng);
        const std::vector<double> before = c.values();
        REQUIRE(opkit_matmul(a.ct(), b.ct(), c.t(), 0.0f, 2.0f, 0, 0, nullptr) == OPKIT_OK);
        const opkit_dispatch_info d = last_dispatch();
        CHECK(d.declined == 1);
        CHECK(std::string(d.first_declined_by) == "blas");
        CHECK(std::string(d.served_by) == "default");
        const std::vector<double> after = c.values();
        for (size_t i = 0; i < after.size(); ++i) CHECK(after[i] == Approx(2.0 * before[i]).epsilon(1e-6));
    }
    SECTION("an f32 operand whose rows overlap (row stride 0: one row broadcast)") {
        std::vector<float> arow = {1.0f, -2.0f, 0.5f, 3.0f}, bbuf(4 * 3), cbuf(5 * 3, 0.0f);
        for (size_t i = 0; i < bbuf.size(); ++i) bbuf[i] = float(i) * 0.25f - 1.0f;
        int64_t as[2] = {5, 4}, ast[2] = {0, 1}, bs[2] = {4, 3}, cs[2] = {5, 3};
        const opkit_device cpu{OPKIT_DEVICE_CPU, 0};
        const opkit_dtype f32{OPKIT_DTYPE_FLOAT, 32, 1};
        opkit_tensor ta{arow.data(), cpu, 2, f32, as, ast, 0};
        opkit_tensor tb{bbuf.data(), cpu, 2, f32, bs, nullptr, 0};
        opkit_tensor tc{cbuf.data(), cpu, 2, f32, cs, nullptr, 0};
        REQUIRE(opkit_matmul(&ta, &tb, &tc, 1.0f, 0.0f, 0, 0, nullptr) == OPKIT_OK);
        const opkit_dispatch_info d = last_dispatch();
        CHECK(d.declined == 1);
        CHECK(std::string(d.first_declined_by) == "blas");
        CHECK(std::string(d.served_by) == "default");
        for (int i = 0; i < 5; ++i)
            for (int j = 0; j < 3; ++j) {
                double want = 0;
                for (int k = 0; k < 4; ++k) want += double(arow[size_t(k)]) * bbuf[size_t(k * 3 + j)];
                CHECK(cbuf[size_t(i * 3 + j)] == Approx(want).margin(1e-5));
            }
    }
    SECTION("the same broadcast row in bf16 is widened, so the vendor serves it") {
        HostTensor row(DT::bf16, {1, 4}), b(DT::bf16, {4, 3}), c(DT::bf16, {5, 3});
        std::mt19937 rng(9);
        row.fill_random(rng);
        b.fill_random(rng);
        opkit_tensor ta = *row.ct();
        int64_t as[2] = {5, 4}, ast[2] = {0, 1};
        ta.shape = as;
        ta.strides = ast;
        REQUIRE(opkit_matmul(&ta, b.ct(), c.t(), 1.0f, 0.0f, 0, 0, nullptr) == OPKIT_OK);
        CHECK(std::string(last_dispatch().served_by) == "blas");
        const std::vector<double> r = row.values(), bv = b.values(), got = c.values();
        for (int i = 0; i < 5; ++i)
            for (int j = 0; j < 3; ++j) {
                double want = 0;
                for (int k = 0; k < 4; ++k) want += r[size_t(k)] * bv[size_t(k * 3 + j)];
                CHECK(got[size_t(i * 3 + j)] == Approx(want).epsilon(1e-2).margin(1e-2));
            }
    }
}

TEST_CASE("empty products write nothing, K = 0 scales c by beta") {
    Session s(true);
    require_cblas(s);
    HostTensor a(DT::f32, {3, 0}), b(DT::f32, {0, 4}), c(DT::f32, {3, 4});
    std::mt19937 rng(1);
    c.fill_random(rng);
    const std::vector<double> before = c.values();
    REQUIRE(opkit_matmul(a.ct(), b.ct(), c.t(), 1.0f, 0.5f, 0, 0, nullptr) == OPKIT_OK);
    const std::vector<double> after = c.values();
    for (size_t i = 0; i < after.size(); ++i) CHECK(after[i] == Approx(0.5 * before[i]));
    HostTensor a0(DT::f32, {0, 4}), c0(DT::f32, {0, 4}), b4(DT::f32, {4, 4});
    REQUIRE(opkit_matmul(a0.ct(), b4.ct(), c0.t(), 1.0f, 0.0f, 0, 0, nullptr) == OPKIT_OK);
}

TEST_CASE("with no CBLAS to load the vendor is NO_DEVICE, says why, and the default serves matmul") {
    SECTION("OPKIT_BLAS_LIBRARY set and empty") {
        setenv("OPKIT_BLAS_LIBRARY", "", 1);
        Session s(true);
        const VendorState v = s.blas();
        CHECK(v.state == OPKIT_VENDOR_NO_DEVICE);
        CHECK(v.detail.find("OPKIT_BLAS_LIBRARY is set but names no library") != std::string::npos);
    }
    SECTION("OPKIT_BLAS_LIBRARY naming only libraries that do not exist") {
        setenv("OPKIT_BLAS_LIBRARY", "/nonexistent/libopenblas.so.0:libno_such_blas.so.9", 1);
        Session s(true);
        const VendorState v = s.blas();
        CHECK(v.state == OPKIT_VENDOR_NO_DEVICE);
        INFO(v.detail);
        CHECK(v.detail.find("no usable CBLAS found") != std::string::npos);
        CHECK(v.detail.find("/nonexistent/libopenblas.so.0") != std::string::npos);
        CHECK(v.detail.find("libno_such_blas.so.9") != std::string::npos);
        HostTensor a(DT::f32, {2, 3}), b(DT::f32, {3, 2}), c(DT::f32, {2, 2});
        std::mt19937 rng(2);
        a.fill_random(rng);
        b.fill_random(rng);
        REQUIRE(opkit_matmul(a.ct(), b.ct(), c.t(), 1.0f, 0.0f, 0, 0, nullptr) == OPKIT_OK);
        CHECK(std::string(last_dispatch().served_by) == "default");
    }
    SECTION("a library without cblas_sgemm is passed over") {
        setenv("OPKIT_BLAS_LIBRARY", "libc.so.6", 1);
        Session s(true);
        const VendorState v = s.blas();
        CHECK(v.state == OPKIT_VENDOR_NO_DEVICE);
        CHECK(v.detail.find("libc.so.6 has no cblas_sgemm") != std::string::npos);
    }
    unsetenv("OPKIT_BLAS_LIBRARY");
}

TEST_CASE("a library named in OPKIT_BLAS_LIBRARY is used even unidentified, and bf16 goes to its cblas_sbgemm") {
    setenv("OPKIT_BLAS_LIBRARY", OPKIT_FAKE_CBLAS, 1);
    setenv("OPKIT_ONEDNN_LIBRARY", "", 1);  // no oneDNN: bf16 takes the CBLAS's own bf16 GEMM
    // our own handle keeps the library (and its counters) loaded across opkit_shutdown
    void* fake = dlopen(OPKIT_FAKE_CBLAS, RTLD_NOW | RTLD_LOCAL);
    REQUIRE(fake);
    auto calls = reinterpret_cast<int (*)(const char*)>(dlsym(fake, "fake_cblas_calls"));
    REQUIRE(calls);
    {
        Session s(true);
        const VendorState v = s.blas();
        REQUIRE(v.state == OPKIT_VENDOR_READY);
        CHECK(v.version.find("unidentified CBLAS") != std::string::npos);
        CHECK(v.version.find("cblas_sbgemm for bf16") != std::string::npos);
    }
    const int sgemm0 = calls("sgemm"), sbgemm0 = calls("sbgemm");
    check_case(DT::bf16, {1, 1, 1, 9, 7, 11, false, true, 1.0f, 0.5f, 1});
    check_case(DT::bf16, {2, 2, 1, 5, 6, 3, true, false, 1.0f, 0.0f, 0});
    CHECK(calls("sbgemm") - sbgemm0 == 1 + 2);  // one row block per batch
    CHECK(calls("sgemm") == sgemm0);
    check_case(DT::f16, {1, 1, 1, 9, 7, 11, false, false, 1.0f, 0.0f, 0});  // f16: widened, sgemm
    check_case(DT::f32, {1, 1, 1, 9, 7, 11, true, true, 1.0f, 0.0f, 0});
    CHECK(calls("sgemm") - sgemm0 == 2);
    dlclose(fake);
    unsetenv("OPKIT_BLAS_LIBRARY");
    unsetenv("OPKIT_ONEDNN_LIBRARY");
}

namespace {

// The stand-in CBLAS, also named as oneDNN, kept loaded by our own handle so that its
// call counters run on across opkit_shutdown; `path` picks its build (the OpenMP one).
struct FakeLibraries {
    explicit FakeLibraries(const char* path = OPKIT_FAKE_CBLAS) {
        setenv("OPKIT_BLAS_LIBRARY", path, 1);
        setenv("OPKIT_ONEDNN_LIBRARY", path, 1);
        handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        REQUIRE(handle);
        counter = reinterpret_cast<int (*)(const char*)>(dlsym(handle, "fake_cblas_calls"));
        REQUIRE(counter);
    }
    ~FakeLibraries() {
        dlclose(handle);
        unsetenv("OPKIT_BLAS_LIBRARY");
        unsetenv("OPKIT_ONEDNN_LIBRARY");
        unsetenv("FAKE_ONEDNN");
        unsetenv("FAKE_OPENMP_TEAM");
    }
    int calls(const char* which) const { return counter(which); }
    void* handle = nullptr;
    int (*counter)(const char*) = nullptr;
};

}  // namespace

TEST_CASE("bf16 goes to oneDNN's GEMM where it loads, a block of rows a call") {
    FakeLibraries fake;
    {
        Session s(true);
        const VendorState v = s.blas();
        REQUIRE(v.state == OPKIT_VENDOR_READY);
        CHECK(v.version.find("oneDNN 9.9.9") != std::string::npos);
        CHECK(v.detail.find("f32 (beta 0) and bf16 through oneDNN 9.9.9") != std::string::npos);
    }
    const int dnnl0 = fake.calls("dnnl"), sbgemm0 = fake.calls("sbgemm"), sgemm0 = fake.calls("sgemm");
    const int dnnl_sgemm0 = fake.calls("dnnl_sgemm");
    // Each Session's init checks the library with one 2x2x2 product, then one call per row
    // block: one, two (batches), and two blocks of rows (K + N = 16392 floats: 256 + 4 rows).
    check_case(DT::bf16, {1, 1, 1, 9, 7, 11, false, true, 1.0f, 0.5f, 1});
    check_case(DT::bf16, {2, 2, 1, 5, 6, 3, true, false, 1.0f, 0.0f, 0});
    check_case(DT::bf16, {1, 1, 1, 260, 16380, 12, true, false, 1.0f, 0.5f, 0});
    CHECK(fake.calls("dnnl") - dnnl0 == (1 + 1) + (1 + 2) + (1 + 2));
    CHECK(fake.calls("sbgemm") == sbgemm0);
    CHECK(fake.calls("sgemm") == sgemm0);
    // f16 has no oneDNN path (widened to fp32, the CBLAS's sgemm)
    check_case(DT::f16, {1, 1, 1, 9, 7, 11, false, false, 1.0f, 0.0f, 0});
    CHECK(fake.calls("sgemm") - sgemm0 == 1);
    CHECK(fake.calls("dnnl") - dnnl0 == 8 + 1);  // only the init's check
    CHECK(fake.calls("dnnl_sgemm") - dnnl_sgemm0 == 4 + 0);  // each init's fp32 check only
}

TEST_CASE("bf16 through an OpenMP oneDNN: c is rounded (and, with beta, widened) in its team, every row once") {
    FakeLibraries fake;
    setenv("FAKE_OPENMP_TEAM", "4", 1);
    const int regions0 = fake.calls("omp_regions");
    // 300 x 1000 = 300K elements: four shares of at least kTeamMinElements (64K), so a team
    // of four; beta != 0 widens c in the team as well: two regions.
    check_case(DT::bf16, {1, 1, 1, 300, 1000, 12, false, true, 1.0f, 0.5f, 0});
    CHECK(fake.calls("omp_regions") - regions0 == 2);
    CHECK(fake.calls("omp_team") == 4);
    // beta 0 (c not read), padded rows of c: one region
    check_case(DT::bf16, {1, 1, 1, 300, 1000, 12, true, false, 1.0f, 0.0f, 3});
    CHECK(fake.calls("omp_regions") - regions0 == 3);
    // the team comes out smaller than asked (as in a nested region): the rows are cut by
    // the team it got, three, and every one of them still written
    setenv("FAKE_OPENMP_TEAM", "3", 1);
    check_case(DT::bf16, {2, 2, 1, 257, 1024, 5, false, false, 1.0f, 0.25f, 0});
    CHECK(fake.calls("omp_team") == 3);
    CHECK(fake.calls("omp_regions") - regions0 == 3 + 2 * 2);
    // too little to share (7 x 9): the calling thread alone, no region
    const int regions1 = fake.calls("omp_regions");
    check_case(DT::bf16, {1, 1, 1, 7, 9, 5, false, false, 1.0f, 0.5f, 0});
    CHECK(fake.calls("omp_regions") == regions1);
    // f16 is widened and multiplied by the CBLAS: the team is not woken beside its threads
    check_case(DT::f16, {1, 1, 1, 300, 1000, 12, false, true, 1.0f, 0.5f, 0});
    CHECK(fake.calls("omp_regions") == regions1);
}

TEST_CASE("bf16 through an oneDNN on GNU OpenMP: the rounding runs on libgomp's real threads, every row written") {
    if (!*OPKIT_FAKE_CBLAS_OPENMP) {
        std::printf("SKIP: no OpenMP compiler support here: the OpenMP stand-in was not built\n");
        std::fflush(stdout);
        std::_Exit(77);
    }
#if defined(__SANITIZE_ADDRESS__)
    // libgomp's worker threads outlive the call, and LeakSanitizer's exit check crashes in
    // a process that has them (blas-vendor.md, "Sanitizers"); the main build runs this case.
    std::printf("SKIP: AddressSanitizer build: LeakSanitizer's exit check crashes beside libgomp's threads\n");
    std::fflush(stdout);
    std::_Exit(77);
#endif
    for (const char* v : {"OMP_NUM_THREADS", "OMP_THREAD_LIMIT", "OMP_DYNAMIC"}) unsetenv(v);
    setenv("OPKIT_NUM_THREADS", "4", 1);  // oneDNN's team: four, whatever the cores
    FakeLibraries fake(OPKIT_FAKE_CBLAS_OPENMP);
    const int regions0 = fake.calls("omp_regions");
    // 300 x 1000 with beta: c widened, then rounded, each in a region of four threads
    check_case(DT::bf16, {1, 1, 1, 300, 1000, 12, false, true, 1.0f, 0.5f, 0});
    CHECK(fake.calls("omp_regions") - regions0 == 2);
    CHECK(fake.calls("omp_team") == 4);  // omp_get_num_threads() inside libgomp's region
    check_case(DT::bf16, {3, 3, 1, 129, 2048, 7, true, false, 0.5f, 0.0f, 1});
    CHECK(fake.calls("omp_regions") - regions0 == 2 + 3);
    unsetenv("OPKIT_NUM_THREADS");
}

TEST_CASE("f32 with beta 0 goes to oneDNN's sgemm beside an untuned CBLAS; beta != 0, and a call that fails, "
          "to the CBLAS") {
    FakeLibraries fake;  // the stand-in CBLAS identifies as no tuned library
    const int d0 = fake.calls("dnnl_sgemm"), s0 = fake.calls("sgemm");
    // init's check, then one call: a single product, the stacked form, one per batch
    check_case(DT::f32, {1, 1, 1, 9, 7, 11, false, true, 1.0f, 0.0f, 1});
    check_case(DT::f32, {4, 4, 1, 17, 8, 12, false, false, 1.0f, 0.0f, 0});
    check_case(DT::f32, {3, 3, 3, 9, 11, 13, true, false, 2.0f, 0.0f, 0});
    CHECK(fake.calls("dnnl_sgemm") - d0 == (1 + 1) + (1 + 1) + (1 + 3));
    CHECK(fake.calls("sgemm") == s0);
    // beta != 0: c is read, the CBLAS multiplies
    check_case(DT::f32, {1, 1, 1, 33, 17, 65, true, true, 1.0f, 0.5f, 2});
    CHECK(fake.calls("dnnl_sgemm") - d0 == 8 + 1);
    CHECK(fake.calls("sgemm") - s0 == 1);
    // a failing oneDNN call (c scribbled over first) is made again through the CBLAS
    setenv("FAKE_ONEDNN_SGEMM", "fail", 1);
    check_case(DT::f32, {1, 1, 1, 31, 47, 19, true, false, 1.0f, 0.0f, 0});
    unsetenv("FAKE_ONEDNN_SGEMM");
    CHECK(fake.calls("dnnl_sgemm") - d0 == 9 + 2);
    CHECK(fake.calls("sgemm") - s0 == 2);
}

TEST_CASE("a oneDNN call that fails leaves its block to the fp32 path, from c's own values") {
    FakeLibraries fake;
    // init's check and the first row block succeed; the second block's call scribbles over
    // its fp32 block and fails: that block is computed widened, with beta 0.5 on c's values.
    const std::string mode = "fail-after=" + std::to_string(fake.calls("dnnl") + 2);
    setenv("FAKE_ONEDNN", mode.c_str(), 1);
    const int dnnl0 = fake.calls("dnnl"), sgemm0 = fake.calls("sgemm");
    check_case(DT::bf16, {1, 1, 1, 260, 16380, 12, false, true, 1.0f, 0.5f, 0});
    CHECK(fake.calls("dnnl") - dnnl0 == 3);
    CHECK(fake.calls("sgemm") - sgemm0 == 1);
}

TEST_CASE("a oneDNN that declines bf16 or multiplies wrongly is not used, and the detail says why") {
    FakeLibraries fake;
    struct Mode {
        const char* value;
        const char* why;
    };
    for (const Mode m : {Mode{"unimplemented", "declines bf16 GEMM on this CPU (dnnl_status 5)"},
                         Mode{"wrong", "returned wrong numbers for a 2x2x2 bf16 product"}}) {
        setenv("FAKE_ONEDNN", m.value, 1);
        {
            Session s(true);
            const VendorState v = s.blas();
            REQUIRE(v.state == OPKIT_VENDOR_READY);  // the CBLAS still serves
            INFO(v.detail);
            CHECK(v.detail.find(m.why) != std::string::npos);
            CHECK(v.version.find("oneDNN") == std::string::npos);
        }
        const int dnnl0 = fake.calls("dnnl"), sbgemm0 = fake.calls("sbgemm");
        check_case(DT::bf16, {1, 1, 1, 9, 7, 11, true, true, 1.0f, 0.0f, 0});
        CHECK(fake.calls("sbgemm") - sbgemm0 == 1);  // the stand-in CBLAS's own bf16 GEMM
        CHECK(fake.calls("dnnl") - dnnl0 == 1);      // the init's check only
    }
}

namespace {

// The vendor's state on the system's libraries with OPKIT_NUM_THREADS=1 and none of their
// own thread variables set; exits 77 (skipped) without a CBLAS.
VendorState system_libraries_on_one_thread() {
    for (const char* v : {"OPKIT_BLAS_LIBRARY", "OPKIT_ONEDNN_LIBRARY", "OMP_NUM_THREADS", "GOTO_NUM_THREADS",
                          "OPENBLAS_NUM_THREADS", "BLIS_NUM_THREADS", "MKL_NUM_THREADS"})
        unsetenv(v);
    setenv("OPKIT_NUM_THREADS", "1", 1);
    Session s(true);
    require_cblas(s);
    return s.blas();
}

}  // namespace

TEST_CASE("bf16 through the system's oneDNN (libdnnl) matches float64, every layout") {
    // One OpenMP thread throughout (OPKIT_NUM_THREADS=1 stays set): LeakSanitizer's exit
    // check crashes in a process where libgomp has started worker threads (the asan step of
    // .ci/run runs the other bf16 cases with OMP_NUM_THREADS=1 for the same reason).
    const VendorState v = system_libraries_on_one_thread();
    if (v.detail.find("bf16 through oneDNN") == std::string::npos) {
        std::printf("SKIP: no oneDNN for bf16 here: %s\n", v.detail.c_str());
        std::fflush(stdout);
        std::_Exit(77);
    }
    INFO(v.detail);
    CHECK(v.detail.find("on 1 OpenMP thread(s)") != std::string::npos);
    for (const Case& k : kShapes) check_case(DT::bf16, k);
    const Case layouts[] = {
        {1, 1, 1, 33, 17, 65, true, true, 1.0f, 0.5f, 2},      // padded rows, both transposed
        {3, 3, 1, 9, 11, 13, true, false, 0.75f, 1.0f, 1},     // batched, b broadcast
        {3, 1, 3, 6, 10, 7, false, true, 2.0f, 0.0f, 0},       // a broadcast
        {1, 1, 1, 260, 16380, 12, true, false, 1.0f, 0.5f, 0}, // two blocks of rows
    };
    for (const Case& k : layouts) check_case(DT::bf16, k);
    unsetenv("OPKIT_NUM_THREADS");
}

TEST_CASE("the reference BLAS runs when named explicitly, and conforms") {
    const char* ref = "/usr/lib/x86_64-linux-gnu/blas/libblas.so.3";
    if (!dlopen(ref, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD) && access(ref, R_OK) != 0) {
        std::printf("SKIP: %s is not installed (Debian's libblas3)\n", ref);
        std::_Exit(77);
    }
    setenv("OPKIT_BLAS_LIBRARY", ref, 1);
    setenv("OPKIT_ONEDNN_LIBRARY", "", 1);  // the reference BLAS multiplies everything
    check_case(DT::f32, {1, 1, 1, 33, 17, 65, true, false, 1.0f, 0.5f, 2});
    check_case(DT::bf16, {1, 1, 1, 33, 17, 65, false, true, 1.0f, 0.0f, 0});
    unsetenv("OPKIT_BLAS_LIBRARY");
    unsetenv("OPKIT_ONEDNN_LIBRARY");
}

TEST_CASE("OPKIT_NUM_THREADS sets the library's threads unless its own variable is set") {
    {
        const VendorState v = system_libraries_on_one_thread();
        INFO(v.detail);
        CHECK(v.detail.find("threads: 1 (OPKIT_NUM_THREADS)") != std::string::npos);
        CHECK(v.detail.find("reports 1 thread") != std::string::npos);
    }
    const bool openblas = [] {
        Session s(true);
        return s.blas().version.find("OpenBLAS") != std::string::npos;
    }();
    if (openblas) {
        setenv("OPENBLAS_NUM_THREADS", "2", 1);
        Session s(true);
        const VendorState v = s.blas();
        INFO(v.detail);
        CHECK(v.detail.find("the library's own (OPENBLAS_NUM_THREADS is set)") != std::string::npos);
        unsetenv("OPENBLAS_NUM_THREADS");
    }
    unsetenv("OPKIT_NUM_THREADS");
}
