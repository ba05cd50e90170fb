// Bad input through the public API: each case must return the documented status, say
// what was wrong in opkit_last_error_message(), and leave every output byte untouched.
#include "opkit.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace {

opkit_dtype f32() { return {OPKIT_DTYPE_FLOAT, 32, 1}; }
opkit_dtype bf16() { return {OPKIT_DTYPE_BFLOAT, 16, 1}; }
opkit_dtype i64() { return {OPKIT_DTYPE_INT, 64, 1}; }
opkit_dtype i32() { return {OPKIT_DTYPE_INT, 32, 1}; }

// A host tensor with its own storage (filled with a recognisable byte pattern), shape
// and strides, handing out an opkit_tensor view.
struct Tensor {
    std::vector<unsigned char> bytes;
    std::vector<int64_t> shape, strides;
    opkit_tensor t{};

    Tensor(std::vector<int64_t> s, opkit_dtype dtype = f32(), unsigned char fill = 0x5a,
           std::vector<int64_t> st = {})
        : shape(std::move(s)), strides(std::move(st)) {
        int64_t n = 1;
        for (size_t i = 0; i < shape.size(); ++i)
            n *= strides.empty() ? shape[i] : (shape[i] > 0 ? 1 : 0);
        if (!strides.empty()) {  // storage must cover the furthest element
            int64_t last = 0;
            for (size_t i = 0; i < shape.size(); ++i) last += (shape[i] - 1) * strides[i];
            n = last + 1;
        }
        bytes.assign(size_t(std::max<int64_t>(n, 1)) * dtype.bits / 8 * dtype.lanes, fill);
        t.data = bytes.data();
        t.device = {OPKIT_DEVICE_CPU, 0};
        t.ndim = int32_t(shape.size());
        t.dtype = dtype;
        t.shape = shape.data();
        t.strides = strides.empty() ? nullptr : strides.data();
        t.byte_offset = 0;
    }
    // Sets float elements (f32 tensors only) to small non-zero values.
    void fill_values() {
        float* p = reinterpret_cast<float*>(bytes.data());
        for (size_t i = 0; i < bytes.size() / 4; ++i) p[i] = 0.25f + float(i % 7) * 0.125f;
    }
};

// Runs `call`, requires `status` and a message containing `needle`, and that the listed
// outputs kept their bytes.
template <class F>
void expect_failure(F&& call, opkit_status status, const std::string& needle,
                    std::vector<const Tensor*> outputs) {
    std::vector<std::vector<unsigned char>> before;
    for (const Tensor* o : outputs) before.push_back(o->bytes);
    const opkit_status got = call();
    const std::string message = opkit_last_error_message();
    INFO("message: " << message);
    CHECK(got == status);
    CHECK(message.find(needle) != std::string::npos);
    for (size_t i = 0; i < outputs.size(); ++i) CHECK(outputs[i]->bytes == before[i]);
}

}  // namespace

TEST_CASE("NULL tensors and NULL data are invalid arguments") {
    Tensor x({3, 4}), y({3, 4});
    x.fill_values();
    expect_failure([&] { return opkit_softmax_forward(nullptr, &y.t, nullptr); },
                   OPKIT_ERROR_INVALID_ARGUMENT, "x is NULL", {&y});
    expect_failure([&] { return opkit_softmax_forward(&x.t, nullptr, nullptr); },
                   OPKIT_ERROR_INVALID_ARGUMENT, "y is NULL", {});
    Tensor nodata({3, 4});
    nodata.t.data = nullptr;
    expect_failure([&] { return opkit_softmax_forward(&nodata.t, &y.t, nullptr); },
                   OPKIT_ERROR_INVALID_ARGUMENT, "data is NULL", {&y});
    // A NULL data pointer is fine when there are no elements.
    Tensor empty_in({0, 4}), empty_out({0, 4});
    empty_in.t.data = nullptr;
    empty_out.t.data = nullptr;
    CHECK(opkit_softmax_forward(&empty_in.t, &empty_out.t, nullptr) == OPKIT_OK);
}

TEST_CASE("ndim and shape mismatches name both shapes") {
    Tensor x({3, 4}), y3({3, 5}), y1({12}), w({5}), y({3, 4});
    x.fill_values();
    expect_failure([&] { return opkit_softmax_forward(&x.t, &y3.t, nullptr); },
                   OPKIT_ERROR_INVALID_ARGUMENT, "[3, 5]", {&y3});
    expect_failure([&] { return opkit_softmax_forward(&x.t, &y1.t, nullptr); },
                   OPKIT_ERROR_INVALID_ARGUMENT, "[12]", {&y1});
    expect_failure([&] { return opkit_rms_norm_forward(&x.t, &w.t, 1e-6f, 0.f, &y.t, nullptr, nullptr); },
                   OPKIT_ERROR_INVALID_ARGUMENT, "weight has shape [5]; expected [4]", {&y});
    Tensor a({2, 3, 4, 8}), cos_bad({3, 6}), sin({3, 8}), out({2, 3, 4, 8});
    a.fill_values();
    expect_failure([&] { return opkit_rope_forward(&a.t, &cos_bad.t, &sin.t, &out.t, nullptr); },
                   OPKIT_ERROR_INVALID_ARGUMENT, "cos has shape [3, 6]", {&out});
    Tensor m_a({4, 5}), m_b({6, 7}), m_c({4, 7});
    expect_failure([&] { return opkit_matmul(&m_a.t, &m_b.t, &m_c.t, 1.f, 0.f, 0, 0, nullptr); },
                   OPKIT_ERROR_INVALID_ARGUMENT, "don't chain", {&m_c});
}

TEST_CASE("dtype mismatch is invalid - unsupported dtypes and lanes are unsupported") {
    Tensor x({3, 4}), y_bf16({3, 4}, bf16()), y({3, 4});
    x.fill_values();
    expect_failure([&] { return opkit_softmax_forward(&x.t, &y_bf16.t, nullptr); },
                   OPKIT_ERROR_INVALID_ARGUMENT, "y has dtype bf16 but x has f32", {&y_bf16});
    Tensor x64({3, 4}, opkit_dtype{OPKIT_DTYPE_FLOAT, 64, 1}), y64({3, 4}, opkit_dtype{OPKIT_DTYPE_FLOAT, 64, 1});
    expect_failure([&] { return opkit_softmax_forward(&x64.t, &y64.t, nullptr); },
                   OPKIT_ERROR_UNSUPPORTED, "f64", {&y64});
    Tensor x8({3, 4}, opkit_dtype{OPKIT_DTYPE_INT, 8, 1}), y8({3, 4}, opkit_dtype{OPKIT_DTYPE_INT, 8, 1});
    expect_failure([&] { return opkit_softmax_forward(&x8.t, &y8.t, nullptr); },
                   OPKIT_ERROR_UNSUPPORTED, "int8", {&y8});
    Tensor xl({3, 4}, opkit_dtype{OPKIT_DTYPE_FLOAT, 32, 4});
    expect_failure([&] { return opkit_softmax_forward(&xl.t, &y.t, nullptr); },
                   OPKIT_ERROR_UNSUPPORTED, "lanes", {&y});
    Tensor logits({2, 5}), target_f({2}), loss({});
    logits.fill_values();
    expect_failure([&] {
        return opkit_cross_entropy_forward(&logits.t, &target_f.t, -100, 0.f, OPKIT_REDUCTION_MEAN,
                                           &loss.t, nullptr, nullptr, nullptr);
    }, OPKIT_ERROR_UNSUPPORTED, "target has dtype f32; supported: int32, int64", {&loss});
}

TEST_CASE("negative dimensions and overflowing sizes are invalid") {
    Tensor x({3, 4}), y({3, 4});
    x.fill_values();
    std::vector<int64_t> neg = {3, -4};
    Tensor bad = x;
    bad.t.shape = neg.data();
    expect_failure([&] { return opkit_softmax_forward(&bad.t, &y.t, nullptr); },
                   OPKIT_ERROR_INVALID_ARGUMENT, "negative dimension", {&y});
    std::vector<int64_t> huge = {int64_t(1) << 40, int64_t(1) << 40};
    Tensor big = x;
    big.t.shape = huge.data();
    expect_failure([&] { return opkit_softmax_forward(&big.t, &y.t, nullptr); },
                   OPKIT_ERROR_INVALID_ARGUMENT, "64 bits", {&y});
}

TEST_CASE("a non-contiguous innermost dimension is unsupported") {
    Tensor x({3, 4}, f32(), 0x5a, {8, 2}), y({3, 4});
    x.fill_values();
    expect_failure([&] { return opkit_softmax_forward(&x.t, &y.t, nullptr); },
                   OPKIT_ERROR_UNSUPPORTED, "innermost stride 2", {&y});
}

TEST_CASE("tensors on two devices - and devices nobody serves") {
    Tensor x({3, 4}), y({3, 4});
    x.fill_values();
    Tensor y_gpu = y;
    y_gpu.t.device = {OPKIT_DEVICE_CUDA, 0};
    expect_failure([&] { return opkit_softmax_forward(&x.t, &y_gpu.t, nullptr); },
                   OPKIT_ERROR_INVALID_ARGUMENT, "different devices", {&y_gpu});
    // A device type no vendor serves in this process (the API tests load no vendors).
    Tensor x_dev = x, y_dev = y;
    x_dev.t.device = y_dev.t.device = {OPKIT_DEVICE_ROCM, 0};
    expect_failure([&] { return opkit_softmax_forward(&x_dev.t, &y_dev.t, nullptr); },
                   OPKIT_ERROR_NOT_FOUND, "no ready vendor serves rocm", {&y_dev});
    void* p = nullptr;
    CHECK(opkit_malloc(opkit_device{OPKIT_DEVICE_ROCM, 0}, 64, &p) == OPKIT_ERROR_NOT_FOUND);
    CHECK(p == nullptr);
}

TEST_CASE("forbidden aliasing is invalid - documented in-place aliasing works") {
    Tensor x({3, 4});
    x.fill_values();
    // softmax in place is allowed (identical view) ...
    CHECK(opkit_softmax_forward(&x.t, &x.t, nullptr) == OPKIT_OK);
    // ... a shifted view of the same storage is not.
    Tensor wide({3, 8});
    wide.fill_values();
    Tensor in = wide, out = wide;
    std::vector<int64_t> shape = {3, 4}, strides = {8, 1};
    in.t.shape = out.t.shape = shape.data();
    in.t.strides = out.t.strides = strides.data();
    out.t.byte_offset = 2 * sizeof(float);
    expect_failure([&] { return opkit_softmax_forward(&in.t, &out.t, nullptr); },
                   OPKIT_ERROR_INVALID_ARGUMENT, "overlaps", {&wide});
    // Disjoint interleaved halves of one buffer are fine (the fused gate/up layout).
    Tensor a_half = wide, b_half = wide, y({3, 4});
    a_half.t.shape = b_half.t.shape = shape.data();
    a_half.t.strides = b_half.t.strides = strides.data();
    b_half.t.byte_offset = 4 * sizeof(float);
    CHECK(opkit_swiglu_forward(&a_half.t, &b_half.t, &y.t, nullptr) == OPKIT_OK);
    // axpy may not alias at all.
    Tensor v({5});
    v.fill_values();
    expect_failure([&] { return opkit_axpy(1.0f, &v.t, &v.t, nullptr); },
                   OPKIT_ERROR_INVALID_ARGUMENT, "overlaps", {&v});
    // A broadcast (stride 0) output would make elements share memory.
    Tensor src({3, 4}), bcast({3, 4}, f32(), 0x5a, {0, 1});
    src.fill_values();
    expect_failure([&] { return opkit_softmax_forward(&src.t, &bcast.t, nullptr); },
                   OPKIT_ERROR_INVALID_ARGUMENT, "share memory", {&bcast});
}

TEST_CASE("rope_qk: every validation rule names the op and the parameter, and writes nothing") {
    // q [2,3,4,8], k [2,3,2,8] (Hq != Hk), cos/sin [3,8]
    Tensor q({2, 3, 4, 8}), k({2, 3, 2, 8}), cos({3, 8}), sin({3, 8}), qo({2, 3, 4, 8}), ko({2, 3, 2, 8});
    q.fill_values(), k.fill_values(), cos.fill_values(), sin.fill_values();
    auto fwd = [&](const Tensor* a, const Tensor* b, const Tensor* c, const Tensor* s, Tensor* o1, Tensor* o2) {
        return [=] {
            return opkit_rope_qk_forward(a ? &a->t : nullptr, b ? &b->t : nullptr, c ? &c->t : nullptr,
                                         s ? &s->t : nullptr, o1 ? &o1->t : nullptr, o2 ? &o2->t : nullptr,
                                         nullptr);
        };
    };
    const opkit_status INV = OPKIT_ERROR_INVALID_ARGUMENT;
    // the valid call, out of place and in place per pair (and then no byte of q, k moved
    // before the failures below is needed: the outputs are what must stay untouched)
    CHECK(fwd(&q, &k, &cos, &sin, &qo, &ko)() == OPKIT_OK);
    Tensor qi = q, ki = k;  // views of q's and k's storage
    CHECK(opkit_rope_qk_forward(&q.t, &k.t, &cos.t, &sin.t, &qi.t, &ki.t, nullptr) == OPKIT_OK);
    CHECK(opkit_rope_qk_forward(&q.t, &k.t, &cos.t, &sin.t, &qi.t, &ko.t, nullptr) == OPKIT_OK);
    // NULLs
    expect_failure(fwd(nullptr, &k, &cos, &sin, &qo, &ko), INV, "rope_qk_forward: q is NULL", {&qo, &ko});
    expect_failure(fwd(&q, nullptr, &cos, &sin, &qo, &ko), INV, "rope_qk_forward: k is NULL", {&qo, &ko});
    expect_failure(fwd(&q, &k, nullptr, &sin, &qo, &ko), INV, "rope_qk_forward: cos is NULL", {&qo, &ko});
    expect_failure(fwd(&q, &k, &cos, nullptr, &qo, &ko), INV, "rope_qk_forward: sin is NULL", {&qo, &ko});
    expect_failure(fwd(&q, &k, &cos, &sin, nullptr, &ko), INV, "rope_qk_forward: q_out is NULL", {&ko});
    expect_failure(fwd(&q, &k, &cos, &sin, &qo, nullptr), INV, "rope_qk_forward: k_out is NULL", {&qo});
    // ndim, odd D
    Tensor q3({2, 3, 32}), k3({2, 3, 16}), qodd({2, 3, 4, 7}), kodd({2, 3, 2, 7});
    expect_failure(fwd(&q3, &k, &cos, &sin, &qo, &ko), INV, "q has 3 dimensions", {&qo, &ko});
    expect_failure(fwd(&q, &k3, &cos, &sin, &qo, &ko), INV, "k has 3 dimensions", {&qo, &ko});
    expect_failure(fwd(&qodd, &kodd, &cos, &sin, &qo, &ko), INV, "D = 7 of q is odd", {&qo, &ko});
    // k's B, T and D must be q's
    Tensor kb({1, 3, 2, 8}), kt({2, 4, 2, 8}), kd({2, 3, 2, 6});
    for (const Tensor* bad : {&kb, &kt, &kd})
        expect_failure(fwd(&q, bad, &cos, &sin, &qo, &ko), INV, "B, T and D", {&qo, &ko});
    expect_failure(fwd(&q, &kd, &cos, &sin, &qo, &ko), INV, "k has shape [2, 3, 2, 6] but q has shape [2, 3, 4, 8]",
                   {&qo, &ko});
    // dtypes: k, cos, outputs in q's; q itself a float
    Tensor kbf({2, 3, 2, 8}, bf16()), cosbf({3, 8}, bf16()), kobf({2, 3, 2, 8}, bf16());
    Tensor q64({2, 3, 4, 8}, opkit_dtype{OPKIT_DTYPE_FLOAT, 64, 1});
    expect_failure(fwd(&q, &kbf, &cos, &sin, &qo, &ko), INV, "k has dtype bf16 but q has f32", {&qo, &ko});
    expect_failure(fwd(&q, &k, &cosbf, &sin, &qo, &ko), INV, "cos has dtype bf16 but q has f32", {&qo, &ko});
    expect_failure(fwd(&q, &k, &cos, &sin, &qo, &kobf), INV, "k_out has dtype bf16 but k has f32", {&qo, &kobf});
    expect_failure(fwd(&q64, &k, &cos, &sin, &qo, &ko), OPKIT_ERROR_UNSUPPORTED, "q has dtype f64", {&qo, &ko});
    // cos/sin [T,D] or [B,T,D]
    Tensor cos_t({4, 8}), sin_b({3, 3, 8}), cos_b({2, 3, 8}), sin_b2({2, 3, 8});
    cos_b.fill_values(), sin_b2.fill_values();
    expect_failure(fwd(&q, &k, &cos_t, &sin, &qo, &ko), INV, "cos has shape [4, 8]; expected [3, 8]", {&qo, &ko});
    expect_failure(fwd(&q, &k, &cos_b, &sin_b, &qo, &ko), INV, "sin has shape [3, 3, 8]; expected [2, 3, 8]",
                   {&qo, &ko});
    CHECK(fwd(&q, &k, &cos_b, &sin_b2, &qo, &ko)() == OPKIT_OK);
    // outputs shaped like their inputs: q_out like q, k_out like k (not swapped)
    expect_failure(fwd(&q, &k, &cos, &sin, &ko, &qo), INV, "q_out has shape [2, 3, 2, 8] but q has shape",
                   {&qo, &ko});
    Tensor ko_wide({2, 3, 4, 8});
    expect_failure(fwd(&q, &k, &cos, &sin, &qo, &ko_wide), INV, "k_out has shape [2, 3, 4, 8] but k has shape",
                   {&qo, &ko_wide});
    // one device
    Tensor k_gpu = k;
    k_gpu.t.device = {OPKIT_DEVICE_CUDA, 0};
    expect_failure(fwd(&q, &k_gpu, &cos, &sin, &qo, &ko), INV, "different devices", {&qo, &ko});
    Tensor ko_gpu = ko;
    ko_gpu.t.device = {OPKIT_DEVICE_CUDA, 0};
    expect_failure([&] { return opkit_rope_qk_forward(&q.t, &k.t, &cos.t, &sin.t, &qo.t, &ko_gpu.t, nullptr); },
                   INV, "k_out is on cuda:0", {&qo, &ko});

    // aliasing: only q_out = q and k_out = k (identical views); nothing else may overlap.
    // Two [2,3,2,8] halves of one [2,3,4,8] buffer (heads 0-1 and 2-3): disjoint views.
    Tensor buf({2, 3, 4, 8});
    buf.fill_values();
    std::vector<int64_t> half = {2, 3, 2, 8}, st = {96, 32, 8, 1};
    Tensor lo = buf, hi = buf, lo_shift = buf;
    lo.t.shape = hi.t.shape = lo_shift.t.shape = half.data();
    lo.t.strides = hi.t.strides = lo_shift.t.strides = st.data();
    hi.t.byte_offset = 16 * sizeof(float);
    lo_shift.t.byte_offset = 8 * sizeof(float);  // heads 1-2: overlaps both halves
    Tensor q2({2, 3, 2, 8});
    q2.fill_values();
    // k_out over q_out, q_out over k, k_out over q, outputs over cos/sin
    expect_failure([&] { return opkit_rope_qk_forward(&q2.t, &k.t, &cos.t, &sin.t, &lo.t, &lo_shift.t, nullptr); },
                   INV, "output q_out overlaps k_out", {&buf});
    expect_failure([&] { return opkit_rope_qk_forward(&q2.t, &lo.t, &cos.t, &sin.t, &lo_shift.t, &ko.t, nullptr); },
                   INV, "output q_out overlaps k", {&buf, &ko});
    expect_failure([&] { return opkit_rope_qk_forward(&lo.t, &k.t, &cos.t, &sin.t, &q2.t, &lo_shift.t, nullptr); },
                   INV, "output k_out overlaps q", {&buf, &q2});
    // the exact view of the other pair's input is no in-place form either
    expect_failure([&] { return opkit_rope_qk_forward(&lo.t, &hi.t, &cos.t, &sin.t, &hi.t, &lo.t, nullptr); },
                   INV, "output q_out overlaps k", {&buf});
    Tensor cos_as_out({3, 8});
    cos_as_out.fill_values();
    std::vector<int64_t> cshape = {1, 3, 1, 8}, cst = {24, 8, 8, 1};
    Tensor c_view = cos_as_out, q13({1, 3, 1, 8}), k13({1, 3, 1, 8});
    q13.fill_values(), k13.fill_values();
    c_view.t.ndim = 4;  // [1,3,1,8] over cos_as_out's [3,8]
    c_view.t.shape = cshape.data();
    c_view.t.strides = cst.data();
    expect_failure([&] {
        return opkit_rope_qk_forward(&q13.t, &k13.t, &cos_as_out.t, &sin.t, &c_view.t, &k13.t, nullptr);
    }, INV, "output q_out overlaps cos", {&cos_as_out});
    expect_failure([&] {
        return opkit_rope_qk_forward(&q13.t, &k13.t, &cos.t, &cos_as_out.t, &q13.t, &c_view.t, nullptr);
    }, INV, "output k_out overlaps sin", {&cos_as_out});
    // disjoint halves of one buffer are fine, in place too
    CHECK(opkit_rope_qk_forward(&lo.t, &hi.t, &cos.t, &sin.t, &lo.t, &hi.t, nullptr) == OPKIT_OK);

    // the backward: the same rules under its own names
    auto bwd = [&](const Tensor* a, const Tensor* b, Tensor* o1, Tensor* o2) {
        return [=, &cos, &sin] { return opkit_rope_qk_backward(&a->t, &b->t, &cos.t, &sin.t, &o1->t, &o2->t, nullptr); };
    };
    CHECK(bwd(&q, &k, &qo, &ko)() == OPKIT_OK);
    expect_failure(bwd(&q, &kb, &qo, &ko), INV, "rope_qk_backward: dk_out has shape [1, 3, 2, 8] but dq_out has",
                   {&qo, &ko});
    expect_failure(bwd(&q, &kbf, &qo, &ko), INV, "rope_qk_backward: dk_out has dtype bf16 but dq_out has f32",
                   {&qo, &ko});
    expect_failure(bwd(&q, &k, &qo, &ko_wide), INV, "rope_qk_backward: dk has shape", {&qo, &ko_wide});
    expect_failure([&] { return opkit_rope_qk_backward(&q2.t, &k.t, &cos.t, &sin.t, &lo.t, &lo_shift.t, nullptr); },
                   INV, "rope_qk_backward: output dq overlaps dk", {&buf});
    // zero heads on either side are fine (as for rope)
    Tensor q0({2, 3, 0, 8}), q0o({2, 3, 0, 8});
    CHECK(opkit_rope_qk_forward(&q0.t, &k.t, &cos.t, &sin.t, &q0o.t, &ko.t, nullptr) == OPKIT_OK);
    CHECK(opkit_rope_qk_backward(&k.t, &q0.t, &cos.t, &sin.t, &ko.t, &q0o.t, nullptr) == OPKIT_OK);
    // ... also as padded views, whose outer strides collapse to 0 with no heads: an output
    // without elements shares no memory
    Tensor e_in({2, 3, 0, 8}, f32(), 0x5a, {0, 0, 11, 1}), e_out({2, 3, 0, 8}, f32(), 0x5a, {0, 0, 11, 1});
    CHECK(opkit_rope_forward(&e_in.t, &cos.t, &sin.t, &e_out.t, nullptr) == OPKIT_OK);
    CHECK(opkit_rope_qk_forward(&e_in.t, &k.t, &cos.t, &sin.t, &e_out.t, &ko.t, nullptr) == OPKIT_OK);
}

TEST_CASE("cross-entropy target and embedding id out of range") {
    Tensor logits({3, 5}), target({3}, i64()), loss({3}), lse({3}), dlogits({3, 5});
    logits.fill_values();
    int64_t* t = reinterpret_cast<int64_t*>(target.bytes.data());
    t[0] = 1, t[1] = 5, t[2] = -100;
    expect_failure([&] {
        return opkit_cross_entropy_forward(&logits.t, &target.t, -100, 0.f, OPKIT_REDUCTION_NONE,
                                           &loss.t, &lse.t, &dlogits.t, nullptr);
    }, OPKIT_ERROR_INVALID_ARGUMENT, "5", {&loss, &lse, &dlogits});
    t[1] = -3;
    expect_failure([&] {
        return opkit_cross_entropy_forward(&logits.t, &target.t, -100, 0.f, OPKIT_REDUCTION_NONE,
                                           &loss.t, &lse.t, &dlogits.t, nullptr);
    }, OPKIT_ERROR_INVALID_ARGUMENT, "-3", {&loss, &lse, &dlogits});

    Tensor weight({4, 3}), ids({2}, i64()), y({2, 3});
    weight.fill_values();
    int64_t* id = reinterpret_cast<int64_t*>(ids.bytes.data());
    id[0] = 0, id[1] = 4;
    expect_failure([&] { return opkit_embedding_forward(&weight.t, &ids.t, &y.t, nullptr); },
                   OPKIT_ERROR_INVALID_ARGUMENT, "4", {&y});
    Tensor dy({2, 3}), dweight({4, 3});
    dy.fill_values();
    expect_failure([&] { return opkit_embedding_backward(&dy.t, &ids.t, -1, &dweight.t, nullptr); },
                   OPKIT_ERROR_INVALID_ARGUMENT, "4", {&dweight});
    id[1] = -2;  // negative, in the dense path's single range test
    expect_failure([&] { return opkit_embedding_forward(&weight.t, &ids.t, &y.t, nullptr); },
                   OPKIT_ERROR_INVALID_ARGUMENT, "ids element 1 is -2", {&y});

    // Strided ids (a [2, 3] int32 view with padded rows, row stride 4): elements are numbered
    // in the view's row-major order, so storage index 5 is ids[1][1], element 4 of the view,
    // and the padding (storage index 3, out of range on purpose) is never read.
    Tensor tids({2, 3}, i32(), 0, {4, 1}), ty({2, 3, 3});
    int32_t* ti = reinterpret_cast<int32_t*>(tids.bytes.data());
    for (int k = 0; k < 7; ++k) ti[k] = k % 4;
    ti[3] = 99;
    ti[5] = 9;
    expect_failure([&] { return opkit_embedding_forward(&weight.t, &tids.t, &ty.t, nullptr); },
                   OPKIT_ERROR_INVALID_ARGUMENT, "ids element 4 is 9", {&ty});
    ti[5] = 3;  // then every element is in range, read in the view's order
    REQUIRE(opkit_embedding_forward(&weight.t, &tids.t, &ty.t, nullptr) == OPKIT_OK);
    const float* w = reinterpret_cast<const float*>(weight.bytes.data());
    const float* out = reinterpret_cast<const float*>(ty.bytes.data());
    const int view_ids[6] = {ti[0], ti[1], ti[2], ti[4], ti[5], ti[6]};  // [r][c] at storage 4r + c
    for (int k = 0; k < 6; ++k)
        for (int c = 0; c < 3; ++c) CHECK(out[k * 3 + c] == w[view_ids[k] * 3 + c]);

    // A size-1 dimension may carry any stride (it never moves an element); the ids reader
    // must not add it to its offset (INT64_MAX here: an overflow under UBSan otherwise).
    Tensor odd({2, 1, 3}, i32(), 0, {4, INT64_MAX, 1}), oy({2, 1, 3, 3});
    std::memcpy(odd.bytes.data(), tids.bytes.data(), 7 * sizeof(int32_t));
    REQUIRE(opkit_embedding_forward(&weight.t, &odd.t, &oy.t, nullptr) == OPKIT_OK);
    CHECK(oy.bytes == ty.bytes);
}

TEST_CASE("unknown reduction - approximate and flag values") {
    Tensor logits({3, 5}), target({3}, i64(), 0), loss({});
    logits.fill_values();
    expect_failure([&] {
        return opkit_cross_entropy_forward(&logits.t, &target.t, -100, 0.f, 7, &loss.t, nullptr,
                                           nullptr, nullptr);
    }, OPKIT_ERROR_INVALID_ARGUMENT, "reduction is 7", {&loss});
    expect_failure([&] {
        return opkit_cross_entropy_forward(&logits.t, &target.t, -100, 1.5f, OPKIT_REDUCTION_MEAN,
                                           &loss.t, nullptr, nullptr, nullptr);
    }, OPKIT_ERROR_INVALID_ARGUMENT, "label_smoothing", {&loss});
    Tensor a({2, 6}), b({2, 6}), y({2, 6});
    a.fill_values();
    b.fill_values();
    expect_failure([&] { return opkit_geglu_forward(&a.t, &b.t, 3, &y.t, nullptr); },
                   OPKIT_ERROR_INVALID_ARGUMENT, "approximate is 3", {&y});
    Tensor m_a({2, 3}), m_b({3, 2}), m_c({2, 2});
    expect_failure([&] { return opkit_matmul(&m_a.t, &m_b.t, &m_c.t, 1.f, 0.f, 2, 0, nullptr); },
                   OPKIT_ERROR_INVALID_ARGUMENT, "trans_a is 2", {&m_c});
}

TEST_CASE("introspection rejects bad indices and names") {
    opkit_vendor_info info;
    std::memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    CHECK(opkit_vendor_get_info(-1, &info) == OPKIT_ERROR_INVALID_ARGUMENT);
    CHECK(std::string(opkit_last_error_message()).find("out of range") != std::string::npos);
    CHECK(opkit_vendor_get_info(opkit_vendor_count(), &info) == OPKIT_ERROR_INVALID_ARGUMENT);
    CHECK(opkit_vendor_get_info(0, nullptr) == OPKIT_ERROR_INVALID_ARGUMENT);
    const char* who = nullptr;
    CHECK(opkit_op_resolve("no_such_op", OPKIT_DEVICE_CPU, &who) == OPKIT_ERROR_NOT_FOUND);
    CHECK(std::string(opkit_last_error_message()).find("no_such_op") != std::string::npos);
    CHECK(opkit_op_name(-1) == nullptr);
    CHECK(opkit_op_name(opkit_op_count()) == nullptr);
    CHECK(opkit_init(nullptr) == OPKIT_ERROR_INVALID_ARGUMENT);  // already initialized above
    CHECK(std::string(opkit_last_error_message()).find("already initialized") != std::string::npos);
}
