// tools/twin_tensor, the host-copy / device-copy tensor that opkit-conformance and the
// vendor suites compare: its layouts, conversions and copies, on the CPU device (opkit's
// malloc and memcpy through the public API), so that a mistake in it cannot pass unseen in
// the GPU suites, which run it only where a GPU is.
#include "opkit.h"
#include "twin_tensor.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <vector>

using opkit_twin::Layout;
using opkit_twin::TwinTensor;

namespace {
constexpr opkit_device kCpuDevice{OPKIT_DEVICE_CPU, 0};
}

TEST_CASE("twin tensor: permuted, padded and offset layouts address every element once", "[twin]") {
    // [2,3,4] stored as dims (1, 0, 2): rows of 4 (+1 padding), 2 of them per index of dim 1.
    TwinTensor t(opkit_twin::f32(), {2, 3, 4}, Layout{{1, 0, 2}, 1, 3});
    const opkit_tensor* h = t.host();
    REQUIRE(h->ndim == 3);
    CHECK(h->strides[2] == 1);
    CHECK(h->strides[0] == 5);
    CHECK(h->strides[1] == 10);
    CHECK(h->byte_offset == 3 * 4);
    CHECK(t.offset_of(0) == 3);
    CHECK(t.offset_of(1 * 12 + 2 * 4 + 3) == 3 + 5 + 20 + 3);  // element [1,2,3]
    std::vector<int> hits(t.host_storage().size() / 4, 0);
    for (int64_t i = 0; i < t.numel(); ++i) ++hits[size_t(t.offset_of(i))];
    int64_t addressed = 0;
    for (int n : hits) {
        CHECK(n <= 1);
        addressed += n;
    }
    CHECK(addressed == 24);
    // The device view has the same geometry and no storage until allocated.
    CHECK(t.device()->strides == h->strides);
    CHECK(t.device()->byte_offset == h->byte_offset);
    CHECK(t.device()->data == nullptr);
}

TEST_CASE("twin tensor: values round-trip through every dtype's storage", "[twin]") {
    for (const opkit_dtype d : {opkit_twin::f32(), opkit_twin::f16(), opkit_twin::bf16(), opkit_twin::i32(),
                                opkit_twin::i64()}) {
        INFO(opkit_twin::dtype_name(d));
        TwinTensor t(d, {3}, Layout{{}, 2, 1});
        t.set(0, 1.5);
        t.set(1, -3.0);
        t.set(2, 1024.0);
        CHECK(t.host_value(0) == (opkit_twin::is_float(d) ? 1.5 : 1.0));
        CHECK(t.host_value(1) == -3.0);
        CHECK(t.host_value(2) == 1024.0);
    }
    CHECK(opkit_twin::bf16_to_float(opkit_twin::float_to_bf16(1.0f + 1.0f / 256)) == 1.0f);  // ties to even
    CHECK(std::isnan(opkit_twin::bf16_to_float(opkit_twin::float_to_bf16(std::nanf("")))));
}

TEST_CASE("twin tensor: random data is never exactly zero and poison is NaN", "[twin]") {
    TwinTensor t(opkit_twin::f16(), {4096});
    t.random(-1e-8f, 1e-6f, 7);  // f16's smallest step is 6e-8: many draws round to zero
    for (int64_t i = 0; i < t.numel(); ++i) {
        const float v = float(t.host_value(i));
        REQUIRE(v != 0.0f);
    }
    // A range whose upper end is zero falls back to lo / 2.
    TwinTensor u(opkit_twin::f16(), {4096});
    u.random(-1e-7f, 0.0f, 8);  // about a third of the draws round to -0 in f16
    for (int64_t i = 0; i < u.numel(); ++i) REQUIRE(u.host_value(i) != 0.0);
    t.poison();
    CHECK(std::isnan(t.host_value(17)));
}

TEST_CASE("twin tensor: upload, download and allocate on a device, padding included", "[twin]") {
    TwinTensor t(opkit_twin::f32(), {2, 3}, Layout{{}, 1, 2});
    t.random(-1, 1, 3);
    REQUIRE(t.upload(kCpuDevice) == OPKIT_OK);
    void* const first = t.device_storage();
    REQUIRE(first != nullptr);
    CHECK(t.device()->data == first);
    CHECK(t.device()->device.device_type == OPKIT_DEVICE_CPU);
    std::vector<uint8_t> got;
    REQUIRE(t.download(&got) == OPKIT_OK);
    CHECK(got == t.host_storage());  // every byte, padding and the offset's bytes too
    // Allocating again on the same device keeps the allocation; uploading copies again.
    REQUIRE(t.allocate(kCpuDevice) == OPKIT_OK);
    CHECK(t.device_storage() == first);
    t.set(4, 0.25);
    REQUIRE(t.upload(kCpuDevice) == OPKIT_OK);
    REQUIRE(t.download(&got) == OPKIT_OK);
    CHECK(t.value_in(got, 4) == 0.25);
    t.release();
    CHECK(t.device_storage() == nullptr);
    CHECK(t.device()->data == nullptr);
}

TEST_CASE("twin tensor: an allocation opkit refuses is a status, not a crash", "[twin]") {
    TwinTensor t(opkit_twin::f32(), {8});
    // No machine has a CUDA device 1000 (the CPU's id is ignored, as in DLPack, so a CPU
    // device cannot be missing).
    const opkit_device nowhere{OPKIT_DEVICE_CUDA, 1000};
    CHECK(t.allocate(nowhere) == OPKIT_ERROR_NOT_FOUND);
    CHECK(t.device_storage() == nullptr);
    CHECK(t.upload(nowhere) != OPKIT_OK);
    std::vector<uint8_t> got;
    CHECK(t.download(&got) != OPKIT_OK);  // nothing to copy from
}

TEST_CASE("twin tensor: an empty tensor still has one element of storage", "[twin]") {
    TwinTensor t(opkit_twin::f16(), {0, 5}, Layout{{}, 0, 2});
    CHECK(t.numel() == 0);
    CHECK(t.host_storage().size() == 3 * 2);
    REQUIRE(t.upload(kCpuDevice) == OPKIT_OK);
}
