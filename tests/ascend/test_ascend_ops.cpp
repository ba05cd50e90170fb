// Every op, forward and backward, on the ascend vendor over the emulator, against opkit's
// CPU defaults on byte-identical inputs: every dtype, odd sizes, 1-D, padded, permuted and
// misaligned views, in place, both GeGlu approximations, every cross-entropy variant.
// Outputs start poisoned (NaN) and must match within the tolerance table, padding
// untouched; afterwards every aclnn object is released and nothing violated the
// emulator's checks.
#include "ascend_test_support.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <memory>

using namespace asc;

namespace {

using TP = std::unique_ptr<Tensor>;
TP make(opkit_dtype d, std::vector<int64_t> shape, Layout l = {}) {
    return std::make_unique<Tensor>(d, std::move(shape), l);
}
opkit_tensor* on(bool device, const TP& t) { return t ? t->on(device) : nullptr; }

const opkit_dtype kFloats[] = {f32(), f16(), bf16()};

struct RowCase {
    std::vector<int64_t> shape;
    Layout layout;
};
const std::vector<RowCase>& row_cases() {
    static const std::vector<RowCase> cases = {
        {{1, 1}, {}},
        {{3, 3}, {}},
        {{5, 127}, {}},
        {{7}, {}},                         // 1-D: one row
        {{2, 3, 127}, {{}, 3, 1}},         // padded rows, start misaligned by one element
        {{3, 2, 65}, {{1, 0, 2}, 0, 0}},   // permuted outer dimensions
        {{4, 64}, {{}, 8, 0}},             // padded rows
        {{6, 100}, {{}, 0, 1}},            // dense, misaligned by one element
        {{130, 33}, {}},
    };
    return cases;
}

int64_t rows_of(const std::vector<int64_t>& s) {
    int64_t r = 1;
    for (size_t i = 0; i + 1 < s.size(); ++i) r *= s[i];
    return r;
}

// The call on the host copies (CPU defaults), then on the NPU copies (the vendor).
template <class F>
void both(F&& call) {
    REQUIRE_OK(call(false));
    REQUIRE_OK(call(true));
    const Dispatch d = last_dispatch();
    REQUIRE(d.served_by == "ascend");
}

std::string label(const char* op, opkit_dtype d, const RowCase& c) {
    return std::string(op) + " " + dtype_name(d) + " " + shape_str(c.shape) + " pad " + std::to_string(c.layout.pad) +
           " offset " + std::to_string(c.layout.offset) + (c.layout.perm.empty() ? "" : " permuted");
}

}  // namespace

TEST_CASE("ops: rms_norm forward and backward match the CPU", "[ascend][ops]") {
    Session session;
    uint64_t seed = 1;
    for (opkit_dtype d : kFloats)
        for (const RowCase& c : row_cases())
            for (int variant = 0; variant < 3; ++variant) {  // weight; no weight; Gemma offset 1, in place
                const std::string what = label("rms_norm", d, c) + " variant " + std::to_string(variant);
                INFO(what);
                const int64_t n = c.shape.back(), rows = rows_of(c.shape);
                TP x = make(d, c.shape, c.layout), y = make(d, c.shape, c.layout);
                TP w = variant == 1 ? nullptr : make(d, {n});
                TP rstd = make(f32(), {rows});
                x->random(-2, 2, seed++);
                if (w) w->random(-1.5f, 1.5f, seed++);
                y->poison();
                rstd->poison();
                const float offset = variant == 2 ? 1.0f : 0.0f;
                for (Tensor* t : {x.get(), y.get(), rstd.get()}) t->upload();
                if (w) w->upload();
                Tensor& out = variant == 2 ? *x : *y;
                both([&](bool g) {
                    return opkit_rms_norm_forward(on(g, x), on(g, w), 1e-5f, offset, out.on(g), on(g, rstd), nullptr);
                });
                CHECK(same(out, "rms_norm_forward", "y", what + " y"));
                CHECK(same(*rstd, "rms_norm_forward", "rstd", what + " rstd"));

                // Backward, with the reference forward's rstd on both sides.
                TP xb = make(d, c.shape, c.layout), dy = make(d, c.shape, c.layout), dx = make(d, c.shape, c.layout);
                TP dw = w ? make(d, {n}) : nullptr;
                xb->random(-2, 2, seed++);
                dy->random(-1, 1, seed++);
                dx->poison();
                REQUIRE_OK(opkit_rms_norm_forward(xb->cpu(), on(false, w), 1e-5f, offset, y->cpu(), rstd->cpu(), nullptr));
                for (Tensor* t : {xb.get(), dy.get(), dx.get(), rstd.get()}) t->upload();
                if (dw) {
                    dw->poison();
                    dw->upload();
                }
                both([&](bool g) {
                    return opkit_rms_norm_backward(on(g, dy), on(g, xb), on(g, w), on(g, rstd), offset, on(g, dx),
                                                   on(g, dw), nullptr);
                });
                CHECK(same(*dx, "rms_norm_backward", "dx", what + " dx", 1.0));
                if (dw) CHECK(same(*dw, "rms_norm_backward", "dweight", what + " dweight"));
            }
    require_clean("rms_norm");
}

TEST_CASE("ops: layer_norm forward and backward match the CPU", "[ascend][ops]") {
    Session session;
    uint64_t seed = 100;
    for (opkit_dtype d : kFloats)
        for (const RowCase& c : row_cases())
            for (int variant = 0; variant < 4; ++variant) {
                // 0: weight + bias + stats; 1: no affine; 2: bias only, in place; 3: weight + bias,
                // no stats (f16/bf16 then run in their own dtype)
                const std::string what = label("layer_norm", d, c) + " variant " + std::to_string(variant);
                INFO(what);
                const int64_t n = c.shape.back(), rows = rows_of(c.shape);
                TP x = make(d, c.shape, c.layout), y = make(d, c.shape, c.layout);
                TP w = variant == 0 || variant == 3 ? make(d, {n}) : nullptr;
                TP b = variant != 1 ? make(d, {n}) : nullptr;
                TP mean = make(f32(), {rows}), rstd = make(f32(), {rows});
                x->random(-2, 3, seed++);
                if (w) w->random(-1.5f, 1.5f, seed++);
                if (b) b->random(-1, 1, seed++);
                for (Tensor* t : {y.get(), mean.get(), rstd.get()}) t->poison();
                for (Tensor* t : {x.get(), y.get(), mean.get(), rstd.get()}) t->upload();
                if (w) w->upload();
                if (b) b->upload();
                Tensor& out = variant == 2 ? *x : *y;
                const bool stats = variant != 3;
                both([&](bool g) {
                    return opkit_layer_norm_forward(on(g, x), on(g, w), on(g, b), 1e-5f, out.on(g),
                                                    stats ? mean->on(g) : nullptr, stats ? rstd->on(g) : nullptr,
                                                    nullptr);
                });
                CHECK(same(out, "layer_norm_forward", "y", what + " y"));
                if (stats) {
                    CHECK(same(*mean, "layer_norm_forward", "mean", what + " mean", 1.0));
                    CHECK(same(*rstd, "layer_norm_forward", "rstd", what + " rstd"));
                }
                if (variant == 3) continue;

                TP xb = make(d, c.shape, c.layout), dy = make(d, c.shape, c.layout), dx = make(d, c.shape, c.layout);
                TP dw = w ? make(d, {n}) : nullptr, db = b ? make(d, {n}) : nullptr;
                xb->random(-2, 3, seed++);
                dy->random(-1, 1, seed++);
                REQUIRE_OK(opkit_layer_norm_forward(xb->cpu(), on(false, w), nullptr, 1e-5f, y->cpu(), mean->cpu(),
                                                    rstd->cpu(), nullptr));
                dx->poison();
                for (Tensor* t : {xb.get(), dy.get(), dx.get(), mean.get(), rstd.get()}) t->upload();
                for (TP* t : {&dw, &db})
                    if (*t) {
                        (*t)->poison();
                        (*t)->upload();
                    }
                // variant 2: dx aliasing dy
                Tensor& grad = variant == 2 ? *dy : *dx;
                both([&](bool g) {
                    return opkit_layer_norm_backward(on(g, dy), on(g, xb), on(g, w), on(g, mean), on(g, rstd),
                                                     grad.on(g), on(g, dw), on(g, db), nullptr);
                });
                CHECK(same(grad, "layer_norm_backward", "dx", what + " dx", 1.0));
                if (dw) CHECK(same(*dw, "layer_norm_backward", "dweight", what + " dweight"));
                if (db) CHECK(same(*db, "layer_norm_backward", "dbias", what + " dbias"));
            }
    require_clean("layer_norm");
}

TEST_CASE("ops: softmax forward and backward match the CPU", "[ascend][ops]") {
    Session session;
    uint64_t seed = 200;
    for (opkit_dtype d : kFloats)
        for (const RowCase& c : row_cases())
            for (int in_place = 0; in_place < 2; ++in_place) {
                const std::string what = label("softmax", d, c) + (in_place ? " in place" : "");
                INFO(what);
                TP x = make(d, c.shape, c.layout), y = make(d, c.shape, c.layout);
                x->random(-6, 6, seed++);
                y->poison();
                x->upload();
                y->upload();
                Tensor& out = in_place ? *x : *y;
                both([&](bool g) { return opkit_softmax_forward(on(g, x), out.on(g), nullptr); });
                CHECK(same(out, "softmax_forward", "y", what + " y"));

                TP dy = make(d, c.shape, c.layout), dx = make(d, c.shape, c.layout);
                dy->random(-1, 1, seed++);
                dx->poison();
                out.upload();  // the reference y, the input of the backward on both sides
                dy->upload();
                dx->upload();
                Tensor& grad = in_place ? *dy : *dx;
                both([&](bool g) { return opkit_softmax_backward(on(g, dy), out.on(g), grad.on(g), nullptr); });
                CHECK(same(grad, "softmax_backward", "dx", what + " dx"));
            }
    require_clean("softmax");
}

TEST_CASE("ops: swiglu and geglu (erf and tanh) forward and backward match the CPU", "[ascend][ops]") {
    Session session;
    uint64_t seed = 300;
    for (opkit_dtype d : kFloats)
        for (const RowCase& c : row_cases())
            for (int act = 0; act < 3; ++act)  // swiglu, geglu erf (approximate 0), geglu tanh (1)
                for (int layout = 0; layout < 3; ++layout) {
                    // 0: separate a, b; 1: a and b the halves of one buffer (a fused gate/up
                    // output), y strided; 2: gradients in place over a and b
                    const char* names[] = {"swiglu", "geglu erf", "geglu tanh"};
                    const std::string what = label(names[act], d, c) + " layout " + std::to_string(layout);
                    INFO(what);
                    const int64_t n = c.shape.back();
                    TP a, b, whole;
                    std::vector<int64_t> wide = c.shape;
                    wide.back() = 2 * n;
                    if (layout == 1) {
                        whole = make(d, wide);
                        whole->random(-4, 4, seed++);
                    }
                    a = make(d, c.shape, c.layout);
                    b = make(d, c.shape, c.layout);
                    a->random(-4, 4, seed++);
                    b->random(-2, 2, seed++);
                    // For layout 1, a and b are views of `whole`.
                    opkit_tensor av[2], bv[2];
                    std::vector<int64_t> half_strides(c.shape.size());
                    if (layout == 1) {
                        int64_t s = 1;
                        for (size_t k = c.shape.size(); k-- > 0;) {
                            half_strides[k] = s;
                            s *= k + 1 == c.shape.size() ? 2 * n : c.shape[k];
                        }
                        for (int g = 0; g < 2; ++g) {
                            av[g] = *whole->on(g);
                            av[g].shape = const_cast<int64_t*>(a->shape().data());
                            av[g].strides = half_strides.data();
                            bv[g] = av[g];
                            bv[g].byte_offset += uint64_t(n) * whole->element_size();
                        }
                        whole->upload();
                    } else {
                        for (int g = 0; g < 2; ++g) {
                            av[g] = *a->on(g);
                            bv[g] = *b->on(g);
                        }
                        a->upload();
                        b->upload();
                    }
                    TP y = make(d, c.shape, layout == 1 ? Layout{{}, 2, 0} : c.layout);
                    y->poison();
                    y->upload();
                    const int32_t approximate = act == 2 ? OPKIT_GELU_TANH : OPKIT_GELU_NONE;
                    both([&](bool g) {
                        return act == 0 ? opkit_swiglu_forward(&av[g], &bv[g], y->on(g), nullptr)
                                        : opkit_geglu_forward(&av[g], &bv[g], approximate, y->on(g), nullptr);
                    });
                    CHECK(same(*y, act ? "geglu_forward" : "swiglu_forward", "y", what + " y"));

                    TP dy = make(d, c.shape, c.layout);
                    dy->random(-1, 1, seed++);
                    dy->upload();
                    TP da = make(d, c.shape, c.layout), db = make(d, c.shape, c.layout);
                    opkit_tensor dav[2], dbv[2];
                    TP dwhole;
                    if (layout == 1) {  // the gradients as the halves of one buffer too
                        dwhole = make(d, wide);
                        dwhole->poison();
                        dwhole->upload();
                        for (int g = 0; g < 2; ++g) {
                            dav[g] = *dwhole->on(g);
                            dav[g].shape = const_cast<int64_t*>(a->shape().data());
                            dav[g].strides = half_strides.data();
                            dbv[g] = dav[g];
                            dbv[g].byte_offset += uint64_t(n) * dwhole->element_size();
                        }
                    } else if (layout == 2) {  // in place: da = a, db = b
                        for (int g = 0; g < 2; ++g) {
                            dav[g] = av[g];
                            dbv[g] = bv[g];
                        }
                    } else {
                        da->poison();
                        db->poison();
                        da->upload();
                        db->upload();
                        for (int g = 0; g < 2; ++g) {
                            dav[g] = *da->on(g);
                            dbv[g] = *db->on(g);
                        }
                    }
                    both([&](bool g) {
                        return act == 0 ? opkit_swiglu_backward(dy->on(g), &av[g], &bv[g], &dav[g], &dbv[g], nullptr)
                                        : opkit_geglu_backward(dy->on(g), &av[g], &bv[g], approximate, &dav[g],
                                                               &dbv[g], nullptr);
                    });
                    const char* op = act ? "geglu_backward" : "swiglu_backward";
                    if (layout == 1) {
                        // da and db side by side in one buffer: each half under its own tolerance.
                        CHECK(same_columns(*dwhole, 0, n, op, "da", what + " da"));
                        CHECK(same_columns(*dwhole, n, n, op, "db", what + " db"));
                    } else if (layout == 2) {
                        CHECK(same(*a, op, "da", what + " da (in place)"));
                        CHECK(same(*b, op, "db", what + " db (in place)"));
                    } else {
                        CHECK(same(*da, op, "da", what + " da"));
                        CHECK(same(*db, op, "db", what + " db"));
                    }
                }
    require_clean("gated");
}

TEST_CASE("ops: rope forward and backward match the CPU", "[ascend][ops]") {
    Session session;
    struct RopeCase {
        std::vector<int64_t> bthd;
        Layout layout;
    };
    const std::vector<RopeCase> cases = {
        {{1, 1, 1, 2}, {}},
        {{2, 5, 3, 8}, {}},
        {{2, 7, 4, 64}, {{0, 2, 1, 3}, 4, 1}},  // [B,H,T,D] storage, padded, misaligned
        {{1, 33, 2, 128}, {}},
    };
    uint64_t seed = 400;
    for (opkit_dtype d : kFloats)
        for (const RopeCase& c : cases)
            for (int variant = 0; variant < 3; ++variant)  // cos/sin [T,D]; [B,T,D]; [T,D] in place
                for (int backward = 0; backward < 2; ++backward) {
                    const int64_t B = c.bthd[0], T = c.bthd[1], D = c.bthd[3];
                    const std::vector<int64_t> cs = variant == 1 ? std::vector<int64_t>{B, T, D}
                                                                 : std::vector<int64_t>{T, D};
                    const std::string what = std::string(backward ? "rope_backward " : "rope_forward ") +
                                             dtype_name(d) + " " + shape_str(c.bthd) + " variant " +
                                             std::to_string(variant);
                    INFO(what);
                    TP x = make(d, c.bthd, c.layout), cos = make(d, cs), sin = make(d, cs);
                    TP y = make(d, c.bthd, c.layout);
                    x->random(-2, 2, seed++);
                    cos->random(-1, 1, seed++);  // arbitrary cos/sin: the rotation is checked as a map
                    sin->random(-1, 1, seed++);
                    y->poison();
                    for (Tensor* t : {x.get(), cos.get(), sin.get(), y.get()}) t->upload();
                    Tensor& out = variant == 2 ? *x : *y;
                    both([&](bool g) {
                        return backward ? opkit_rope_backward(x->on(g), cos->on(g), sin->on(g), out.on(g), nullptr)
                                        : opkit_rope_forward(x->on(g), cos->on(g), sin->on(g), out.on(g), nullptr);
                    });
                    CHECK(same(out, backward ? "rope_backward" : "rope_forward", backward ? "dx" : "y", what));
                }
    require_clean("rope");
}

TEST_CASE("ops: rope_qk forward and backward match the CPU, as one call of two steps", "[ascend][ops]") {
    Session session;
    struct QKCase {
        std::vector<int64_t> q, k;
        Layout layout;
    };
    const std::vector<QKCase> cases = {
        {{1, 1, 1, 2}, {1, 1, 1, 2}, {}},
        {{2, 5, 3, 8}, {2, 5, 1, 8}, {}},
        {{2, 7, 4, 64}, {2, 7, 2, 64}, {{0, 2, 1, 3}, 4, 1}},  // [B,H,T,D] storage, padded, misaligned
        {{1, 33, 2, 128}, {1, 33, 6, 128}, {}},
    };
    uint64_t seed = 450;
    for (opkit_dtype d : kFloats)
        for (const QKCase& c : cases)
            for (int variant = 0; variant < 3; ++variant)  // cos/sin [T,D]; [B,T,D]; [T,D] in place
                for (int backward = 0; backward < 2; ++backward) {
                    const int64_t B = c.q[0], T = c.q[1], D = c.q[3];
                    const std::vector<int64_t> cs = variant == 1 ? std::vector<int64_t>{B, T, D}
                                                                 : std::vector<int64_t>{T, D};
                    const char* op = backward ? "rope_qk_backward" : "rope_qk_forward";
                    const std::string what = std::string(op) + " " + dtype_name(d) + " q " + shape_str(c.q) + " k " +
                                             shape_str(c.k) + " variant " + std::to_string(variant);
                    INFO(what);
                    TP q = make(d, c.q, c.layout), k = make(d, c.k, c.layout), cos = make(d, cs), sin = make(d, cs);
                    TP qo = make(d, c.q, c.layout), ko = make(d, c.k, c.layout);
                    q->random(-2, 2, seed++);
                    k->random(-2, 2, seed++);
                    cos->random(-1, 1, seed++);
                    sin->random(-1, 1, seed++);
                    qo->poison();
                    ko->poison();
                    for (Tensor* t : {q.get(), k.get(), cos.get(), sin.get(), qo.get(), ko.get()}) t->upload();
                    Tensor& qout = variant == 2 ? *q : *qo;
                    Tensor& kout = variant == 2 ? *k : *ko;
                    both([&](bool g) {
                        return backward ? opkit_rope_qk_backward(q->on(g), k->on(g), cos->on(g), sin->on(g),
                                                                 qout.on(g), kout.on(g), nullptr)
                                        : opkit_rope_qk_forward(q->on(g), k->on(g), cos->on(g), sin->on(g),
                                                                qout.on(g), kout.on(g), nullptr);
                    });
                    CHECK(last_dispatch().declined == 0);  // the vendor's own rope_qk served it
                    CHECK(same(qout, op, backward ? "dq" : "q_out", what + " q"));
                    CHECK(same(kout, op, backward ? "dk" : "k_out", what + " k"));
                }
    require_clean("rope_qk");
}

TEST_CASE("ops: rope_qk with no q heads: declined by the vendor, served by it through two rope calls",
          "[ascend][ops]") {
    Session session;
    TP q = make(f32(), {2, 3, 0, 8}), k = make(f32(), {2, 3, 2, 8}), cos = make(f32(), {3, 8}),
       sin = make(f32(), {3, 8}), qo = make(f32(), {2, 3, 0, 8}), ko = make(f32(), {2, 3, 2, 8});
    k->random(-2, 2, 1);
    cos->random(-1, 1, 2);
    sin->random(-1, 1, 3);
    ko->poison();
    for (Tensor* t : {q.get(), k.get(), cos.get(), sin.get(), qo.get(), ko.get()}) t->upload();
    REQUIRE_OK(opkit_rope_qk_forward(q->cpu(), k->cpu(), cos->cpu(), sin->cpu(), qo->cpu(), ko->cpu(), nullptr));
    REQUIRE_OK(opkit_rope_qk_forward(q->dev(), k->dev(), cos->dev(), sin->dev(), qo->dev(), ko->dev(), nullptr));
    // the vendor's rope_qk declined (an empty input with a non-empty output); libopkit's
    // composite default ran rope_forward twice, both served by the vendor
    const Dispatch d = last_dispatch();
    CHECK(d.served_by == "ascend");
    CHECK(d.declined == 1);
    CHECK(d.first_declined_by == "ascend");
    CHECK(same(*ko, "rope_qk_forward", "k_out", "no q heads"));
    require_clean("rope_qk composite");
}

TEST_CASE("ops: rope with D >= 896 is declined, and the host fallback serves it", "[ascend][ops]") {
    const std::vector<int64_t> shape = {1, 2, 1, 896};
    for (int fallback = 0; fallback < 2; ++fallback) {
        Session session("cann9", "", fallback == 1);
        TP x = make(f32(), shape), cos = make(f32(), {2, 896}), sin = make(f32(), {2, 896}), y = make(f32(), shape);
        x->random(-1, 1, 1);
        cos->random(-1, 1, 2);
        sin->random(-1, 1, 3);
        y->poison();
        for (Tensor* t : {x.get(), cos.get(), sin.get(), y.get()}) t->upload();
        const opkit_status s = opkit_rope_forward(x->dev(), cos->dev(), sin->dev(), y->dev(), nullptr);
        const std::string message = opkit_last_error_message();
        const Dispatch dispatch = last_dispatch();
        CHECK(dispatch.first_declined_by == "ascend");
        if (fallback) {
            REQUIRE_OK(s);
            REQUIRE_OK(opkit_rope_forward(x->cpu(), cos->cpu(), sin->cpu(), y->cpu(), nullptr));
            CHECK(same(*y, "rope_forward", "y", "host fallback"));
        } else {
            CHECK(s == OPKIT_ERROR_UNSUPPORTED);
            CHECK_THAT(message, Catch::Contains("D = 896") && Catch::Contains("D < 896"));
            CHECK(untouched(*y, "declined rope"));
        }
        require_clean("rope decline");
    }
}

TEST_CASE("ops: cross_entropy forward and backward match the CPU", "[ascend][ops]") {
    Session session;
    struct CeCase {
        std::vector<int64_t> shape;
        Layout layout;
    };
    const std::vector<CeCase> cases = {{{1, 1}, {}}, {{3, 7}, {}}, {{37, 1000}, {{}, 3, 1}}, {{5, 3001}, {}}};
    const char* reductions[] = {"none", "mean", "sum"};
    uint64_t seed = 500;
    int variant = 0;
    for (opkit_dtype d : kFloats)
        for (const CeCase& c : cases)
            for (int reduction = 0; reduction < 3; ++reduction)
                for (float smoothing : {0.0f, 0.1f}) {
                    ++variant;
                    const int64_t rows = c.shape[0], V = c.shape[1];
                    const opkit_dtype index = variant % 2 ? i64() : i32();
                    const int dl_mode = variant % 3;  // 0: no dlogits, 1: separate, 2: in place
                    const bool with_lse = variant % 2 == 0;
                    const std::string what = std::string(dtype_name(d)) + " " + shape_str(c.shape) + " " +
                                             reductions[reduction] + " smoothing " + std::to_string(smoothing) + " " +
                                             dtype_name(index) + (with_lse ? " lse" : "") + " dlogits mode " +
                                             std::to_string(dl_mode);
                    INFO(what);
                    const std::vector<int64_t> loss_shape =
                        reduction ? std::vector<int64_t>{} : std::vector<int64_t>{rows};
                    TP logits = make(d, c.shape, c.layout), target = make(index, {rows});
                    logits->random(-6, 6, seed++);
                    target->random_ints(0, V - 1, seed++);
                    for (int64_t i = 1; i < rows; i += 3) target->set(i, -100);  // ignored rows
                    TP loss = make(f32(), loss_shape), lse = make(f32(), {rows}), dl = make(d, c.shape, c.layout);
                    for (Tensor* t : {loss.get(), lse.get(), dl.get()}) t->poison();
                    for (Tensor* t : {logits.get(), target.get(), loss.get(), lse.get(), dl.get()}) t->upload();
                    Tensor* grad = dl_mode == 1 ? dl.get() : dl_mode == 2 ? logits.get() : nullptr;
                    both([&](bool g) {
                        return opkit_cross_entropy_forward(logits->on(g), target->on(g), -100, smoothing, reduction,
                                                           loss->on(g), with_lse ? lse->on(g) : nullptr,
                                                           grad ? grad->on(g) : nullptr, nullptr);
                    });
                    CHECK(same(*loss, "cross_entropy_forward", "loss", what + " loss", 1.0));
                    if (with_lse) CHECK(same(*lse, "cross_entropy_forward", "lse", what + " lse"));
                    if (grad) CHECK(same(*grad, "cross_entropy_forward", "dlogits", what + " dlogits", 1.0));

                    // Backward from a random upstream gradient, lse given or recomputed.
                    TP logits2 = make(d, c.shape, c.layout), dloss = make(f32(), loss_shape);
                    TP dl2 = make(d, c.shape, c.layout);
                    logits2->random(-6, 6, seed++);
                    dloss->random(0.5f, 2.0f, seed++);
                    dl2->poison();
                    REQUIRE_OK(opkit_cross_entropy_forward(logits2->cpu(), target->cpu(), -100, smoothing, reduction,
                                                           loss->cpu(), lse->cpu(), nullptr, nullptr));
                    for (Tensor* t : {logits2.get(), dloss.get(), dl2.get(), lse.get()}) t->upload();
                    Tensor& g2 = dl_mode == 2 ? *logits2 : *dl2;
                    both([&](bool g) {
                        return opkit_cross_entropy_backward(dloss->on(g), logits2->on(g), target->on(g),
                                                            with_lse ? lse->on(g) : nullptr, -100, smoothing,
                                                            reduction, g2.on(g), nullptr);
                    });
                    CHECK(same(g2, "cross_entropy_backward", "dlogits", what + " backward dlogits", 1.0));
                }
    require_clean("cross_entropy");
}

TEST_CASE("ops: cross_entropy MEAN with every row ignored is NaN with a zero gradient", "[ascend][ops]") {
    Session session;
    for (opkit_dtype d : kFloats) {
        INFO(dtype_name(d));
        TP logits = make(d, {4, 33}), target = make(i64(), {4}), loss = make(f32(), {}), dl = make(d, {4, 33});
        logits->random(-2, 2, 7);
        for (int64_t i = 0; i < 4; ++i) target->set(i, -100);
        loss->poison();
        dl->poison();
        for (Tensor* t : {logits.get(), target.get(), loss.get(), dl.get()}) t->upload();
        both([&](bool g) {
            return opkit_cross_entropy_forward(logits->on(g), target->on(g), -100, 0.0f, OPKIT_REDUCTION_MEAN,
                                               loss->on(g), nullptr, dl->on(g), nullptr);
        });
        const std::vector<uint8_t> got = loss->download();
        CHECK(std::isnan(loss->value_in(got, 0)));
        CHECK(identical(*dl, "all-ignored dlogits"));
    }
    require_clean("cross_entropy all ignored");
}

TEST_CASE("ops: embedding forward and backward match the CPU", "[ascend][ops]") {
    Session session;
    struct EmbCase {
        int64_t V, D;
        Layout layout;
        std::vector<int64_t> ids;
        opkit_dtype index;
    };
    const std::vector<EmbCase> cases = {
        {1, 1, Layout{}, {1}, i64()},
        {37, 5, Layout{}, {3, 20}, i32()},  // 60 ids over 37 rows: repeats accumulate
        {1000, 129, Layout{{}, 3, 1}, {2, 3, 5}, i64()},
        {50, 256, Layout{}, {300}, i32()},
    };
    uint64_t seed = 600;
    for (opkit_dtype d : kFloats)
        for (const EmbCase& c : cases) {
            std::vector<int64_t> y_shape = c.ids;
            y_shape.push_back(c.D);
            const std::string what = std::string(dtype_name(d)) + " V " + std::to_string(c.V) + " D " +
                                     std::to_string(c.D) + " ids " + shape_str(c.ids) + " " + dtype_name(c.index);
            INFO(what);
            TP w = make(d, {c.V, c.D}, c.layout), ids = make(c.index, c.ids), y = make(d, y_shape);
            w->random(-2, 2, seed++);
            ids->random_ints(0, c.V - 1, seed++);
            y->poison();
            for (Tensor* t : {w.get(), ids.get(), y.get()}) t->upload();
            both([&](bool g) { return opkit_embedding_forward(w->on(g), ids->on(g), y->on(g), nullptr); });
            CHECK(identical(*y, what + " y"));  // a gather is exact

            for (int64_t padding_idx : {int64_t(-1), c.V / 2}) {
                TP dy = make(d, y_shape), dw = make(d, {c.V, c.D}, c.layout);
                dy->random(-1, 1, seed++);
                dw->poison();
                dy->upload();
                dw->upload();
                both([&](bool g) {
                    return opkit_embedding_backward(dy->on(g), ids->on(g), padding_idx, dw->on(g), nullptr);
                });
                CHECK(same(*dw, "embedding_backward", "dweight", what + " padding_idx " + std::to_string(padding_idx)));
            }
        }
    require_clean("embedding");
}

TEST_CASE("ops: matmul matches the CPU (transposes, batches, alpha/beta)", "[ascend][ops]") {
    Session session;
    struct MM {
        int64_t batch_a, batch_b, m, k, n, pad;
    };
    const std::vector<MM> shapes = {{0, 0, 1, 1, 1, 0},  {0, 0, 17, 33, 9, 0}, {0, 0, 64, 128, 32, 3},
                                    {3, 1, 17, 33, 9, 0}, {1, 4, 5, 7, 3, 0},  {2, 2, 8, 16, 8, 2}};
    uint64_t seed = 700;
    int variant = 0;
    for (opkit_dtype d : kFloats)
        for (const MM& s : shapes)
            for (int trans_a = 0; trans_a < 2; ++trans_a)
                for (int trans_b = 0; trans_b < 2; ++trans_b) {
                    ++variant;
                    const int kind = variant % 3;  // 0: alpha 1 beta 0; 1: alpha 1.5 beta 0.5; 2: alpha -2 beta 0
                    const float alpha = kind == 0 ? 1.0f : kind == 1 ? 1.5f : -2.0f;
                    const float beta = kind == 1 ? 0.5f : 0.0f;
                    auto shaped = [](int64_t batch, int64_t r, int64_t c) {
                        return batch ? std::vector<int64_t>{batch, r, c} : std::vector<int64_t>{r, c};
                    };
                    const int64_t batch = std::max(s.batch_a, s.batch_b);
                    const std::vector<int64_t> a_shape = shaped(s.batch_a, trans_a ? s.k : s.m, trans_a ? s.m : s.k);
                    const std::vector<int64_t> b_shape = shaped(s.batch_b, trans_b ? s.n : s.k, trans_b ? s.k : s.n);
                    const std::vector<int64_t> c_shape = shaped(batch, s.m, s.n);
                    const std::string what = std::string(dtype_name(d)) + " " + shape_str(a_shape) +
                                             (trans_a ? "^T" : "") + " x " + shape_str(b_shape) +
                                             (trans_b ? "^T" : "") + " alpha " + std::to_string(alpha) + " beta " +
                                             std::to_string(beta);
                    INFO(what);
                    TP a = make(d, a_shape, {{}, s.pad, 0}), b = make(d, b_shape), c = make(d, c_shape, {{}, s.pad, 0});
                    a->random(-1, 1, seed++);
                    b->random(-1, 1, seed++);
                    if (beta != 0) c->random(-1, 1, seed++);
                    else c->poison();  // NaN in c must not leak into the result when beta is 0
                    for (Tensor* t : {a.get(), b.get(), c.get()}) t->upload();
                    both([&](bool g) {
                        return opkit_matmul(a->on(g), b->on(g), c->on(g), alpha, beta, trans_a, trans_b, nullptr);
                    });
                    CHECK(same(*c, "matmul", "c", what));
                }
    require_clean("matmul");
}

TEST_CASE("ops: axpy matches the CPU", "[ascend][ops]") {
    Session session;
    uint64_t seed = 800;
    for (opkit_dtype d : kFloats)
        for (const RowCase& c : row_cases()) {
            const std::string what = label("axpy", d, c);
            INFO(what);
            TP x = make(d, c.shape, c.layout), y = make(d, c.shape, c.layout);
            x->random(-2, 2, seed++);
            y->random(-2, 2, seed++);
            x->upload();
            y->upload();
            both([&](bool g) { return opkit_axpy(-0.75f, x->on(g), y->on(g), nullptr); });
            CHECK(same(*y, "axpy", "y", what));
        }
    require_clean("axpy");
}

TEST_CASE("ops: calls with empty tensors", "[ascend][ops]") {
    Session session;
    // Nothing to write: done. An output with elements from an empty input: declined.
    TP x = make(f32(), {0, 5}), y = make(f32(), {0, 5});
    REQUIRE_OK(opkit_softmax_forward(x->dev(), y->dev(), nullptr));
    TP a = make(f32(), {3, 0}), b = make(f32(), {0, 4}), c = make(f32(), {3, 4});
    c->poison();
    c->upload();
    CHECK(opkit_matmul(a->dev(), b->dev(), c->dev(), 1.0f, 0.0f, 0, 0, nullptr) == OPKIT_ERROR_UNSUPPORTED);
    CHECK_THAT(std::string(opkit_last_error_message()), Catch::Contains("no elements"));
    CHECK(untouched(*c, "declined empty matmul"));
    require_clean("empty");
}
