// The GPU vendor under test (cuda or rocm) as a runtime: how it reports itself (and, for
// cuda, without a driver; tests/rocm covers rocm without a device),
// memory, copies, streams and their ordering.
#include "cuda_test_support.h"

#include <catch2/catch.hpp>

#include <dlfcn.h>

#include <cmath>
#include <cstring>
#include <vector>

using namespace cudatest;

TEST_CASE("vendor: found and READY or NO_DEVICE with a reason", "[gpu][runtime]") {
    int32_t state;
    const std::string detail = cuda_vendor_detail(&state);
    INFO("state " << state << ", detail: " << detail);
    REQUIRE(state >= 0);  // the vendor built next to libopkit was loaded
    if (state == OPKIT_VENDOR_READY) {
        CHECK(opkit_device_count(kDeviceType) > 0);
        const char* who = nullptr;
        for (const char* op : {"rms_norm_forward", "cross_entropy_backward", "matmul", "axpy"}) {
            REQUIRE(opkit_op_resolve(op, kDeviceType, &who) == OPKIT_OK);
            CHECK(std::string(who) == kVendor);
        }
    } else {
        CHECK(state == OPKIT_VENDOR_NO_DEVICE);
        CHECK(!detail.empty());
        skip_case(std::string("no ") + kVendor + " device: " + detail);
    }
}

#ifndef OPKIT_GPU_TEST_ROCM  // rocm without a device: tests/rocm, against Debian's real runtime
TEST_CASE("vendor: without a driver it reports NO_DEVICE and says why", "[gpu][runtime]") {
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib) {
        dlclose(lib);
        skip_case("libcuda.so.1 is installed here; this checks machines without a driver");
        return;
    }
    int32_t state;
    const std::string detail = cuda_vendor_detail(&state);
    CHECK(state == OPKIT_VENDOR_NO_DEVICE);
    CHECK(detail.find("libcuda.so.1") != std::string::npos);
    CHECK(opkit_device_count(kDeviceType) == 0);
    void* p = nullptr;  // a CUDA device then does not exist for the API
    CHECK(opkit_malloc(kGpu, 16, &p) != OPKIT_OK);
}
#endif

TEST_CASE("vendor: memory round trips host -> device -> device -> host", "[gpu][memory]") {
    if (!cuda_or_skip()) return;
    const size_t n = (size_t(1) << 20) + 3;
    std::vector<uint8_t> src(n), back(n, 0);
    for (size_t i = 0; i < n; ++i) src[i] = uint8_t(i * 131 + 7);
    void *a = nullptr, *b = nullptr;
    REQUIRE_OK(opkit_malloc(kGpu, n, &a));
    REQUIRE_OK(opkit_malloc(kGpu, n, &b));
    REQUIRE_OK(opkit_memcpy(a, kGpu, src.data(), kCpu, n, nullptr));
    REQUIRE_OK(opkit_memcpy(b, kGpu, a, kGpu, n, nullptr));
    // An unaligned slice, device to host: the host side is complete on return.
    REQUIRE_OK(opkit_memcpy(back.data() + 1, kCpu, static_cast<char*>(b) + 5, kGpu, n - 5, nullptr));
    CHECK(std::memcmp(back.data() + 1, src.data() + 5, n - 5) == 0);
    REQUIRE_OK(opkit_synchronize(kGpu, nullptr));
    REQUIRE_OK(opkit_free(kGpu, a));
    REQUIRE_OK(opkit_free(kGpu, b));
    REQUIRE_OK(opkit_free(kGpu, nullptr));
    void* z = nullptr;
    REQUIRE_OK(opkit_malloc(kGpu, 0, &z));  // zero bytes: a valid, freeable pointer
    REQUIRE_OK(opkit_free(kGpu, z));
}

TEST_CASE("vendor: a huge allocation fails with OUT_OF_MEMORY and the driver's words", "[gpu][memory]") {
    if (!cuda_or_skip()) return;
    void* p = nullptr;
    const opkit_status s = opkit_malloc(kGpu, size_t(1) << 50, &p);
    CHECK(s == OPKIT_ERROR_OUT_OF_MEMORY);
    CHECK(std::string(opkit_last_error_message()).find(kOomText) != std::string::npos);
}

TEST_CASE("vendor: work on a user stream is ordered and a host copy on it waits", "[gpu][stream]") {
    if (!cuda_or_skip()) return;
    opkit_stream s = nullptr;
    REQUIRE_OK(opkit_stream_create(kGpu, &s));
    REQUIRE(s != nullptr);
    // y += 1 * x, 200 times, on the stream; then copy y back on the same stream without
    // any synchronize: the copy must see all 200 updates.
    const int64_t n = int64_t(1) << 22;
    Tensor x(f32(), {n}), y(f32(), {n});
    for (int64_t i = 0; i < n; ++i) {
        x.set(i, 1.0);
        y.set(i, double(i % 7));
    }
    x.upload();
    y.upload();
    REQUIRE_OK(opkit_synchronize(kGpu, nullptr));
    for (int k = 0; k < 200; ++k) REQUIRE_OK(opkit_axpy(1.0f, x.gpu(), y.gpu(), s));
    std::vector<float> back(static_cast<size_t>(n));
    REQUIRE_OK(opkit_memcpy(back.data(), kCpu, y.gpu()->data, kGpu, size_t(n) * 4, s));
    int64_t wrong = 0;
    for (int64_t i = 0; i < n; ++i) wrong += back[size_t(i)] != float(i % 7 + 200);
    CHECK(wrong == 0);
    // An op on the user stream, then synchronize(stream): done.
    REQUIRE_OK(opkit_softmax_forward(y.gpu(), y.gpu(), s));
    REQUIRE_OK(opkit_synchronize(kGpu, s));
    REQUIRE_OK(opkit_stream_destroy(kGpu, s));
}
