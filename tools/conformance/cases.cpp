#include "cases.h"

#include <algorithm>
#include <stdexcept>

namespace conformance {
namespace {

// Owns a case while it is being put together.
class Builder {
public:
    Builder(const char* op, opkit_dtype d, std::string what) : c_(std::make_unique<Case>()) {
        c_->op = op;
        c_->label = std::string(dtype_name(d)) + " " + what;
    }

    TwinTensor* input(opkit_dtype d, std::vector<int64_t> shape, Layout l = {}, float lo = -2, float hi = 2) {
        TwinTensor* t = add(d, std::move(shape), l);
        t->random(lo, hi, seed_++);
        return t;
    }
    TwinTensor* ids(opkit_dtype d, std::vector<int64_t> shape, int64_t lo, int64_t hi) {
        TwinTensor* t = add(d, std::move(shape), {});
        t->random_ints(lo, hi, seed_++);
        return t;
    }
    // Poisoned, and compared after the call.
    TwinTensor* output(opkit_dtype d, std::vector<int64_t> shape, const char* name, Layout l = {},
                       double scale_floor = 0.0) {
        TwinTensor* t = add(d, std::move(shape), l);
        t->poison();
        return compared(t, name, scale_floor);
    }
    // An input that the op also writes (in place), compared after the call.
    TwinTensor* compared(TwinTensor* t, const char* name, double scale_floor = 0.0) {
        c_->outputs.push_back({t, name, scale_floor, {}});
        return t;
    }
    // Storage only the builder uses (a forward's output while making backward inputs).
    TwinTensor* scratch(opkit_dtype d, std::vector<int64_t> shape, Layout l = {}) {
        return add(d, std::move(shape), l);
    }

    std::unique_ptr<Case> done(std::function<opkit_status(bool)> call) {
        c_->call = std::move(call);
        return std::move(c_);
    }

private:
    TwinTensor* add(opkit_dtype d, std::vector<int64_t> shape, Layout l) {
        c_->tensors.push_back(std::make_unique<TwinTensor>(d, std::move(shape), l));
        return c_->tensors.back().get();
    }
    std::unique_ptr<Case> c_;
    static uint64_t seed_;
};
uint64_t Builder::seed_ = 1;

opkit_tensor* on(TwinTensor* t, bool device_side) { return t ? t->on(device_side) : nullptr; }

// Backward inputs (saved statistics) come from the CPU defaults on the host copies.
void must(opkit_status s, const char* what) {
    if (s != OPKIT_OK)
        throw std::runtime_error(std::string("building the catalogue: ") + what + " failed: " +
                                 opkit_status_string(s) + ": " + opkit_last_error_message());
}

struct RowShape {
    std::vector<int64_t> shape;
    Layout layout;
};

std::string describe(const RowShape& r) {
    std::string s = shape_str(r.shape);
    if (r.layout.pad) s += " pad " + std::to_string(r.layout.pad);
    if (r.layout.offset) s += " offset " + std::to_string(r.layout.offset);
    if (!r.layout.perm.empty()) s += " permuted";
    return s;
}

std::vector<RowShape> row_shapes(bool quick) {
    std::vector<RowShape> s = {
        {{1, 1}, {}},
        {{3, 3}, {}},
        {{5, 127}, {}},
        {{3, 4097}, {}},
        {{2, 3, 127}, {{}, 3, 1}},         // padded rows, start misaligned by one element
        {{3, 2, 4097}, {{1, 0, 2}, 0, 0}},  // permuted outer dimensions
    };
    if (quick) return s;
    s.push_back({{130, 127}, {}});
    s.push_back({{1030, 8}, {}});
    s.push_back({{4, 64}, {{}, 8, 0}});     // padded rows that stay 16-byte aligned
    s.push_back({{6, 1000}, {{}, 0, 1}});   // dense rows, misaligned by one element
    s.push_back({{2, 65536}, {}});          // rows wider than one block
    // Where the cuda vendor's launch plans change (warp per row -> block per row ->
    // streaming, for 2- and 4-byte types, forward and backward), and rows enough for
    // every resident row group to take several.
    s.push_back({{3, 1025}, {}});
    s.push_back({{2, 8193}, {}});
    s.push_back({{2, 16385}, {}});
    s.push_back({{2, 32769}, {}});
    s.push_back({{3000, 520}, {}});
    return s;
}

int64_t rows_of(const std::vector<int64_t>& s) {
    int64_t r = 1;
    for (size_t i = 0; i + 1 < s.size(); ++i) r *= s[i];
    return r;
}

using Cases = std::vector<std::unique_ptr<Case>>;

void rms_norm(Cases& out, opkit_dtype d, const RowShape& r) {
    const int64_t n = r.shape.back(), rows = rows_of(r.shape);
    const char* fwd_variants[] = {"weight", "no weight", "offset 1 in place"};
    for (int v = 0; v < 3; ++v) {
        Builder b("rms_norm_forward", d, describe(r) + " " + fwd_variants[v]);
        TwinTensor* x = b.input(d, r.shape, r.layout);
        TwinTensor* w = v == 1 ? nullptr : b.input(d, {n}, {}, -1.5f, 1.5f);
        TwinTensor* y = v == 2 ? b.compared(x, "y (in place)") : b.output(d, r.shape, "y", r.layout);
        TwinTensor* rstd = v == 1 ? nullptr : b.output(f32(), {rows}, "rstd");
        const float offset = v == 2 ? 1.0f : 0.0f;
        out.push_back(b.done([=](bool g) {
            return opkit_rms_norm_forward(x->on(g), on(w, g), 1e-5f, offset, y->on(g), on(rstd, g), nullptr);
        }));
    }
    const char* bwd_variants[] = {"weight + dweight", "no weight", "dx aliasing dy"};
    for (int v = 0; v < 3; ++v) {
        Builder b("rms_norm_backward", d, describe(r) + " " + bwd_variants[v]);
        TwinTensor* x = b.input(d, r.shape, r.layout);
        TwinTensor* w = v == 1 ? nullptr : b.input(d, {n}, {}, -1.5f, 1.5f);
        TwinTensor* rstd = b.scratch(f32(), {rows});
        must(opkit_rms_norm_forward(x->host(), on(w, false), 1e-5f, 0.0f, b.scratch(d, r.shape, r.layout)->host(),
                                    rstd->host(), nullptr),
             "rms_norm_forward");
        TwinTensor* dy = b.input(d, r.shape, r.layout, -1, 1);
        // dx cancels to ~eps at N = 1: measure it against O(1), not against itself.
        TwinTensor* dx = v == 2 ? b.compared(dy, "dx (in place)", 1.0) : b.output(d, r.shape, "dx", r.layout, 1.0);
        TwinTensor* dw = v == 0 ? b.output(d, {n}, "dweight") : nullptr;
        out.push_back(b.done([=](bool g) {
            return opkit_rms_norm_backward(dy->on(g), x->on(g), on(w, g), rstd->on(g), 0.0f, dx->on(g), on(dw, g),
                                           nullptr);
        }));
    }
}

void layer_norm(Cases& out, opkit_dtype d, const RowShape& r) {
    const int64_t n = r.shape.back(), rows = rows_of(r.shape);
    const char* fwd_variants[] = {"weight + bias", "no affine, no stats", "bias only, in place"};
    for (int v = 0; v < 3; ++v) {
        Builder b("layer_norm_forward", d, describe(r) + " " + fwd_variants[v]);
        TwinTensor* x = b.input(d, r.shape, r.layout);
        TwinTensor* w = v == 0 ? b.input(d, {n}, {}, -1.5f, 1.5f) : nullptr;
        TwinTensor* bias = v != 1 ? b.input(d, {n}) : nullptr;
        TwinTensor* y = v == 2 ? b.compared(x, "y (in place)") : b.output(d, r.shape, "y", r.layout);
        TwinTensor* mean = v == 1 ? nullptr : b.output(f32(), {rows}, "mean", {}, 1.0);
        TwinTensor* rstd = v == 1 ? nullptr : b.output(f32(), {rows}, "rstd");
        out.push_back(b.done([=](bool g) {
            return opkit_layer_norm_forward(x->on(g), on(w, g), on(bias, g), 1e-5f, y->on(g), on(mean, g),
                                            on(rstd, g), nullptr);
        }));
    }
    const char* bwd_variants[] = {"dweight + dbias", "no weight, dbias only", "dx aliasing dy"};
    for (int v = 0; v < 3; ++v) {
        Builder b("layer_norm_backward", d, describe(r) + " " + bwd_variants[v]);
        TwinTensor* x = b.input(d, r.shape, r.layout);
        TwinTensor* w = v == 1 ? nullptr : b.input(d, {n}, {}, -1.5f, 1.5f);
        TwinTensor* mean = b.scratch(f32(), {rows});
        TwinTensor* rstd = b.scratch(f32(), {rows});
        must(opkit_layer_norm_forward(x->host(), on(w, false), nullptr, 1e-5f,
                                      b.scratch(d, r.shape, r.layout)->host(), mean->host(), rstd->host(), nullptr),
             "layer_norm_forward");
        TwinTensor* dy = b.input(d, r.shape, r.layout, -1, 1);
        TwinTensor* dx = v == 2 ? b.compared(dy, "dx (in place)", 1.0) : b.output(d, r.shape, "dx", r.layout, 1.0);
        TwinTensor* dw = v == 0 ? b.output(d, {n}, "dweight") : nullptr;
        TwinTensor* db = v != 2 ? b.output(d, {n}, "dbias") : nullptr;
        out.push_back(b.done([=](bool g) {
            return opkit_layer_norm_backward(dy->on(g), x->on(g), on(w, g), mean->on(g), rstd->on(g), dx->on(g),
                                             on(dw, g), on(db, g), nullptr);
        }));
    }
}

void softmax(Cases& out, opkit_dtype d, const RowShape& r) {
    for (int v = 0; v < 2; ++v) {
        Builder b("softmax_forward", d, describe(r) + (v ? " in place" : ""));
        TwinTensor* x = b.input(d, r.shape, r.layout, -4, 4);
        TwinTensor* y = v ? b.compared(x, "y (in place)") : b.output(d, r.shape, "y", r.layout);
        out.push_back(b.done([=](bool g) { return opkit_softmax_forward(x->on(g), y->on(g), nullptr); }));
    }
    for (int v = 0; v < 2; ++v) {
        Builder b("softmax_backward", d, describe(r) + (v ? " dx aliasing dy" : ""));
        TwinTensor* y = b.input(d, r.shape, r.layout, -4, 4);
        must(opkit_softmax_forward(y->host(), y->host(), nullptr), "softmax_forward");  // a real softmax
        TwinTensor* dy = b.input(d, r.shape, r.layout, -1, 1);
        TwinTensor* dx = v ? b.compared(dy, "dx (in place)", 1.0) : b.output(d, r.shape, "dx", r.layout, 1.0);
        out.push_back(b.done([=](bool g) { return opkit_softmax_backward(dy->on(g), y->on(g), dx->on(g), nullptr); }));
    }
}

void gated(Cases& out, opkit_dtype d, const RowShape& r) {
    // approximate: -1 = swiglu, 0 = geglu erf, 1 = geglu tanh
    for (int approximate = -1; approximate <= 1; ++approximate) {
        const bool swiglu = approximate < 0;
        const std::string kind = swiglu ? "" : approximate ? " tanh" : " erf";
        {
            Builder b(swiglu ? "swiglu_forward" : "geglu_forward", d, describe(r) + kind);
            TwinTensor* a = b.input(d, r.shape, r.layout, -4, 4);
            TwinTensor* bb = b.input(d, r.shape, r.layout);
            TwinTensor* y = b.output(d, r.shape, "y", r.layout);
            out.push_back(b.done([=](bool g) {
                return swiglu ? opkit_swiglu_forward(a->on(g), bb->on(g), y->on(g), nullptr)
                              : opkit_geglu_forward(a->on(g), bb->on(g), approximate, y->on(g), nullptr);
            }));
        }
        for (int v = 0; v < 2; ++v) {
            Builder b(swiglu ? "swiglu_backward" : "geglu_backward", d,
                      describe(r) + kind + (v ? " da/db aliasing a/b" : ""));
            TwinTensor* dy = b.input(d, r.shape, r.layout, -1, 1);
            TwinTensor* a = b.input(d, r.shape, r.layout, -4, 4);
            TwinTensor* bb = b.input(d, r.shape, r.layout);
            TwinTensor* da = v ? b.compared(a, "da (in place)") : b.output(d, r.shape, "da", r.layout);
            TwinTensor* db = v ? b.compared(bb, "db (in place)") : b.output(d, r.shape, "db", r.layout);
            out.push_back(b.done([=](bool g) {
                return swiglu ? opkit_swiglu_backward(dy->on(g), a->on(g), bb->on(g), da->on(g), db->on(g), nullptr)
                              : opkit_geglu_backward(dy->on(g), a->on(g), bb->on(g), approximate, da->on(g),
                                                     db->on(g), nullptr);
            }));
        }
    }
}

void axpy(Cases& out, opkit_dtype d, const RowShape& r) {
    Builder b("axpy", d, describe(r));
    TwinTensor* x = b.input(d, r.shape, r.layout);
    TwinTensor* y = b.compared(b.input(d, r.shape, r.layout), "y (accumulated)");
    out.push_back(b.done([=](bool g) { return opkit_axpy(-0.75f, x->on(g), y->on(g), nullptr); }));
}

void rope(Cases& out, opkit_dtype d, bool quick) {
    struct RopeShape {
        std::vector<int64_t> bthd;
        Layout layout;
    };
    std::vector<RopeShape> shapes = {
        {{1, 1, 1, 2}, {}},
        {{2, 5, 3, 8}, {}},
        {{2, 7, 4, 64}, {{0, 2, 1, 3}, 4, 1}},  // [B,H,T,D] storage, padded, misaligned
    };
    if (!quick) {
        shapes.push_back({{1, 33, 2, 128}, {}});
        shapes.push_back({{2, 17, 32, 128}, {}});  // 4 heads per thread, several positions per block
    }
    for (const RopeShape& s : shapes)
        for (int v = 0; v < 3; ++v) {  // 0: cos/sin [T,D], 1: [B,T,D], 2: [T,D] in place
            const int64_t B = s.bthd[0], T = s.bthd[1], D = s.bthd[3];
            const std::vector<int64_t> cs_shape = v == 1 ? std::vector<int64_t>{B, T, D} : std::vector<int64_t>{T, D};
            const std::string what = describe({s.bthd, s.layout}) + (v == 1 ? " cos/sin [B,T,D]" : "") +
                                     (v == 2 ? " in place" : "");
            for (int backward = 0; backward < 2; ++backward) {
                Builder b(backward ? "rope_backward" : "rope_forward", d, what);
                TwinTensor* x = b.input(d, s.bthd, s.layout);
                TwinTensor* cos = b.input(d, cs_shape, {}, -1, 1);
                TwinTensor* sin = b.input(d, cs_shape, {}, -1, 1);
                // Named as the spec names the output: y (forward), dx (backward).
                const char* out_name = backward ? "dx" : "y";
                const std::string in_place = std::string(out_name) + " (in place)";
                TwinTensor* y = v == 2 ? b.compared(x, in_place.c_str()) : b.output(d, s.bthd, out_name, s.layout);
                out.push_back(b.done([=](bool g) {
                    return backward ? opkit_rope_backward(x->on(g), cos->on(g), sin->on(g), y->on(g), nullptr)
                                    : opkit_rope_forward(x->on(g), cos->on(g), sin->on(g), y->on(g), nullptr);
                }));
            }
        }
}

// Heads [h0, h0+n) of a [B,T,H,D] tensor as a [B,T,n,D] view (shape and strides in the
// caller's arrays): q and k inside one fused qkv buffer.
opkit_tensor heads_view(const opkit_tensor* f, int64_t h0, int64_t n, int64_t* shape, int64_t* strides) {
    opkit_tensor v = *f;
    int64_t dense = 1;
    for (int i = 3; i >= 0; --i) {
        shape[i] = f->shape[i];
        strides[i] = f->strides ? f->strides[i] : dense;
        dense *= f->shape[i];
    }
    shape[2] = n;
    v.shape = shape;
    v.strides = strides;
    v.byte_offset += uint64_t(h0 * strides[2]) * uint64_t(f->dtype.bits / 8);
    return v;
}

// rope_qk_*: q [B,T,Hq,D] and k [B,T,Hk,D] with Hq != Hk, as tensors of their own (any
// layout) or as views into one fused qkv buffer [B,T,Hq+Hk+Hv,D] (that buffer is compared
// whole: its v heads must stay untouched).
void rope_qk(Cases& out, opkit_dtype d, bool quick) {
    struct QKShape {
        int64_t B, T, Hq, Hk, D;
        Layout layout;
    };
    std::vector<QKShape> shapes = {
        {1, 1, 1, 1, 2, {}},
        {2, 5, 3, 1, 8, {}},
        {3, 3, 1, 5, 6, {}},
        {2, 7, 4, 2, 64, {{0, 2, 1, 3}, 4, 1}},  // [B,H,T,D] storage, padded, misaligned
    };
    if (!quick) shapes.push_back({2, 17, 32, 8, 128, {}});
    const int64_t Hv = 2;
    for (const QKShape& s : shapes)
        for (int v = 0; v < 5; ++v) {  // cos/sin [T,D]; [B,T,D]; in place; fused qkv; fused qkv in place
            const bool fused = v >= 3, in_place = v == 2 || v == 4;
            const std::vector<int64_t> qs = {s.B, s.T, s.Hq, s.D}, ks = {s.B, s.T, s.Hk, s.D},
                                       fs = {s.B, s.T, s.Hq + s.Hk + Hv, s.D};
            const std::vector<int64_t> cs_shape =
                v == 1 ? std::vector<int64_t>{s.B, s.T, s.D} : std::vector<int64_t>{s.T, s.D};
            const std::string what = shape_str(qs) + " k " + shape_str(ks) +
                                     (s.layout.perm.empty() ? "" : " permuted, pad 4, offset 1") +
                                     (v == 1 ? " cos/sin [B,T,D]" : "") + (fused ? " fused qkv" : "") +
                                     (in_place ? " in place" : "");
            for (int backward = 0; backward < 2; ++backward) {
                Builder b(backward ? "rope_qk_backward" : "rope_qk_forward", d, what);
                const char* qn = backward ? "dq" : "q_out";
                const char* kn = backward ? "dk" : "k_out";
                const std::string qn_in = std::string(qn) + " (in place)", kn_in = std::string(kn) + " (in place)";
                const std::string fused_name = std::string(qn) + " and " + kn +
                                               (in_place ? " (fused qkv, in place)" : " (fused qkv)");
                TwinTensor *q = nullptr, *k = nullptr, *qo = nullptr, *ko = nullptr, *fin = nullptr, *fout = nullptr;
                if (fused) {
                    fin = b.input(d, fs);
                    fout = in_place ? b.compared(fin, fused_name.c_str()) : b.output(d, fs, fused_name.c_str());
                } else {
                    q = b.input(d, qs, s.layout);
                    k = b.input(d, ks, s.layout);
                }
                TwinTensor* cos = b.input(d, cs_shape, {}, -1, 1);
                TwinTensor* sin = b.input(d, cs_shape, {}, -1, 1);
                if (!fused) {
                    qo = in_place ? b.compared(q, qn_in.c_str()) : b.output(d, qs, qn, s.layout);
                    ko = in_place ? b.compared(k, kn_in.c_str()) : b.output(d, ks, kn, s.layout);
                }
                const int64_t Hq = s.Hq, Hk = s.Hk;
                out.push_back(b.done([=](bool g) {
                    int64_t sh[4][4], st[4][4];
                    opkit_tensor views[4];
                    if (fused) {
                        views[0] = heads_view(fin->on(g), 0, Hq, sh[0], st[0]);
                        views[1] = heads_view(fin->on(g), Hq, Hk, sh[1], st[1]);
                        views[2] = heads_view(fout->on(g), 0, Hq, sh[2], st[2]);
                        views[3] = heads_view(fout->on(g), Hq, Hk, sh[3], st[3]);
                    } else {
                        views[0] = *q->on(g), views[1] = *k->on(g), views[2] = *qo->on(g), views[3] = *ko->on(g);
                    }
                    return backward ? opkit_rope_qk_backward(&views[0], &views[1], cos->on(g), sin->on(g), &views[2],
                                                             &views[3], nullptr)
                                    : opkit_rope_qk_forward(&views[0], &views[1], cos->on(g), sin->on(g), &views[2],
                                                            &views[3], nullptr);
                }));
            }
        }
}

void cross_entropy(Cases& out, opkit_dtype d, bool quick) {
    std::vector<RowShape> shapes = {{{1, 1}, {}}, {{3, 7}, {}}, {{37, 1000}, {{}, 3, 1}}, {{5, 32001}, {}}};
    if (!quick) shapes.push_back({{2, 128256}, {}});
    const char* reductions[] = {"none", "mean", "sum"};
    int variant = 0;
    for (const RowShape& s : shapes) {
        const int64_t rows = s.shape[0], V = s.shape[1];
        for (int reduction = 0; reduction < 3; ++reduction)
            for (float smoothing : {0.0f, 0.1f}) {
                ++variant;
                const opkit_dtype index = variant % 2 ? i64() : i32();
                const int dl_mode = variant % 3;  // 0: none, 1: separate, 2: in place
                const bool with_lse = variant % 2 == 0;
                const std::string what = describe(s) + " " + reductions[reduction] +
                                         (smoothing > 0 ? " smoothing 0.1" : "") + " " + dtype_name(index) +
                                         (with_lse ? " lse" : "") +
                                         (dl_mode == 1 ? " dlogits" : dl_mode == 2 ? " dlogits in place" : "");
                auto make_target = [&](Builder& b) {
                    TwinTensor* t = b.ids(index, {rows}, 0, V - 1);
                    for (int64_t i = 1; i < rows; i += 3) t->set(i, -100);  // ignored rows
                    return t;
                };
                const std::vector<int64_t> loss_shape = reduction ? std::vector<int64_t>{} : std::vector<int64_t>{rows};
                {
                    Builder b("cross_entropy_forward", d, what);
                    TwinTensor* logits = b.input(d, s.shape, s.layout, -6, 6);
                    TwinTensor* target = make_target(b);
                    // V = 1 makes the loss lse - x = 0 exactly: compare against O(1).
                    TwinTensor* loss = b.output(f32(), loss_shape, "loss", {}, 1.0);
                    TwinTensor* lse = with_lse ? b.output(f32(), {rows}, "lse") : nullptr;
                    TwinTensor* dl = dl_mode == 1   ? b.output(d, s.shape, "dlogits", s.layout, 1.0)
                                     : dl_mode == 2 ? b.compared(logits, "dlogits (in place)", 1.0)
                                                    : nullptr;
                    out.push_back(b.done([=](bool g) {
                        return opkit_cross_entropy_forward(logits->on(g), target->on(g), -100, smoothing, reduction,
                                                           loss->on(g), on(lse, g), on(dl, g), nullptr);
                    }));
                }
                {
                    Builder b("cross_entropy_backward", d, what);
                    TwinTensor* logits = b.input(d, s.shape, s.layout, -6, 6);
                    TwinTensor* target = make_target(b);
                    TwinTensor* lse = nullptr;
                    if (with_lse) {
                        lse = b.scratch(f32(), {rows});
                        must(opkit_cross_entropy_forward(logits->host(), target->host(), -100, smoothing, reduction,
                                                         b.scratch(f32(), loss_shape)->host(), lse->host(), nullptr,
                                                         nullptr),
                             "cross_entropy_forward");
                    }
                    TwinTensor* dloss = b.input(f32(), loss_shape, {}, 0.5f, 2.0f);
                    TwinTensor* dl = dl_mode == 2 ? b.compared(logits, "dlogits (in place)", 1.0)
                                                  : b.output(d, s.shape, "dlogits", s.layout, 1.0);
                    out.push_back(b.done([=](bool g) {
                        return opkit_cross_entropy_backward(dloss->on(g), logits->on(g), target->on(g), on(lse, g),
                                                            -100, smoothing, reduction, dl->on(g), nullptr);
                    }));
                }
            }
    }
    // Every row ignored: MEAN is 0/0 = NaN like PyTorch, the gradient all zeros.
    Builder b("cross_entropy_forward", d, "[4,33] mean, every row ignored");
    TwinTensor* logits = b.input(d, {4, 33});
    TwinTensor* target = b.ids(i64(), {4}, -100, -100);
    TwinTensor* loss = b.output(f32(), {}, "loss", {}, 1.0);
    TwinTensor* dl = b.output(d, {4, 33}, "dlogits", {}, 1.0);
    out.push_back(b.done([=](bool g) {
        return opkit_cross_entropy_forward(logits->on(g), target->on(g), -100, 0.0f, OPKIT_REDUCTION_MEAN,
                                           loss->on(g), nullptr, dl->on(g), nullptr);
    }));
}

void embedding(Cases& out, opkit_dtype d, bool quick) {
    struct EmbShape {
        int64_t V, D;
        Layout layout;
        std::vector<int64_t> ids;
        opkit_dtype index;
    };
    std::vector<EmbShape> shapes = {
        {1, 1, Layout{}, {1}, i64()},
        {37, 5, Layout{}, {3, 20}, i32()},  // 60 ids over 37 rows: repeats accumulate
        {1000, 129, Layout{{}, 3, 1}, {2, 3, 5}, i64()},
    };
    if (!quick) {
        shapes.push_back({50, 4096, Layout{}, {300}, i32()});
        shapes.push_back({1000, 256, Layout{}, {3000}, i64()});  // more ids than rows: most ids repeated
    }
    for (const EmbShape& s : shapes) {
        std::vector<int64_t> y_shape = s.ids;
        y_shape.push_back(s.D);
        const std::string what = "V " + std::to_string(s.V) + " D " + std::to_string(s.D) +
                                 describe({{s.V, s.D}, s.layout}).substr(shape_str({s.V, s.D}).size()) + " ids " +
                                 shape_str(s.ids) + " " + dtype_name(s.index);
        {
            Builder b("embedding_forward", d, what);
            TwinTensor* w = b.input(d, {s.V, s.D}, s.layout);
            TwinTensor* ids = b.ids(s.index, s.ids, 0, s.V - 1);
            TwinTensor* y = b.output(d, y_shape, "y");
            out.push_back(b.done([=](bool g) { return opkit_embedding_forward(w->on(g), ids->on(g), y->on(g), nullptr); }));
        }
        for (int64_t padding_idx : {int64_t(-1), s.V / 2}) {
            Builder b("embedding_backward", d, what + " padding_idx " + std::to_string(padding_idx));
            TwinTensor* dy = b.input(d, y_shape);
            TwinTensor* ids = b.ids(s.index, s.ids, 0, s.V - 1);
            TwinTensor* dw = b.output(d, {s.V, s.D}, "dweight", s.layout);
            out.push_back(b.done([=](bool g) {
                return opkit_embedding_backward(dy->on(g), ids->on(g), padding_idx, dw->on(g), nullptr);
            }));
        }
    }
}

void matmul(Cases& out, opkit_dtype d, bool quick) {
    struct MM {
        int64_t batch_a, batch_b, m, k, n;
        int64_t pad;
    };
    std::vector<MM> shapes = {{0, 0, 1, 1, 1, 0}, {0, 0, 17, 33, 9, 0}, {0, 0, 64, 128, 32, 3}, {3, 1, 17, 33, 9, 0}};
    if (!quick) shapes.push_back({0, 0, 130, 257, 65, 0});
    int variant = 0;
    for (const MM& s : shapes)
        for (int trans_a = 0; trans_a < 2; ++trans_a)
            for (int trans_b = 0; trans_b < 2; ++trans_b) {
                const bool with_beta = ++variant % 2 == 0;
                auto shaped = [](int64_t batch, int64_t r, int64_t c) {
                    return batch ? std::vector<int64_t>{batch, r, c} : std::vector<int64_t>{r, c};
                };
                const std::vector<int64_t> a_shape = shaped(s.batch_a, trans_a ? s.k : s.m, trans_a ? s.m : s.k);
                const std::vector<int64_t> b_shape = shaped(s.batch_b, trans_b ? s.n : s.k, trans_b ? s.k : s.n);
                const std::vector<int64_t> c_shape = shaped(s.batch_a, s.m, s.n);
                const std::string what = shape_str(a_shape) + (trans_a ? "^T" : "") + " x " + shape_str(b_shape) +
                                         (trans_b ? "^T" : "") + (s.pad ? " pad " + std::to_string(s.pad) : "") +
                                         (with_beta ? " alpha 1.5 beta 0.5" : "");
                Builder b("matmul", d, what);
                TwinTensor* a = b.input(d, a_shape, {{}, s.pad, 0}, -1, 1);
                TwinTensor* bm = b.input(d, b_shape, {}, -1, 1);
                TwinTensor* c = with_beta ? b.compared(b.input(d, c_shape, {{}, s.pad, 0}), "c")
                                          : b.output(d, c_shape, "c", {{}, s.pad, 0});  // NaN must not leak in
                const float alpha = with_beta ? 1.5f : 1.0f, beta = with_beta ? 0.5f : 0.0f;
                out.push_back(b.done([=](bool g) {
                    return opkit_matmul(a->on(g), bm->on(g), c->on(g), alpha, beta, trans_a, trans_b, nullptr);
                }));
            }
}

}  // namespace

std::vector<std::unique_ptr<Case>> build_catalogue(const CatalogueOptions& options) {
    Cases all;
    for (opkit_dtype d : options.dtypes) {
        for (const RowShape& r : row_shapes(options.quick)) {
            rms_norm(all, d, r);
            layer_norm(all, d, r);
            softmax(all, d, r);
            gated(all, d, r);
            axpy(all, d, r);
        }
        rope(all, d, options.quick);
        rope_qk(all, d, options.quick);
        cross_entropy(all, d, options.quick);
        embedding(all, d, options.quick);
        matmul(all, d, options.quick);
    }
    if (!options.ops.empty())
        all.erase(std::remove_if(all.begin(), all.end(),
                                 [&](const std::unique_ptr<Case>& c) {
                                     return std::find(options.ops.begin(), options.ops.end(), c->op) ==
                                            options.ops.end();
                                 }),
                  all.end());
    return all;
}

}  // namespace conformance
