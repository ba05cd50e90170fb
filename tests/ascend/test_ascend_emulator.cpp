// The emulator itself, called directly (no vendor) through the declarations the vendor
// uses: it must refuse what the real CANN documents as wrong, or it could not catch the
// vendor doing it — a descriptor built with byte strides or a wrong storage size, an
// unaligned tensorData, phase 2 without the workspace phase 1 asked for, an executor run
// twice or by another op, arguments destroyed too early, enum values out of range, memory
// freed or streams destroyed under queued work, copies of the wrong kind. It must also
// compute what the docs say (GeGlu's approximate, cubeMathType's precision) and run
// stream work only when the stream is synchronized.
#include "acl_decls.h"
#include "ascend_test_support.h"

#include <catch2/catch.hpp>

#include <dlfcn.h>

#include <cmath>
#include <cstring>
#include <vector>

using namespace acl;

namespace {

// The emulated CANN 9.x libraries, opened directly.
struct Emu {
    void *rt = nullptr, *nn = nullptr, *nnops = nullptr;
    aclInit_t init = nullptr;
    aclFinalizeReference_t release = nullptr;
    aclGetRecentErrMsg_t recent = nullptr;
    aclrtSetDevice_t set_device = nullptr;
    aclrtMalloc_t malloc = nullptr;
    aclrtFree_t free = nullptr;
    aclrtMemcpy_t memcpy = nullptr;
    aclrtMemcpyAsync_t memcpy_async = nullptr;
    aclrtCreateStream_t create_stream = nullptr;
    aclrtDestroyStream_t destroy_stream = nullptr;
    aclrtSynchronizeStream_t sync = nullptr;
    aclCreateTensor_t create_tensor = nullptr;
    aclDestroyTensor_t destroy_tensor = nullptr;
    aclSetAclOpExecutorRepeatable_t repeatable = nullptr;
    aclDestroyAclOpExecutor_t destroy_executor = nullptr;
    bool referenced = false;

    template <class T>
    T sym(void* h, const char* name) {
        T f = reinterpret_cast<T>(dlsym(h, name));
        REQUIRE(f);
        return f;
    }
    Emu() {
        setenv("ASCEND_OPP_PATH", (asc::emu_dir() + "/opp").c_str(), 1);
        const std::string lib = asc::layout_home("cann9") + "/lib64/";
        rt = dlopen((lib + "libacl_rt.so").c_str(), RTLD_NOW | RTLD_LOCAL);
        nn = dlopen((lib + "libnnopbase.so").c_str(), RTLD_NOW | RTLD_LOCAL);
        nnops = dlopen((lib + "libopapi_nn.so").c_str(), RTLD_NOW | RTLD_LOCAL);
        REQUIRE(rt);
        REQUIRE(nn);
        REQUIRE(nnops);
        init = sym<aclInit_t>(rt, "aclInit");
        release = sym<aclFinalizeReference_t>(rt, "aclFinalizeReference");
        recent = sym<aclGetRecentErrMsg_t>(rt, "aclGetRecentErrMsg");
        set_device = sym<aclrtSetDevice_t>(rt, "aclrtSetDevice");
        malloc = sym<aclrtMalloc_t>(rt, "aclrtMalloc");
        free = sym<aclrtFree_t>(rt, "aclrtFree");
        memcpy = sym<aclrtMemcpy_t>(rt, "aclrtMemcpy");
        memcpy_async = sym<aclrtMemcpyAsync_t>(rt, "aclrtMemcpyAsync");
        create_stream = sym<aclrtCreateStream_t>(rt, "aclrtCreateStream");
        destroy_stream = sym<aclrtDestroyStream_t>(rt, "aclrtDestroyStream");
        sync = sym<aclrtSynchronizeStream_t>(rt, "aclrtSynchronizeStream");
        create_tensor = sym<aclCreateTensor_t>(nn, "aclCreateTensor");
        destroy_tensor = sym<aclDestroyTensor_t>(nn, "aclDestroyTensor");
        repeatable = sym<aclSetAclOpExecutorRepeatable_t>(nn, "aclSetAclOpExecutorRepeatable");
        destroy_executor = sym<aclDestroyAclOpExecutor_t>(nn, "aclDestroyAclOpExecutor");
        const Error e = init(nullptr);
        REQUIRE((e == kSuccess || e == kRepeatInitialize));
        referenced = true;
        REQUIRE(set_device(0) == kSuccess);
        (void)recent();
        ascend_emu_reset_counters();
    }
    ~Emu() {
        uint64_t left = 0;
        if (referenced) (void)release(&left);
        for (void* h : {nnops, nn, rt})
            if (h) dlclose(h);
    }
    std::string message() {
        const char* m = recent();
        return m ? m : "";
    }
    void* device(size_t bytes) {
        void* p = nullptr;
        REQUIRE(malloc(&p, bytes, MallocPolicy::HugeFirst) == kSuccess);
        return p;
    }
    void upload(void* dst, const std::vector<float>& v) {
        REQUIRE(memcpy(dst, v.size() * 4, v.data(), v.size() * 4, MemcpyKind::HostToDevice) == kSuccess);
    }
    std::vector<float> download(const void* src, size_t n) {
        std::vector<float> v(n);
        REQUIRE(memcpy(v.data(), n * 4, src, n * 4, MemcpyKind::DeviceToHost) == kSuccess);
        return v;
    }
    // A dense f32 tensor over `data` with 1-D storage of exactly its elements.
    aclTensor* dense(void* data, std::vector<int64_t> dims) {
        int64_t n = 1;
        for (int64_t d : dims) n *= d;
        const int64_t storage[1] = {n};
        aclTensor* t = create_tensor(dims.data(), dims.size(), DataType::Float, nullptr, 0, Format::ND, storage, 1, data);
        REQUIRE(t);
        return t;
    }
    template <Op id>
    WorkspaceFn<id> ws(const char* name) {
        return sym<WorkspaceFn<id>>(nnops, name);
    }
    aclnnRun_t run(const char* name) { return sym<aclnnRun_t>(nnops, name); }
};

// Softmax over a [4, 8] f32 buffer, phase 1 only.
struct SoftmaxCall {
    Emu& e;
    void *x, *y;
    aclTensor *tx, *ty;
    uint64_t size = 0;
    aclOpExecutor* ex = nullptr;
    explicit SoftmaxCall(Emu& emu) : e(emu) {
        x = e.device(32 * 4);
        y = e.device(32 * 4);
        std::vector<float> v(32);
        for (int i = 0; i < 32; ++i) v[size_t(i)] = float(i % 7) - 3;
        e.upload(x, v);
        e.upload(y, std::vector<float>(32, -1.0f));
        tx = e.dense(x, {4, 8});
        ty = e.dense(y, {4, 8});
        REQUIRE(e.ws<Op::Softmax>("aclnnSoftmaxGetWorkspaceSize")(tx, 1, ty, &size, &ex) == kNnSuccess);
        REQUIRE(ex);
    }
    ~SoftmaxCall() {
        e.destroy_tensor(tx);
        e.destroy_tensor(ty);
        e.free(x);
        e.free(y);
    }
};

}  // namespace

TEST_CASE("emulator: a descriptor built the wrong way is rejected", "[ascend][emulator]") {
    Emu e;
    void* x = e.device(32 * 4);  // a [4, 8] f32 tensor
    void* y = e.device(32 * 4);
    auto softmax = e.ws<Op::Softmax>("aclnnSoftmaxGetWorkspaceSize");
    const int64_t dims[2] = {4, 8};
    uint64_t size = 0;
    aclOpExecutor* ex = nullptr;
    aclTensor* ty = e.dense(y, {4, 8});
    auto attempt = [&](const int64_t* strides, int64_t offset, int64_t storage_elems, void* data) {
        const int64_t storage[1] = {storage_elems};
        aclTensor* t = e.create_tensor(dims, 2, DataType::Float, strides, offset, Format::ND, storage, 1, data);
        REQUIRE(t);
        ex = nullptr;
        const Status s = softmax(t, 1, ty, &size, &ex);
        if (s == kNnSuccess) {  // release the executor this accepted call made
            REQUIRE(e.repeatable(ex) == kNnSuccess);
            REQUIRE(e.destroy_executor(ex) == kNnSuccess);
        }
        e.destroy_tensor(t);
        return s;
    };
    const int64_t element_strides[2] = {8, 1}, byte_strides[2] = {32, 4};
    SECTION("right: element strides, storage of 32 elements") {
        CHECK(attempt(element_strides, 0, 32, x) == kNnSuccess);
        CHECK(e.message().empty());
    }
    SECTION("byte strides instead of elements") {
        CHECK(attempt(byte_strides, 0, 32, x) == kNnParamInvalid);
        CHECK_THAT(e.message(), Catch::Contains("outside its storage of 32 elements") &&
                                    Catch::Contains("strides and offset are in elements"));
    }
    SECTION("storage larger than the memory behind it") {
        CHECK(attempt(element_strides, 0, 64, x) == kNnParamInvalid);
        CHECK_THAT(e.message(), Catch::Contains("is not inside one aclrtMalloc block"));
    }
    SECTION("storage too small for the view") {
        CHECK(attempt(element_strides, 0, 31, x) == kNnParamInvalid);
        CHECK_THAT(e.message(), Catch::Contains("outside its storage"));
    }
    SECTION("an offset in bytes instead of elements") {
        void* big = e.device(40 * 4);
        CHECK(attempt(element_strides, 2, 34, big) == kNnSuccess);    // 2 elements in, storage counts them
        CHECK(attempt(element_strides, 8, 34, big) == kNnParamInvalid);  // 8 "bytes" reaches past it
        (void)e.message();
        e.free(big);
    }
    SECTION("tensorData not 32-byte aligned") {
        CHECK(attempt(element_strides, 0, 16, static_cast<char*>(x) + 16) == kNnParamInvalid);
        CHECK_THAT(e.message(), Catch::Contains("is not 32-byte aligned"));
    }
    SECTION("enum values out of range, and negative strides, fail at creation") {
        const int64_t storage[1] = {32}, negative[2] = {8, -1};
        CHECK(e.create_tensor(dims, 2, DataType(5), nullptr, 0, Format::ND, storage, 1, x) == nullptr);
        CHECK_THAT(e.message(), Catch::Contains("5 is not an aclDataType"));
        CHECK(e.create_tensor(dims, 2, DataType::Float, nullptr, 0, Format(99), storage, 1, x) == nullptr);
        CHECK_THAT(e.message(), Catch::Contains("99 is not an aclFormat"));
        CHECK(e.create_tensor(dims, 2, DataType::Float, negative, 0, Format::ND, storage, 1, x) == nullptr);
        CHECK_THAT(e.message(), Catch::Contains("strides must be non-negative"));
        // A valid format other than ND reaches the op, which takes ND only.
        aclTensor* nz = e.create_tensor(dims, 2, DataType::Float, nullptr, 0, Format(29), storage, 1, x);
        REQUIRE(nz);
        CHECK(softmax(nz, 1, ty, &size, &ex) == kNnParamInvalid);
        CHECK_THAT(e.message(), Catch::Contains("format 29"));
        e.destroy_tensor(nz);
    }
    e.destroy_tensor(ty);
    e.free(x);
    e.free(y);
    ascend_emu_stats s{};
    ascend_emu_get_stats(&s);
    CHECK(s.live_executors == 0);
}

TEST_CASE("emulator: phase 2 needs phase 1's workspace and runs an executor once", "[ascend][emulator]") {
    Emu e;
    auto softmax = e.run("aclnnSoftmax");
    SECTION("the right workspace, once") {
        SoftmaxCall c(e);
        REQUIRE(c.size > 0);  // the emulator asks for a workspace, so a caller must provide one
        void* ws = e.device(c.size);
        CHECK(softmax(ws, c.size, c.ex, nullptr) == kNnSuccess);
        CHECK(e.sync(nullptr) == kSuccess);
        CHECK(softmax(ws, c.size, c.ex, nullptr) == kNnParamInvalid);  // used up
        CHECK_THAT(e.message(), Catch::Contains("is not live (already run"));
        e.free(ws);
    }
    SECTION("no workspace") {
        SoftmaxCall c(e);
        CHECK(softmax(nullptr, 0, c.ex, nullptr) == kNnParamInvalid);
        CHECK_THAT(e.message(), Catch::Contains("workspaceSize 0 < the"));
    }
    SECTION("a workspace smaller than asked, or not device memory") {
        SoftmaxCall c(e);
        std::vector<char> host(c.size);
        CHECK(softmax(host.data(), c.size, c.ex, nullptr) == kNnParamInvalid);
        CHECK_THAT(e.message(), Catch::Contains("is not device memory"));
        SoftmaxCall d(e);
        void* small = e.device(16);
        CHECK(softmax(small, c.size, d.ex, nullptr) == kNnParamInvalid);
        e.free(small);
    }
    SECTION("another op's executor") {
        SoftmaxCall c(e);
        void* ws = e.device(c.size);
        CHECK(e.run("aclnnLogSoftmax")(ws, c.size, c.ex, nullptr) == kNnParamInvalid);
        CHECK_THAT(e.message(), Catch::Contains("made by aclnnSoftmaxGetWorkspaceSize"));
        // Refused, not consumed: it is still Softmax's to run or release.
        CHECK(e.repeatable(c.ex) == kNnSuccess);
        CHECK(e.destroy_executor(c.ex) == kNnSuccess);
        e.free(ws);
    }
    SECTION("an argument destroyed before phase 2") {
        SoftmaxCall c(e);
        void* ws = e.device(c.size);
        aclTensor* used = c.ty;
        c.ty = e.dense(c.y, {4, 8});  // (a live one for the destructor; made first, so no address is reused)
        e.destroy_tensor(used);
        CHECK(softmax(ws, c.size, c.ex, nullptr) == kNnParamInvalid);
        CHECK_THAT(e.message(), Catch::Contains("destroyed before the executor ran"));
        e.free(ws);
    }
    SECTION("an executor that will not run is released only once made repeatable") {
        SoftmaxCall c(e);
        CHECK(e.destroy_executor(c.ex) == kNnParamInvalid);
        CHECK_THAT(e.message(), Catch::Contains("is not repeatable"));
        CHECK(e.repeatable(c.ex) == kNnSuccess);
        CHECK(e.destroy_executor(c.ex) == kNnSuccess);
    }
    ascend_emu_stats s{};
    ascend_emu_get_stats(&s);
    CHECK(s.live_executors == 0);
    CHECK(s.pending_tasks == 0);
}

TEST_CASE("emulator: a stream's work runs when that stream is synchronized", "[ascend][emulator]") {
    Emu e;
    SoftmaxCall c(e);
    void* ws = e.device(c.size);
    Stream s1 = nullptr, s2 = nullptr;
    REQUIRE(e.create_stream(&s1) == kSuccess);
    REQUIRE(e.create_stream(&s2) == kSuccess);
    REQUIRE(e.run("aclnnSoftmax")(ws, c.size, c.ex, s1) == kNnSuccess);
    CHECK(e.download(c.y, 32)[0] == -1.0f);  // queued, not run
    CHECK(e.sync(s2) == kSuccess);            // another stream: no effect
    CHECK(e.sync(nullptr) == kSuccess);       // the default stream: no effect either
    CHECK(e.download(c.y, 32)[0] == -1.0f);
    // Freeing memory or destroying the stream under queued work is refused.
    CHECK(e.free(ws) == kInvalidParam);
    CHECK_THAT(e.message(), Catch::Contains("queued task(s) still use the block"));
    CHECK(e.destroy_stream(s1) == kInvalidParam);
    CHECK_THAT(e.message(), Catch::Contains("synchronize the stream first"));
    CHECK(e.sync(s1) == kSuccess);
    const std::vector<float> y = e.download(c.y, 32);
    double sum = 0;
    for (int i = 0; i < 8; ++i) sum += y[size_t(i)];
    CHECK(std::abs(sum - 1.0) < 1e-6);
    // The workspace belonged to the kernel while it ran.
    std::vector<unsigned char> wbytes(8);
    REQUIRE(e.memcpy(wbytes.data(), 8, ws, 8, MemcpyKind::DeviceToHost) == kSuccess);
    CHECK(wbytes[0] == 0xA5);
    CHECK(e.free(ws) == kSuccess);
    CHECK(e.destroy_stream(s1) == kSuccess);
    CHECK(e.destroy_stream(s2) == kSuccess);
    // A stream of device 1 used while device 0 is current.
    REQUIRE(e.set_device(1) == kSuccess);
    Stream other = nullptr;
    REQUIRE(e.create_stream(&other) == kSuccess);
    REQUIRE(e.set_device(0) == kSuccess);
    CHECK(e.sync(other) == 107003);
    CHECK_THAT(e.message(), Catch::Contains("belongs to device 1 but device 0 is current"));
    REQUIRE(e.set_device(1) == kSuccess);
    CHECK(e.destroy_stream(other) == kSuccess);
    REQUIRE(e.set_device(0) == kSuccess);
}

TEST_CASE("emulator: copies of the wrong kind and unaligned chip copies are refused", "[ascend][emulator]") {
    Emu e;
    void* a = e.device(256);
    void* b = e.device(256);
    std::vector<char> host(256);
    CHECK(e.memcpy(a, 256, host.data(), 256, MemcpyKind::DeviceToHost) == kInvalidParam);  // dst is device memory
    CHECK_THAT(e.message(), Catch::Contains("is device memory but kind"));
    CHECK(e.memcpy(host.data(), 256, a, 256, MemcpyKind::HostToDevice) == kInvalidParam);
    CHECK(e.memcpy(a, 100, host.data(), 256, MemcpyKind::HostToDevice) == kInvalidParam);  // destMax < count
    CHECK(e.memcpy_async(static_cast<char*>(a) + 4, 64, b, 64, MemcpyKind::DeviceToDevice, nullptr) == kInvalidParam);
    CHECK_THAT(e.message(), Catch::Contains("64-byte aligned"));
    CHECK(e.memcpy_async(a, 64, b, 64, MemcpyKind::DeviceToDevice, nullptr) == kSuccess);
    CHECK(e.sync(nullptr) == kSuccess);
    CHECK(e.malloc(&a, 64, MallocPolicy(9)) == kInvalidParam);  // not an aclrtMemMallocPolicy
    void* zero = nullptr;
    CHECK(e.malloc(&zero, 0, MallocPolicy::HugeFirst) == kInvalidParam);
    (void)e.message();
    CHECK(e.free(b) == kSuccess);
    CHECK(e.free(b) == kInvalidParam);  // twice
    CHECK(e.free(static_cast<char*>(a) + 0) == kSuccess);
}

TEST_CASE("emulator: aclGetRecentErrMsg returns the text once, then nothing", "[ascend][emulator]") {
    Emu e;
    std::vector<char> host(16);
    CHECK(e.memcpy(host.data(), 16, host.data(), 16, MemcpyKind::DeviceToDevice) == kInvalidParam);
    const char* first = e.recent();
    REQUIRE(first);
    const std::string text = first;
    CHECK_THAT(text, Catch::Contains("aclrtMemcpy"));
    CHECK(e.recent() == nullptr);
}

TEST_CASE("emulator: GeGlu's approximate is the tiling code's: 0 = erf, 1 = tanh", "[ascend][emulator]") {
    Emu e;
    // self = (A | B) with A = 1: out = Gelu(B), where erf and tanh forms differ.
    const std::vector<float> bvals = {-2.5f, -1.0f, 0.75f, 1.5f, 2.5f, 3.0f};
    const int n = int(bvals.size());
    std::vector<float> self(size_t(2 * n), 1.0f);
    for (int i = 0; i < n; ++i) self[size_t(n + i)] = bvals[size_t(i)];
    void* x = e.device(self.size() * 4);
    e.upload(x, self);
    for (int64_t approximate : {kGeluErf, kGeluTanh}) {
        INFO("approximate " << approximate);
        void* y = e.device(size_t(n) * 4);
        void* g = e.device(size_t(n) * 4);
        aclTensor *tx = e.dense(x, {1, 2 * n}), *ty = e.dense(y, {1, n}), *tg = e.dense(g, {1, n});
        uint64_t size = 0;
        aclOpExecutor* ex = nullptr;
        REQUIRE(e.ws<Op::GeGlu>("aclnnGeGluGetWorkspaceSize")(tx, 1, approximate, ty, tg, &size, &ex) == kNnSuccess);
        void* ws = size ? e.device(size) : nullptr;
        REQUIRE(e.run("aclnnGeGlu")(ws, size, ex, nullptr) == kNnSuccess);
        REQUIRE(e.sync(nullptr) == kSuccess);
        const std::vector<float> out = e.download(y, size_t(n));
        for (int i = 0; i < n; ++i) {
            const double b = bvals[size_t(i)];
            const double erf_form = 0.5 * b * (1 + std::erf(b / std::sqrt(2.0)));
            const double tanh_form =
                0.5 * b * (1 + std::tanh(std::sqrt(2 / M_PI) * (b + 0.044715 * b * b * b)));
            REQUIRE(std::abs(erf_form - tanh_form) > 1e-5);  // the two forms are told apart
            const double want = approximate == kGeluErf ? erf_form : tanh_form;
            CHECK(std::abs(out[size_t(i)] - want) <= 1e-6 * std::max(1.0, std::abs(want)));
        }
        for (aclTensor* t : {tx, ty, tg}) e.destroy_tensor(t);
        for (void* p : {y, g, ws})
            if (p) e.free(p);
    }
    // Anything else is refused.
    void* y = e.device(size_t(n) * 4);
    aclTensor *tx = e.dense(x, {1, 2 * n}), *ty = e.dense(y, {1, n}), *tg = e.dense(y, {1, n});
    uint64_t size = 0;
    aclOpExecutor* ex = nullptr;
    CHECK(e.ws<Op::GeGlu>("aclnnGeGluGetWorkspaceSize")(tx, 1, 2, ty, tg, &size, &ex) == kNnParamInvalid);
    CHECK_THAT(e.message(), Catch::Contains("approximate 2 is neither 0 (erf) nor 1 (tanh)"));
    for (aclTensor* t : {tx, ty, tg}) e.destroy_tensor(t);
    e.free(y);
    e.free(x);
}

TEST_CASE("emulator: cubeMathType: only 0 keeps fp32, 1..3 lose precision, out-of-range values are refused",
          "[ascend][emulator]") {
    Emu e;
    const int m = 4, k = 64, n = 4;
    std::vector<float> a(size_t(m * k)), b(size_t(k * n));
    for (size_t i = 0; i < a.size(); ++i) a[i] = 1.0f + float(i % 13) * 1.2345678e-4f;  // needs fp32's mantissa
    for (size_t i = 0; i < b.size(); ++i) b[i] = 1.0f - float(i % 7) * 2.3456789e-4f;
    void *da = e.device(a.size() * 4), *db = e.device(b.size() * 4), *dc = e.device(size_t(m * n) * 4);
    e.upload(da, a);
    e.upload(db, b);
    auto product = [&](int8_t cube, Status* status) {
        aclTensor *ta = e.dense(da, {m, k}), *tb = e.dense(db, {k, n}), *tc = e.dense(dc, {m, n});
        uint64_t size = 0;
        aclOpExecutor* ex = nullptr;
        *status = e.ws<Op::Mm>("aclnnMmGetWorkspaceSize")(ta, tb, tc, cube, &size, &ex);
        std::vector<float> out;
        if (*status == kNnSuccess) {
            void* ws = size ? e.device(size) : nullptr;
            REQUIRE(e.run("aclnnMm")(ws, size, ex, nullptr) == kNnSuccess);
            REQUIRE(e.sync(nullptr) == kSuccess);
            out = e.download(dc, size_t(m * n));
            if (ws) e.free(ws);
        }
        for (aclTensor* t : {ta, tb, tc}) e.destroy_tensor(t);
        return out;
    };
    double exact0 = 0;
    for (int q = 0; q < k; ++q) exact0 += double(a[size_t(q)]) * double(b[size_t(q * n)]);
    Status s;
    const std::vector<float> keep = product(kCubeKeepDtype, &s);
    REQUIRE(s == kNnSuccess);
    CHECK(std::abs(keep[0] - exact0) <= 1e-6 * exact0);
    for (int8_t cube : {int8_t(1), int8_t(2), int8_t(3)}) {
        INFO("cubeMathType " << int(cube));
        const std::vector<float> low = product(cube, &s);
        REQUIRE(s == kNnSuccess);
        CHECK(std::abs(low[0] - exact0) > 1e-5 * exact0);  // outside fp32 matmul's tolerance
    }
    (void)product(5, &s);
    CHECK(s == kNnParamInvalid);
    CHECK_THAT(e.message(), Catch::Contains("cubeMathType 5 is not 0..4"));
    for (void* p : {da, db, dc}) e.free(p);
}

TEST_CASE("emulator: without ASCEND_OPP_PATH every op fails with 561107", "[ascend][emulator]") {
    Emu e;
    unsetenv("ASCEND_OPP_PATH");
    void* x = e.device(64);
    aclTensor* t = e.dense(x, {16});
    uint64_t size = 0;
    aclOpExecutor* ex = nullptr;
    CHECK(e.ws<Op::Softmax>("aclnnSoftmaxGetWorkspaceSize")(t, 0, t, &size, &ex) == 561107);
    CHECK_THAT(e.message(), Catch::Contains("ASCEND_OPP_PATH not detected"));
    setenv("ASCEND_OPP_PATH", (asc::emu_dir() + "/opp").c_str(), 1);
    e.destroy_tensor(t);
    e.free(x);
}
