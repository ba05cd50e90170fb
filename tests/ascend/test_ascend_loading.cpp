// Finding CANN: which libraries the vendor loads in each layout (the emulator records
// which fake library served every call), the search order, NO_DEVICE with the reason
// when something is missing, and the runtime's lifetime (aclInit's 100002, never
// aclFinalize, aclFinalizeReference where it exists, aclnnInit once).
#include "acl_decls.h"
#include "ascend_test_support.h"

#include <catch2/catch.hpp>

#include <dlfcn.h>

#include <cstdlib>
#include <memory>

using namespace asc;

namespace {

// One small call of each kind, so that every library of the layout serves something.
void run_each_library() {
    Tensor x(f32(), {3, 8}), y(f32(), {3, 8}), cs(f32(), {2, 8}), sn(f32(), {2, 8}), r(f32(), {1, 2, 1, 8});
    x.random(-1, 1, 1);
    cs.random(-1, 1, 2);
    sn.random(-1, 1, 3);
    r.random(-1, 1, 4);
    for (Tensor* t : {&x, &y, &cs, &sn, &r}) t->upload();
    REQUIRE_OK(opkit_rms_norm_forward(x.dev(), nullptr, 1e-5f, 0.0f, y.dev(), nullptr, nullptr));   // nn / infer
    REQUIRE_OK(opkit_axpy(0.5f, x.dev(), y.dev(), nullptr));                                           // math
    Tensor ry(f32(), {1, 2, 1, 8});
    ry.upload();
    REQUIRE_OK(opkit_rope_forward(r.dev(), cs.dev(), sn.dev(), ry.dev(), nullptr));                   // transformer
    Tensor dy(f32(), {3, 8}), dx(f32(), {3, 8}), rstd(f32(), {3});
    dy.random(-1, 1, 5);
    for (Tensor* t : {&dy, &dx, &rstd}) t->upload();
    REQUIRE_OK(opkit_rms_norm_forward(x.dev(), nullptr, 1e-5f, 0.0f, y.dev(), rstd.dev(), nullptr));
    REQUIRE_OK(opkit_rms_norm_backward(dy.dev(), x.dev(), nullptr, rstd.dev(), 0.0f, dx.dev(), nullptr, nullptr));  // train
    REQUIRE_OK(opkit_synchronize(npu(), nullptr));
}

std::string served(const char* symbol) { return ascend_emu_served_by(symbol); }

}  // namespace

TEST_CASE("loading: CANN 9.x layout: libacl_rt.so and the per-repo op libraries, not libopapi.so",
          "[ascend][loading]") {
    ascend_emu_reset_counters();
    Session session("cann9");
    const VendorInfo v = ascend_vendor();
    REQUIRE(v.found);
    INFO(v.version << " / " << v.detail);
    CHECK(v.state == OPKIT_VENDOR_READY);
    CHECK(v.device_count == 2);
    CHECK(opkit_device_count(OPKIT_DEVICE_ASCEND) == 2);
    CHECK_THAT(v.version, Catch::Contains("cann9/lib64/libacl_rt.so") && Catch::Contains("per-repo") &&
                              Catch::Contains("25 of 25 aclnn ops") && Catch::Contains("Ascend910B3"));
    run_each_library();
    CHECK(served("aclInit") == "libacl_rt.so");  // preferred over the libascendcl.so beside it
    CHECK(served("aclCreateTensor") == "libnnopbase.so");
    CHECK(served("aclnnRmsNormGetWorkspaceSize") == "libopapi_nn.so");
    CHECK(served("aclnnRmsNorm") == "libopapi_nn.so");
    CHECK(served("aclnnInplaceAddGetWorkspaceSize") == "libopapi_math.so");
    CHECK(served("aclnnRotaryPositionEmbeddingGetWorkspaceSize") == "libopapi_transformer.so");
    require_clean("cann9");
}

TEST_CASE("loading: merged layout: libascendcl.so and libopapi.so", "[ascend][loading]") {
    ascend_emu_reset_counters();
    Session session("merged");
    const VendorInfo v = ascend_vendor();
    CHECK(v.state == OPKIT_VENDOR_READY);
    CHECK_THAT(v.version, Catch::Contains("merged/lib64/libascendcl.so") && Catch::Contains("ops from libopapi.so"));
    run_each_library();
    CHECK(served("aclInit") == "libascendcl.so");
    CHECK(served("aclnnRmsNormGetWorkspaceSize") == "libopapi.so");
    CHECK(served("aclnnRotaryPositionEmbeddingGetWorkspaceSize") == "libopapi.so");
    require_clean("merged");
}

TEST_CASE("loading: CANN 8.x layout: the libaclnn_* feature libraries", "[ascend][loading]") {
    ascend_emu_reset_counters();
    Session session("cann8");
    const VendorInfo v = ascend_vendor();
    CHECK(v.state == OPKIT_VENDOR_READY);
    CHECK_THAT(v.version, Catch::Contains("libaclnn_*"));
    run_each_library();
    CHECK(served("aclnnRmsNormGetWorkspaceSize") == "libaclnn_ops_infer.so");
    CHECK(served("aclnnRmsNormGradGetWorkspaceSize") == "libaclnn_ops_train.so");
    CHECK(served("aclnnInplaceAddGetWorkspaceSize") == "libaclnn_math.so");
    require_clean("cann8");
}

TEST_CASE("loading: search order through the loader path", "[.loader-path]") {
    // Registered by tests/ascend/CMakeLists.txt with LD_LIBRARY_PATH and the expectation.
    const char* layout = std::getenv("EXPECT_LAYOUT");
    const char* home = std::getenv("EXPECT_HOME");
    REQUIRE(layout);
    REQUIRE(home);
    ascend_emu_reset_counters();
    Session session(std::string(home) == "unset" ? nullptr : home);
    const VendorInfo v = ascend_vendor();
    INFO(v.version << " / " << v.detail);
    REQUIRE(v.state == OPKIT_VENDOR_READY);
    CHECK_THAT(v.version, Catch::Contains(std::string(layout) + "/lib64/libascendcl.so"));
    run_each_library();
    require_clean("loader path");
}

TEST_CASE("loading: NO_DEVICE says which library is missing", "[ascend][loading]") {
    struct Case {
        const char* layout;
        const char* why;
    };
    const Case cases[] = {
        {"empty", "neither libacl_rt.so nor libascendcl.so was found in"},
        {"no_nnopbase", "libnnopbase.so (aclnn tensors) was not found"},
        {"runtime_only", "no aclnn op library (libopapi_nn.so, libopapi.so or libaclnn_ops_infer.so) was found"},
    };
    for (const Case& c : cases) {
        INFO(c.layout);
        Session session(c.layout);
        const VendorInfo v = ascend_vendor();
        REQUIRE(v.found);
        CHECK(v.state == OPKIT_VENDOR_NO_DEVICE);
        CHECK(v.device_count == 0);
        CHECK_THAT(v.detail, Catch::Contains(c.why) && Catch::Contains(layout_home(c.layout) + "/lib64"));
        CHECK(opkit_device_count(OPKIT_DEVICE_ASCEND) == 0);
        // An op on ascend tensors now has nobody to serve it.
        opkit_tensor t{};
        int64_t shape[1] = {4};
        t.data = reinterpret_cast<void*>(uintptr_t(4096));
        t.device = npu();
        t.ndim = 1;
        t.dtype = f32();
        t.shape = shape;
        CHECK(opkit_softmax_forward(&t, &t, nullptr) == OPKIT_ERROR_NOT_FOUND);
    }
}

TEST_CASE("loading: NO_DEVICE when the runtime finds no NPU or fails to start", "[ascend][loading]") {
    struct Case {
        const char* failure;
        const char* why;
    };
    const Case cases[] = {
        {"no_device", "aclrtGetDeviceCount = 0"},
        {"device_count_error", "aclrtGetDeviceCount failed: 207004 (ACL_ERROR_RT_NO_DEVICE): EE1001: no NPU device found"},
        {"init_error", "aclInit(NULL) failed: 500001 (ACL_ERROR_FAILURE): EE1001: aclInit failed"},
    };
    for (const Case& c : cases) {
        INFO(c.failure);
        Session session("cann9", c.failure);
        const VendorInfo v = ascend_vendor();
        CHECK(v.state == OPKIT_VENDOR_NO_DEVICE);
        CHECK_THAT(v.detail, Catch::Contains(c.why) && Catch::Contains("libacl_rt.so"));
    }
}

TEST_CASE("loading: aclInit by someone else first (100002) is success, the vendor never finalizes it",
          "[ascend][loading]") {
    // Play torch_npu: initialize the runtime before opkit does.
    setenv("ASCEND_OPP_PATH", (emu_dir() + "/opp").c_str(), 1);
    void* rt = dlopen((layout_home("cann9") + "/lib64/libacl_rt.so").c_str(), RTLD_NOW | RTLD_LOCAL);
    REQUIRE(rt);
    auto acl_init = reinterpret_cast<acl::aclInit_t>(dlsym(rt, "aclInit"));
    auto acl_release = reinterpret_cast<acl::aclFinalizeReference_t>(dlsym(rt, "aclFinalizeReference"));
    auto recent = reinterpret_cast<acl::aclGetRecentErrMsg_t>(dlsym(rt, "aclGetRecentErrMsg"));
    REQUIRE(acl_init);
    REQUIRE(acl_release);
    const acl::Error first = acl_init(nullptr);
    CHECK((first == acl::kSuccess || first == acl::kRepeatInitialize));
    (void)recent();
    const int64_t refs = stats().init_refs, finals = stats().finalize_reference_calls;
    {
        Session session("cann9");
        CHECK(ascend_vendor().state == OPKIT_VENDOR_READY);  // its aclInit got 100002
        CHECK(stats().init_refs == refs + 1);
        run_each_library();
        require_clean("after a foreign aclInit");
    }
    // opkit released only its own reference: the runtime stays up for "torch_npu".
    CHECK(stats().init_refs == refs);
    CHECK(stats().finalize_reference_calls == finals + 1);
    uint64_t left = 99;
    CHECK(acl_release(&left) == acl::kSuccess);
    CHECK(left == uint64_t(refs - 1));
    dlclose(rt);
}

TEST_CASE("loading: aclnnInit runs once per process, across opkit_shutdown and opkit_init",
          "[ascend][loading]") {
    const int64_t before = stats().aclnn_init_calls;
    for (int cycle = 0; cycle < 3; ++cycle) {
        Session session("cann9");
        run_each_library();
        require_clean("cycle");
    }
    CHECK(stats().aclnn_init_calls - before <= 1);
    CHECK(stats().aclnn_init_calls >= 1);
}

TEST_CASE("loading: CANN 8.x has no aclFinalizeReference: the vendor leaves the runtime up",
          "[ascend][loading]") {
    const int64_t finals = stats().finalize_reference_calls;
    int64_t refs_inside = 0;
    {
        Session session("merged");
        run_each_library();
        refs_inside = stats().init_refs;
    }
    CHECK(stats().finalize_reference_calls == finals);
    CHECK(stats().init_refs == refs_inside);  // no aclFinalize either: it is not even declared
}
