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
