// Streams and devices: every op is enqueued on the stream it is given (the emulator runs a
// stream's work only when that stream is synchronized, so an op that used another stream
// would still be pending), NULL is the default stream, streams share nothing that could
// interleave, destroying a stream waits for its work, the device comes from the tensors'
// device_id and the caller's current device is given back.
#include "acl_decls.h"
#include "ascend_test_support.h"

#include <catch2/catch.hpp>

#include <dlfcn.h>

#include <cstring>
#include <functional>
#include <memory>
#include <thread>

using namespace asc;

namespace {

using TP = std::unique_ptr<Tensor>;
TP make(opkit_dtype d, std::vector<int64_t> shape, int device = 0) {
    return std::make_unique<Tensor>(d, std::move(shape), Layout{}, device);
}

// One small call per op of the catalogue: its tensors, and the call on either side.
struct OpCase {
    std::string op;
    std::vector<TP> tensors;
    std::vector<std::pair<Tensor*, const char*>> outputs;  // (tensor, spec output name)
    std::function<opkit_status(bool, opkit_stream)> call;
};

std::vector<OpCase> every_op(int device) {
    std::vector<OpCase> cases;
    uint64_t seed = 1;
    auto add = [&](const char* op) -> OpCase& {
        cases.push_back(OpCase{});
        cases.back().op = op;
        return cases.back();
    };
    auto in = [&](OpCase& c, opkit_dtype d, std::vector<int64_t> shape, float lo = -2, float hi = 2) {
        c.tensors.push_back(make(d, std::move(shape), device));
        c.tensors.back()->random(lo, hi, seed++);
        return c.tensors.back().get();
    };
    auto out = [&](OpCase& c, opkit_dtype d, std::vector<int64_t> shape, const char* name) {
        c.tensors.push_back(make(d, std::move(shape), device));
        c.tensors.back()->poison();
        c.outputs.push_back({c.tensors.back().get(), name});
        return c.tensors.back().get();
    };
    {
        OpCase& c = add("rms_norm_forward");
        Tensor *x = in(c, f32(), {3, 16}), *w = in(c, f32(), {16}), *y = out(c, f32(), {3, 16}, "y"),
               *r = out(c, f32(), {3}, "rstd");
        c.call = [=](bool g, opkit_stream s) { return opkit_rms_norm_forward(x->on(g), w->on(g), 1e-5f, 0.5f, y->on(g), r->on(g), s); };
    }
    {
        OpCase& c = add("rms_norm_backward");
        Tensor *dy = in(c, f32(), {3, 16}), *x = in(c, f32(), {3, 16}), *w = in(c, f32(), {16}),
               *r = in(c, f32(), {3}, 0.5f, 1.5f), *dx = out(c, f32(), {3, 16}, "dx"), *dw = out(c, f32(), {16}, "dweight");
        c.call = [=](bool g, opkit_stream s) {
            return opkit_rms_norm_backward(dy->on(g), x->on(g), w->on(g), r->on(g), 0.0f, dx->on(g), dw->on(g), s);
        };
    }
    {
        OpCase& c = add("layer_norm_forward");
        Tensor *x = in(c, f16(), {3, 16}), *w = in(c, f16(), {16}), *b = in(c, f16(), {16}),
               *y = out(c, f16(), {3, 16}, "y"), *m = out(c, f32(), {3}, "mean"), *r = out(c, f32(), {3}, "rstd");
        c.call = [=](bool g, opkit_stream s) {
            return opkit_layer_norm_forward(x->on(g), w->on(g), b->on(g), 1e-5f, y->on(g), m->on(g), r->on(g), s);
        };
    }
    {
        OpCase& c = add("layer_norm_backward");
        Tensor *dy = in(c, f32(), {3, 16}), *x = in(c, f32(), {3, 16}), *w = in(c, f32(), {16}),
               *m = in(c, f32(), {3}), *r = in(c, f32(), {3}, 0.5f, 1.5f), *dx = out(c, f32(), {3, 16}, "dx"),
               *dw = out(c, f32(), {16}, "dweight"), *db = out(c, f32(), {16}, "dbias");
        c.call = [=](bool g, opkit_stream s) {
            return opkit_layer_norm_backward(dy->on(g), x->on(g), w->on(g), m->on(g), r->on(g), dx->on(g), dw->on(g),
                                             db->on(g), s);
        };
    }
    {
        OpCase& c = add("softmax_forward");
        Tensor *x = in(c, bf16(), {3, 16}), *y = out(c, bf16(), {3, 16}, "y");
        c.call = [=](bool g, opkit_stream s) { return opkit_softmax_forward(x->on(g), y->on(g), s); };
    }
    {
        OpCase& c = add("softmax_backward");
        Tensor *dy = in(c, f32(), {3, 16}), *y = in(c, f32(), {3, 16}, 0, 1), *dx = out(c, f32(), {3, 16}, "dx");
        c.call = [=](bool g, opkit_stream s) { return opkit_softmax_backward(dy->on(g), y->on(g), dx->on(g), s); };
    }
    for (int geglu = 0; geglu < 2; ++geglu) {
        {
            OpCase& c = add(geglu ? "geglu_forward" : "swiglu_forward");
            Tensor *a = in(c, f32(), {3, 16}), *b = in(c, f32(), {3, 16}), *y = out(c, f32(), {3, 16}, "y");
            c.call = [=](bool g, opkit_stream s) {
                return geglu ? opkit_geglu_forward(a->on(g), b->on(g), OPKIT_GELU_TANH, y->on(g), s)
                             : opkit_swiglu_forward(a->on(g), b->on(g), y->on(g), s);
            };
        }
        {
            OpCase& c = add(geglu ? "geglu_backward" : "swiglu_backward");
            Tensor *dy = in(c, f32(), {3, 16}), *a = in(c, f32(), {3, 16}), *b = in(c, f32(), {3, 16}),
                   *da = out(c, f32(), {3, 16}, "da"), *db = out(c, f32(), {3, 16}, "db");
            c.call = [=](bool g, opkit_stream s) {
                return geglu ? opkit_geglu_backward(dy->on(g), a->on(g), b->on(g), OPKIT_GELU_NONE, da->on(g), db->on(g), s)
                             : opkit_swiglu_backward(dy->on(g), a->on(g), b->on(g), da->on(g), db->on(g), s);
            };
        }
    }
    for (int backward = 0; backward < 2; ++backward) {
        OpCase& c = add(backward ? "rope_backward" : "rope_forward");
        Tensor *x = in(c, f32(), {2, 3, 2, 8}), *cs = in(c, f32(), {3, 8}), *sn = in(c, f32(), {3, 8}),
               *y = out(c, f32(), {2, 3, 2, 8}, backward ? "dx" : "y");
        c.call = [=](bool g, opkit_stream s) {
            return backward ? opkit_rope_backward(x->on(g), cs->on(g), sn->on(g), y->on(g), s)
                            : opkit_rope_forward(x->on(g), cs->on(g), sn->on(g), y->on(g), s);
        };
    }
    for (int backward = 0; backward < 2; ++backward) {
        OpCase& c = add(backward ? "rope_qk_backward" : "rope_qk_forward");
        Tensor *q = in(c, f32(), {2, 3, 4, 8}), *k = in(c, f32(), {2, 3, 2, 8}), *cs = in(c, f32(), {3, 8}),
               *sn = in(c, f32(), {3, 8}), *qo = out(c, f32(), {2, 3, 4, 8}, backward ? "dq" : "q_out"),
               *ko = out(c, f32(), {2, 3, 2, 8}, backward ? "dk" : "k_out");
        c.call = [=](bool g, opkit_stream s) {
            return backward ? opkit_rope_qk_backward(q->on(g), k->on(g), cs->on(g), sn->on(g), qo->on(g), ko->on(g), s)
                            : opkit_rope_qk_forward(q->on(g), k->on(g), cs->on(g), sn->on(g), qo->on(g), ko->on(g), s);
        };
    }
    {
        OpCase& c = add("cross_entropy_forward");
        Tensor *l = in(c, f32(), {4, 9}, -3, 3), *t = in(c, i64(), {4}), *loss = out(c, f32(), {}, "loss"),
               *lse = out(c, f32(), {4}, "lse"), *dl = out(c, f32(), {4, 9}, "dlogits");
        t->random_ints(0, 8, seed++);
        c.call = [=](bool g, opkit_stream s) {
            return opkit_cross_entropy_forward(l->on(g), t->on(g), -100, 0.1f, OPKIT_REDUCTION_MEAN, loss->on(g),
                                               lse->on(g), dl->on(g), s);
        };
    }
    {
        OpCase& c = add("cross_entropy_backward");
        Tensor *dloss = in(c, f32(), {4}, 0.5f, 1.5f), *l = in(c, f32(), {4, 9}, -3, 3), *t = in(c, i32(), {4}),
               *dl = out(c, f32(), {4, 9}, "dlogits");
        t->random_ints(0, 8, seed++);
        c.call = [=](bool g, opkit_stream s) {
            return opkit_cross_entropy_backward(dloss->on(g), l->on(g), t->on(g), nullptr, -100, 0.0f,
                                                OPKIT_REDUCTION_NONE, dl->on(g), s);
        };
    }
    {
        OpCase& c = add("embedding_forward");
        Tensor *w = in(c, f32(), {10, 8}), *ids = in(c, i32(), {5}), *y = out(c, f32(), {5, 8}, "y");
        ids->random_ints(0, 9, seed++);
        c.call = [=](bool g, opkit_stream s) { return opkit_embedding_forward(w->on(g), ids->on(g), y->on(g), s); };
    }
    {
        OpCase& c = add("embedding_backward");
        Tensor *dy = in(c, f32(), {5, 8}), *ids = in(c, i64(), {5}), *dw = out(c, f32(), {10, 8}, "dweight");
        ids->random_ints(0, 9, seed++);
        c.call = [=](bool g, opkit_stream s) { return opkit_embedding_backward(dy->on(g), ids->on(g), 3, dw->on(g), s); };
    }
    {
        OpCase& c = add("matmul");
        Tensor *a = in(c, f32(), {2, 5, 7}), *b = in(c, f32(), {1, 7, 3}), *cc = in(c, f32(), {2, 5, 3});
        c.outputs.push_back({cc, "c"});
        c.call = [=](bool g, opkit_stream s) { return opkit_matmul(a->on(g), b->on(g), cc->on(g), 2.0f, 0.5f, 0, 0, s); };
    }
    {
        OpCase& c = add("axpy");
        Tensor *x = in(c, f16(), {3, 16}), *y = in(c, f16(), {3, 16});
        c.outputs.push_back({y, "y"});
        c.call = [=](bool g, opkit_stream s) { return opkit_axpy(0.25f, x->on(g), y->on(g), s); };
    }
    for (OpCase& c : cases)
        for (TP& t : c.tensors) t->upload();
    return cases;
}

}  // namespace

TEST_CASE("streams: every op runs on the stream it is given", "[ascend][streams]") {
    Session session;
    std::vector<OpCase> cases = every_op(0);
    REQUIRE(int(cases.size()) == opkit_op_count());
    opkit_stream s = nullptr;
    REQUIRE_OK(opkit_stream_create(npu(), &s));
    for (OpCase& c : cases) {
        INFO(c.op);
        REQUIRE(stats().pending_tasks == 0);
        REQUIRE_OK(c.call(true, s));
        REQUIRE(last_dispatch().served_by == "ascend");
        // Queued, not run: the outputs still hold what was uploaded.
        CHECK(stats().pending_tasks > 0);
        for (auto& [t, name] : c.outputs) {
            std::vector<uint8_t> raw(t->host_storage().size());
            std::memcpy(raw.data(), t->device_storage(), raw.size());  // the emulator's memory is host memory
            CHECK(raw == t->host_storage());
        }
        // Synchronizing that stream runs all of it: nothing went to another stream.
        REQUIRE_OK(opkit_synchronize(npu(), s));
        CHECK(stats().pending_tasks == 0);
        REQUIRE_OK(c.call(false, nullptr));
        for (auto& [t, name] : c.outputs) CHECK(same(*t, c.op.c_str(), name, c.op + " on a user stream", 1.0));
    }
    REQUIRE_OK(opkit_stream_destroy(npu(), s));
    require_clean("user stream");
}

TEST_CASE("streams: NULL is the default stream, which a device synchronization runs", "[ascend][streams]") {
    Session session;
    std::vector<OpCase> cases = every_op(0);
    for (OpCase& c : cases) REQUIRE_OK(c.call(true, nullptr));
    CHECK(stats().pending_tasks > 0);
    REQUIRE_OK(opkit_synchronize(npu(), nullptr));
    CHECK(stats().pending_tasks == 0);
    // Each case's outputs after all of them ran in order (the host side in the same order).
    for (OpCase& c : cases) REQUIRE_OK(c.call(false, nullptr));
    for (OpCase& c : cases)
        for (auto& [t, name] : c.outputs) CHECK(same(*t, c.op.c_str(), name, c.op + " on the default stream", 1.0));
    require_clean("default stream");
}

TEST_CASE("streams: two streams and two threads at once, each with its own workspace", "[ascend][streams]") {
    Session session;
    std::vector<OpCase> a = every_op(0), b = every_op(0);
    opkit_stream s1 = nullptr, s2 = nullptr;
    REQUIRE_OK(opkit_stream_create(npu(), &s1));
    REQUIRE_OK(opkit_stream_create(npu(), &s2));
    opkit_status sa = OPKIT_OK, sb = OPKIT_OK;
    std::thread ta([&] {
        for (int round = 0; round < 3; ++round)
            for (OpCase& c : a)
                if (sa == OPKIT_OK) sa = c.call(true, s1);
    });
    std::thread tb([&] {
        for (int round = 0; round < 3; ++round)
            for (OpCase& c : b)
                if (sb == OPKIT_OK) sb = c.call(true, s2);
    });
    ta.join();
    tb.join();
    REQUIRE(sa == OPKIT_OK);
    REQUIRE(sb == OPKIT_OK);
    REQUIRE_OK(opkit_synchronize(npu(), s1));
    REQUIRE_OK(opkit_synchronize(npu(), s2));
    for (std::vector<OpCase>* set : {&a, &b}) {
        for (int round = 0; round < 3; ++round)
            for (OpCase& c : *set) REQUIRE_OK(c.call(false, nullptr));
        for (OpCase& c : *set)
            for (auto& [t, name] : c.outputs) CHECK(same(*t, c.op.c_str(), name, c.op + " from two threads", 1.0));
    }
    REQUIRE_OK(opkit_stream_destroy(npu(), s1));
    REQUIRE_OK(opkit_stream_destroy(npu(), s2));
    require_clean("two streams");
}

TEST_CASE("streams: destroying a stream waits for its work", "[ascend][streams]") {
    Session session;
    std::vector<OpCase> cases = every_op(0);
    opkit_stream s = nullptr;
    REQUIRE_OK(opkit_stream_create(npu(), &s));
    OpCase& c = cases.front();
    REQUIRE_OK(c.call(true, s));
    REQUIRE_OK(opkit_stream_destroy(npu(), s));  // the emulator refuses to destroy a busy stream
    CHECK(stats().pending_tasks == 0);
    REQUIRE_OK(c.call(false, nullptr));
    for (auto& [t, name] : c.outputs) CHECK(same(*t, c.op.c_str(), name, "after destroy", 1.0));
    require_clean("destroy");
}

TEST_CASE("streams: tensors on device 1 run on device 1, and the caller's device is given back",
          "[ascend][streams]") {
    Session session;
    void* rt = dlopen((layout_home("cann9") + "/lib64/libacl_rt.so").c_str(), RTLD_NOW | RTLD_LOCAL);
    REQUIRE(rt);
    auto set_device = reinterpret_cast<acl::aclrtSetDevice_t>(dlsym(rt, "aclrtSetDevice"));
    auto get_device = reinterpret_cast<acl::aclrtGetDevice_t>(dlsym(rt, "aclrtGetDevice"));
    REQUIRE(set_device(0) == acl::kSuccess);  // the application's own current device
    std::vector<OpCase> cases = every_op(1);
    opkit_stream s = nullptr;
    REQUIRE_OK(opkit_stream_create(npu(1), &s));
    for (OpCase& c : cases) {
        INFO(c.op);
        // Device 1's memory used with device 0 current would be refused by the emulator.
        REQUIRE_OK(c.call(true, s));
        int32_t current = -1;
        REQUIRE(get_device(&current) == acl::kSuccess);
        CHECK(current == 0);
    }
    REQUIRE_OK(opkit_synchronize(npu(1), s));
    for (OpCase& c : cases) {
        REQUIRE_OK(c.call(false, nullptr));
        for (auto& [t, name] : c.outputs) CHECK(same(*t, c.op.c_str(), name, c.op + " on device 1", 1.0));
    }
    REQUIRE_OK(opkit_stream_destroy(npu(1), s));
    CHECK(stats().violations == 0);
    dlclose(rt);
}

TEST_CASE("streams: opkit_memcpy between host and NPU and within the NPU", "[ascend][streams]") {
    Session session;
    std::vector<float> host(1000), back(1000);
    for (size_t i = 0; i < host.size(); ++i) host[i] = float(i) * 0.5f - 7;
    void *a = nullptr, *b = nullptr, *c = nullptr;
    REQUIRE_OK(opkit_malloc(npu(0), 4000, &a));
    REQUIRE_OK(opkit_malloc(npu(0), 4000, &b));
    REQUIRE_OK(opkit_malloc(npu(1), 4000, &c));
    REQUIRE_OK(opkit_memcpy(a, npu(0), host.data(), kCpu, 4000, nullptr));
    REQUIRE_OK(opkit_memcpy(b, npu(0), a, npu(0), 4000, nullptr));  // aligned: asynchronous on the chip
    REQUIRE_OK(opkit_memcpy(static_cast<char*>(b) + 4, npu(0), static_cast<char*>(a) + 8, npu(0), 400,
                            nullptr));  // unaligned: staged
    REQUIRE_OK(opkit_memcpy(c, npu(1), b, npu(0), 4000, nullptr));  // across devices: staged
    REQUIRE_OK(opkit_memcpy(back.data(), kCpu, c, npu(1), 4000, nullptr));
    for (size_t i = 0; i < host.size(); ++i) {
        const float want = i >= 1 && i < 101 ? host[i + 1] : host[i];
        if (back[i] != want) FAIL_CHECK("element " << i << ": " << back[i] << " != " << want);
    }
    REQUIRE_OK(opkit_free(npu(0), a));
    REQUIRE_OK(opkit_free(npu(0), b));
    REQUIRE_OK(opkit_free(npu(1), c));
    require_clean("memcpy");
}

TEST_CASE("streams: tensors that say device type 12 (kDLExtDev, what torch_npu exports) reach the vendor",
          "[ascend][streams]") {
    Session session;
    std::vector<OpCase> cases = every_op(0);
    for (OpCase& c : cases)
        for (TP& t : c.tensors) t->dev()->device.device_type = 12;
    for (OpCase& c : cases) {
        INFO(c.op);
        REQUIRE_OK(c.call(true, nullptr));
        CHECK(last_dispatch().served_by == "ascend");
    }
    // Memory and streams through device type 12 too.
    const opkit_device ext{12, 0};
    opkit_stream s = nullptr;
    REQUIRE_OK(opkit_stream_create(ext, &s));
    void* p = nullptr;
    REQUIRE_OK(opkit_malloc(ext, 64, &p));
    const float in[4] = {1, 2, 3, 4};
    float out[4] = {};
    REQUIRE_OK(opkit_memcpy(p, ext, in, kCpu, sizeof in, s));
    REQUIRE_OK(opkit_memcpy(out, kCpu, p, ext, sizeof out, s));
    CHECK(out[3] == 4.0f);
    REQUIRE_OK(opkit_free(ext, p));
    REQUIRE_OK(opkit_stream_destroy(ext, s));
    for (OpCase& c : cases) REQUIRE_OK(c.call(false, nullptr));
    for (OpCase& c : cases)
        for (auto& [t, name] : c.outputs) CHECK(same(*t, c.op.c_str(), name, c.op + " as device type 12", 1.0));
    require_clean("device type 12");
}
