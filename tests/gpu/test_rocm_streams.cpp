// rocm only: every op honours the caller's hipStream_t. The HIP-over-CUDA test runtime
// (tests/hip_on_cuda) counts kernel launches per stream handle; each op, called on a user
// stream, must launch there and never on the NULL stream. On a real AMD runtime the
// counter does not exist and the case is skipped (the ordering test of
// test_cuda_vendor.cpp still runs there).
#include "cuda_test_support.h"

#include <catch2/catch.hpp>

#include <dlfcn.h>

#include <functional>
#include <string>
#include <vector>

using namespace cudatest;

namespace {

using LaunchCount = uint64_t (*)(void* stream);

// The shim's counter, looked up in the HIP runtime the vendor loaded (RTLD_NOLOAD: only
// if it is already in the process).
LaunchCount shim_counter() {
    for (const char* lib : {"libamdhip64.so", "libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5"}) {
        void* h = dlopen(lib, RTLD_NOW | RTLD_NOLOAD);
        if (!h) continue;
        auto f = reinterpret_cast<LaunchCount>(dlsym(h, "opkit_hipshim_launches"));
        dlclose(h);
        if (f) return f;
    }
    return nullptr;
}

}  // namespace

TEST_CASE("rocm streams: every op launches on the caller's stream, none on the NULL stream", "[gpu][stream]") {
    if (!cuda_or_skip()) return;
    const LaunchCount launches = shim_counter();
    if (!launches) {
        skip_case("the per-stream launch counter exists only in the HIP-over-CUDA test runtime");
        return;
    }
    opkit_stream s = nullptr;
    REQUIRE_OK(opkit_stream_create(kGpu, &s));
    const opkit_dtype t = f32();
    const int64_t R = 6, N = 96, V = 50, B = 2, T = 3, H = 2, D = 8;
    Tensor x(t, {R, N}), w(t, {N}), bias(t, {N}), y(t, {R, N}), dy(t, {R, N}), dx(t, {R, N}), dw(t, {N}),
        db(t, {N});
    Tensor rstd(t, {R}), mean(t, {R});
    Tensor a(t, {R, N}), b(t, {R, N}), da(t, {R, N}), dbb(t, {R, N});
    Tensor rx(t, {B, T, H, D}), ry(t, {B, T, H, D}), rk(t, {B, T, 2, D}), cs(t, {T, D}), sn(t, {T, D});
    Tensor logits(t, {R, V}), dlogits(t, {R, V}), target(i64(), {R}), loss(t, {}), lse(t, {R}), dloss(t, {});
    Tensor emb(t, {V, N}), ids(i32(), {R}), ey(t, {R, N}), demb(t, {V, N});
    Tensor ma(t, {R, 16}), mb(t, {16, N}), mc(t, {R, N});
    for (Tensor* z : {&x, &w, &bias, &dy, &a, &b, &rx, &rk, &cs, &sn, &logits, &emb, &ma, &mb, &mc, &y, &mc})
        z->random(-1.f, 1.f, 7);
    target.random_ints(0, V - 1, 3);
    ids.random_ints(0, V - 1, 5);
    dloss.set(0, 1.0);
    for (Tensor* z : {&x, &w, &bias, &dy, &a, &b, &rx, &rk, &cs, &sn, &logits, &emb, &ma, &mb, &mc, &y, &target, &ids,
                      &dloss})
        z->upload();
    REQUIRE_OK(opkit_synchronize(kGpu, nullptr));

    const std::vector<std::pair<const char*, std::function<opkit_status()>>> calls = {
        {"rms_norm_forward", [&] { return opkit_rms_norm_forward(x.gpu(), w.gpu(), 1e-5f, 0.f, y.gpu(), rstd.gpu(), s); }},
        {"rms_norm_backward",
         [&] { return opkit_rms_norm_backward(dy.gpu(), x.gpu(), w.gpu(), rstd.gpu(), 0.f, dx.gpu(), dw.gpu(), s); }},
        {"layer_norm_forward",
         [&] { return opkit_layer_norm_forward(x.gpu(), w.gpu(), bias.gpu(), 1e-5f, y.gpu(), mean.gpu(), rstd.gpu(), s); }},
        {"layer_norm_backward",
         [&] {
             return opkit_layer_norm_backward(dy.gpu(), x.gpu(), w.gpu(), mean.gpu(), rstd.gpu(), dx.gpu(), dw.gpu(),
                                              db.gpu(), s);
         }},
        {"softmax_forward", [&] { return opkit_softmax_forward(x.gpu(), y.gpu(), s); }},
        {"softmax_backward", [&] { return opkit_softmax_backward(dy.gpu(), y.gpu(), dx.gpu(), s); }},
        {"swiglu_forward", [&] { return opkit_swiglu_forward(a.gpu(), b.gpu(), y.gpu(), s); }},
        {"swiglu_backward", [&] { return opkit_swiglu_backward(dy.gpu(), a.gpu(), b.gpu(), da.gpu(), dbb.gpu(), s); }},
        {"geglu_forward", [&] { return opkit_geglu_forward(a.gpu(), b.gpu(), OPKIT_GELU_TANH, y.gpu(), s); }},
        {"geglu_backward",
         [&] { return opkit_geglu_backward(dy.gpu(), a.gpu(), b.gpu(), OPKIT_GELU_NONE, da.gpu(), dbb.gpu(), s); }},
        {"rope_forward", [&] { return opkit_rope_forward(rx.gpu(), cs.gpu(), sn.gpu(), ry.gpu(), s); }},
        {"rope_backward", [&] { return opkit_rope_backward(rx.gpu(), cs.gpu(), sn.gpu(), ry.gpu(), s); }},
        {"rope_qk_forward",
         [&] { return opkit_rope_qk_forward(rx.gpu(), rk.gpu(), cs.gpu(), sn.gpu(), ry.gpu(), rk.gpu(), s); }},
        {"rope_qk_backward",
         [&] { return opkit_rope_qk_backward(rx.gpu(), rk.gpu(), cs.gpu(), sn.gpu(), ry.gpu(), rk.gpu(), s); }},
        {"cross_entropy_forward",
         [&] {
             return opkit_cross_entropy_forward(logits.gpu(), target.gpu(), -100, 0.1f, OPKIT_REDUCTION_MEAN,
                                                loss.gpu(), lse.gpu(), nullptr, s);
         }},
        {"cross_entropy_backward",
         [&] {
             return opkit_cross_entropy_backward(dloss.gpu(), logits.gpu(), target.gpu(), lse.gpu(), -100, 0.1f,
                                                 OPKIT_REDUCTION_MEAN, dlogits.gpu(), s);
         }},
        {"embedding_forward", [&] { return opkit_embedding_forward(emb.gpu(), ids.gpu(), ey.gpu(), s); }},
        {"embedding_backward", [&] { return opkit_embedding_backward(ey.gpu(), ids.gpu(), -1, demb.gpu(), s); }},
        {"axpy", [&] { return opkit_axpy(0.5f, x.gpu(), y.gpu(), s); }},
    };
    REQUIRE(calls.size() + 1 == size_t(opkit_op_count()));  // matmul below: its BLAS counts apart
    for (const auto& c : calls) {
        INFO(c.first);
        const uint64_t on_stream = launches(s), on_null = launches(nullptr);
        REQUIRE_OK(c.second());
        CHECK(launches(s) > on_stream);
        CHECK(launches(nullptr) == on_null);
    }
    // matmul: hipBLASLt/rocBLAS launch through their own kernels (the test libraries run
    // cuBLASLt), so the shim cannot count them; it must still complete on the stream.
    const uint64_t on_null = launches(nullptr);
    REQUIRE_OK(opkit_matmul(ma.gpu(), mb.gpu(), mc.gpu(), 1.f, 0.f, 0, 0, s));
    CHECK(launches(nullptr) == on_null);
    REQUIRE_OK(opkit_synchronize(kGpu, s));
    REQUIRE_OK(opkit_stream_destroy(kGpu, s));
}
