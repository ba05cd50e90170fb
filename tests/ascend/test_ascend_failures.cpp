// Each failure the emulator can inject, and the status and message the vendor turns it
// into: out of memory, an op symbol missing (declined, the host fallback serves it), a
// workspace query failing with a 561xxx code (declined) or another code (DEVICE), a
// launch failing (DEVICE, outputs untouched), a kernel failing on the device (reported by
// the synchronization), out-of-range indices; aclGetRecentErrMsg's text reaching the
// message once and only once; every aclnn object released on every path.
#include "ascend_test_support.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace asc;

namespace {

std::string message() { return opkit_last_error_message(); }

// softmax over [rows, n] with y poisoned and uploaded.
struct Softmax {
    Tensor x{f32(), {4, 33}}, y{f32(), {4, 33}};
    Softmax() {
        x.random(-3, 3, 11);
        y.poison();
        x.upload();
        y.upload();
    }
    opkit_status run(opkit_stream s = nullptr) { return opkit_softmax_forward(x.dev(), y.dev(), s); }
};

}  // namespace

TEST_CASE("failures: out of memory in opkit_malloc", "[ascend][failures]") {
    Session session("cann9", "oom");
    void* p = nullptr;
    CHECK(opkit_malloc(npu(), 1024, &p) == OPKIT_ERROR_OUT_OF_MEMORY);
    CHECK(p == nullptr);
    CHECK_THAT(message(), Catch::Contains("aclrtMalloc failed: 207001 (ACL_ERROR_RT_MEMORY_ALLOCATION)") &&
                              Catch::Contains("out of memory (injected)"));
}

TEST_CASE("failures: out of memory for an op's workspace: OUT_OF_MEMORY, outputs untouched, nothing leaked",
          "[ascend][failures]") {
    Session session("cann9");
    Softmax op;
    opkit_stream s = nullptr;
    REQUIRE_OK(opkit_stream_create(npu(), &s));  // a fresh stream: its workspace cache is empty
    REQUIRE(ascend_emu_set_failures("oom") == 0);
    CHECK(op.run(s) == OPKIT_ERROR_OUT_OF_MEMORY);
    CHECK_THAT(message(), Catch::Contains("softmax_forward") && Catch::Contains("207001") &&
                              Catch::Contains("out of memory (injected)"));
    REQUIRE(ascend_emu_set_failures("") == 0);
    CHECK(untouched(op.y, "y after the failed call"));
    require_clean("oom workspace");  // the executor made by phase 1 was released
    REQUIRE_OK(op.run(s));  // and the next call works
    REQUIRE_OK(opkit_synchronize(npu(), s));
    REQUIRE_OK(opkit_softmax_forward(op.x.cpu(), op.y.cpu(), nullptr));
    CHECK(same(op.y, "softmax_forward", "y", "after oom"));
    REQUIRE_OK(opkit_stream_destroy(npu(), s));
}

TEST_CASE("failures: an op symbol missing: declined with the reason, the host fallback serves it",
          "[ascend][failures]") {
    for (int fallback = 0; fallback < 2; ++fallback) {
        INFO("host fallback " << fallback);
        Session session("missing_op", "", fallback == 1);
        CHECK(ascend_vendor().state == OPKIT_VENDOR_READY);
        CHECK_THAT(ascend_vendor().version, Catch::Contains("23 of 25 aclnn ops"));
        Tensor x(f32(), {3, 16}), y(f32(), {3, 16});
        x.random(-2, 2, 5);
        y.poison();
        x.upload();
        y.upload();
        const opkit_status s = opkit_rms_norm_forward(x.dev(), nullptr, 1e-5f, 0.0f, y.dev(), nullptr, nullptr);
        const Dispatch d = last_dispatch();
        CHECK(d.declined == 1);
        CHECK(d.first_declined_by == "ascend");
        if (fallback) {
            REQUIRE_OK(s);
            CHECK(d.served_by == "host-fallback");
            REQUIRE_OK(opkit_rms_norm_forward(x.cpu(), nullptr, 1e-5f, 0.0f, y.cpu(), nullptr, nullptr));
            CHECK(same(y, "rms_norm_forward", "y", "served by the host fallback"));
        } else {
            CHECK(s == OPKIT_ERROR_UNSUPPORTED);
            CHECK_THAT(message(), Catch::Contains("aclnnRmsNorm / aclnnRmsNormGetWorkspaceSize are not exported") &&
                                      Catch::Contains("missing_op/lib64/libopapi.so") && Catch::Contains("declines"));
            CHECK(untouched(y, "declined rms_norm"));
        }
        // The ops whose aclnn calls are there still run on the NPU.
        Softmax other;
        REQUIRE_OK(other.run());
        CHECK(last_dispatch().served_by == "ascend");
        require_clean("missing op");
    }
}

TEST_CASE("failures: a workspace query failing with 561xxx declines the call", "[ascend][failures]") {
    Session session("cann9", "ws:Softmax=561003");
    Softmax op;
    CHECK(op.run() == OPKIT_ERROR_UNSUPPORTED);
    CHECK_THAT(message(), Catch::Contains("aclnnSoftmaxGetWorkspaceSize failed with 561003 "
                                          "(ACLNN_ERR_INNER_FIND_KERNEL_ERROR)") &&
                              Catch::Contains("Do not find tiling func of Softmax") && Catch::Contains("declines"));
    CHECK(last_dispatch().first_declined_by == "ascend");
    CHECK(untouched(op.y, "declined softmax"));
    require_clean("561003");
}

TEST_CASE("failures: a later step's workspace query failing declines before any output is written",
          "[ascend][failures]") {
    // cross_entropy_forward with dlogits: CrossEntropyLoss writes the loss, then
    // CrossEntropyLossGrad writes dlogits. Every phase 1 runs before any phase 2, so a
    // decline of the second step leaves the loss untouched too.
    Session session("cann9", "ws:CrossEntropyLossGrad=561112");
    Tensor logits(f32(), {5, 11}), target(i64(), {5}), loss(f32(), {}), dl(f32(), {5, 11});
    logits.random(-3, 3, 1);
    target.random_ints(0, 10, 2);
    loss.poison();
    dl.poison();
    for (Tensor* t : {&logits, &target, &loss, &dl}) t->upload();
    CHECK(opkit_cross_entropy_forward(logits.dev(), target.dev(), -100, 0.0f, OPKIT_REDUCTION_MEAN, loss.dev(),
                                      nullptr, dl.dev(), nullptr) == OPKIT_ERROR_UNSUPPORTED);
    CHECK_THAT(message(), Catch::Contains("561112 (ACLNN_ERR_INNER_OPP_KERNEL_PKG_NOT_FOUND)"));
    CHECK(untouched(loss, "loss of the declined call"));
    CHECK(untouched(dl, "dlogits of the declined call"));
    require_clean("decline of a later step");  // CrossEntropyLoss's executor was released unrun
}

TEST_CASE("failures: a workspace query failing with another code is a DEVICE error", "[ascend][failures]") {
    Session session("cann9", "ws:Softmax=161002");
    Softmax op;
    CHECK(op.run() == OPKIT_ERROR_DEVICE);
    CHECK_THAT(message(), Catch::Contains("aclnnSoftmaxGetWorkspaceSize failed: 161002 (ACLNN_ERR_PARAM_INVALID)") &&
                              Catch::Contains("(injected 161002)"));
    CHECK(untouched(op.y, "y"));
    require_clean("161002");
}

TEST_CASE("failures: a launch failing mid-call is a DEVICE error with the runtime's text", "[ascend][failures]") {
    SECTION("a single-step op: nothing written") {
        Session session("cann9", "exec:Softmax=361001");
        Softmax op;
        CHECK(op.run() == OPKIT_ERROR_DEVICE);
        CHECK_THAT(message(), Catch::Contains("softmax_forward: aclnnSoftmax failed: 361001 (ACLNN_ERR_RUNTIME_ERROR)") &&
                                  Catch::Contains("launch failed (injected 361001)"));
        CHECK(untouched(op.y, "y"));
        require_clean("exec failure");
    }
    SECTION("the second step of a composition: its output untouched, the later executors released") {
        // f16 cross_entropy_forward: Cast (runs), CrossEntropyLoss (fails to launch), then
        // the lse and gradient steps, which never run.
        Session session("cann9", "exec:CrossEntropyLoss=361001");
        Tensor logits(f16(), {5, 11}), target(i32(), {5}), loss(f32(), {5}), lse(f32(), {5}), dl(f16(), {5, 11});
        logits.random(-3, 3, 1);
        target.random_ints(0, 10, 2);
        for (Tensor* t : {&loss, &lse, &dl}) t->poison();
        for (Tensor* t : {&logits, &target, &loss, &lse, &dl}) t->upload();
        CHECK(opkit_cross_entropy_forward(logits.dev(), target.dev(), -100, 0.1f, OPKIT_REDUCTION_NONE, loss.dev(),
                                          lse.dev(), dl.dev(), nullptr) == OPKIT_ERROR_DEVICE);
        CHECK_THAT(message(), Catch::Contains("aclnnCrossEntropyLoss failed: 361001"));
        for (Tensor* t : {&loss, &lse, &dl}) CHECK(untouched(*t, "an output of the failed call"));
        require_clean("exec failure in a composition");
    }
}

TEST_CASE("failures: a kernel failing on the device is reported by the synchronization", "[ascend][failures]") {
    Session session("cann9", "kernel:Softmax");
    Softmax op;
    REQUIRE_OK(op.run());  // asynchronous: the launch succeeded
    const opkit_status s = opkit_synchronize(npu(), nullptr);
    CHECK(s == OPKIT_ERROR_DEVICE);
    CHECK_THAT(message(), Catch::Contains("aclrtSynchronizeDevice failed: 507035") &&
                              Catch::Contains("aivec error exception in aclnnSoftmax: injected fault"));
    REQUIRE(ascend_emu_set_failures("") == 0);
    require_clean("kernel fault");
}

TEST_CASE("failures: out-of-range ids and targets never read out of bounds, the device reports them",
          "[ascend][failures]") {
    Session session("cann9");
    SECTION("embedding") {
        Tensor w(f32(), {10, 4}), ids(i64(), {3}), y(f32(), {3, 4});
        w.random(-1, 1, 1);
        ids.set(0, 2);
        ids.set(1, 10);  // out of range
        ids.set(2, 0);
        for (Tensor* t : {&w, &ids, &y}) t->upload();
        REQUIRE_OK(opkit_embedding_forward(w.dev(), ids.dev(), y.dev(), nullptr));
        CHECK(opkit_synchronize(npu(), nullptr) == OPKIT_ERROR_DEVICE);
        CHECK_THAT(message(), Catch::Contains("indices[1] = 10 is outside [0, 10)"));
    }
    SECTION("cross_entropy") {
        Tensor logits(f32(), {3, 7}), target(i32(), {3}), loss(f32(), {});
        logits.random(-1, 1, 1);
        target.set(0, 1);
        target.set(1, -5);  // neither in range nor ignore_index
        target.set(2, 3);
        for (Tensor* t : {&logits, &target, &loss}) t->upload();
        REQUIRE_OK(opkit_cross_entropy_forward(logits.dev(), target.dev(), -100, 0.0f, OPKIT_REDUCTION_MEAN,
                                               loss.dev(), nullptr, nullptr, nullptr));
        CHECK(opkit_synchronize(npu(), nullptr) == OPKIT_ERROR_DEVICE);
        CHECK_THAT(message(), Catch::Contains("target[1] = -5 is outside [0, 7)"));
    }
    require_clean("out of range");
}

TEST_CASE("failures: aclGetRecentErrMsg's text is taken once: a later failure does not repeat it",
          "[ascend][failures]") {
    Session session("cann9", "exec:Softmax=361001,ws:LogSoftmax=161002");
    Softmax op;
    CHECK(op.run() == OPKIT_ERROR_DEVICE);
    const std::string first = message();
    CHECK_THAT(first, Catch::Contains("launch failed (injected 361001)"));
    Tensor logits(f32(), {2, 5}), target(i64(), {2}), dloss(f32(), {}), dl(f32(), {2, 5});
    logits.random(-1, 1, 3);
    dloss.set(0, 1.0);
    for (Tensor* t : {&logits, &target, &dloss, &dl}) t->upload();
    CHECK(opkit_cross_entropy_backward(dloss.dev(), logits.dev(), target.dev(), nullptr, -100, 0.0f,
                                       OPKIT_REDUCTION_MEAN, dl.dev(), nullptr) == OPKIT_ERROR_DEVICE);
    const std::string second = message();
    CHECK_THAT(second, Catch::Contains("aclnnLogSoftmaxGetWorkspaceSize failed: 161002"));
    CHECK_THAT(second, !Catch::Contains("361001") && !Catch::Contains("aclnnSoftmax "));
    require_clean("messages");
}
