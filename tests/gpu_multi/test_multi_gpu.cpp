// Device ids other than 0 (issue 15): every op on device 1 against the CPU, devices 0 and
// 1 alternating from several threads, copies between them, and calls that mix them.
// Each case needs two devices of the vendor under test and is skipped (exit 77, ctest
// "Skipped") on a machine with fewer; docs/gpu-runs.md says where it has run.
#include "cuda_test_support.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

using namespace cudatest;

namespace {

using TP = std::unique_ptr<Tensor>;
constexpr int32_t kDev1 = 1;
const opkit_device kGpu1{kDeviceType, kDev1};

bool two_devices_or_skip() {
    if (!cuda_or_skip()) return false;
    const int32_t n = opkit_device_count(kDeviceType);
    if (n >= 2) return true;
    skip_case(std::string("needs two ") + kVendor + " devices; this machine has " + std::to_string(n));
    return false;
}

TP make(opkit_dtype d, std::vector<int64_t> shape, int32_t device = kDev1) {
    return std::make_unique<Tensor>(d, std::move(shape), Layout{}, device);
}
opkit_tensor* on(bool gpu, const TP& t) { return t ? (gpu ? t->gpu() : t->cpu()) : nullptr; }

// The CPU first (the reference), then the device copies.
template <class F>
void both(F&& call) {
    REQUIRE_OK(call(false));
    REQUIRE_OK(call(true));
}

void upload_all(std::initializer_list<Tensor*> ts) {
    for (Tensor* t : ts) t->upload();
}

// The vendor under test served this thread's last call (the results' equality with the
// CPU and the device-1 buffers show where it ran).
void served_by_vendor() {
    opkit_dispatch_info info{};
    info.struct_size = sizeof info;
    REQUIRE_OK(opkit_last_dispatch(&info));
    CHECK(std::string(info.served_by) == kVendor);
}

}  // namespace

TEST_CASE("multi: every op on device 1 matches the CPU", "[gpu][multi]") {
    if (!two_devices_or_skip()) return;
    const opkit_dtype dts[] = {f32(), bf16()};
    uint64_t seed = 1500;
    for (opkit_dtype d : dts) {
        INFO("dtype " << dtype_name(d));
        const int64_t R = 37, N = 1031;
        TP x = make(d, {R, N}), w = make(d, {N}), b = make(d, {N}), y = make(d, {R, N});
        TP rstd = make(f32(), {R}), mean = make(f32(), {R});
        x->random(-3, 3, seed++);
        w->random(0.5, 1.5, seed++);
        b->random(-1, 1, seed++);
        upload_all({x.get(), w.get(), b.get(), y.get(), rstd.get(), mean.get()});

        both([&](bool g) { return opkit_rms_norm_forward(on(g, x), on(g, w), 1e-6f, 0.0f, on(g, y), on(g, rstd), nullptr); });
        served_by_vendor();
        CHECK(same(*y, "rms_norm_forward", "y", "rms_norm y"));
        TP dy = make(d, {R, N}), dx = make(d, {R, N}), dw = make(d, {N});
        dy->random(-1, 1, seed++);
        rstd->upload();  // the CPU's rstd as input on both sides
        upload_all({dy.get(), dx.get(), dw.get()});
        both([&](bool g) {
            return opkit_rms_norm_backward(on(g, dy), on(g, x), on(g, w), on(g, rstd), 0.0f, on(g, dx), on(g, dw), nullptr);
        });
        CHECK(same(*dx, "rms_norm_backward", "dx", "rms_norm dx"));
        CHECK(same(*dw, "rms_norm_backward", "dweight", "rms_norm dweight"));

        both([&](bool g) {
            return opkit_layer_norm_forward(on(g, x), on(g, w), on(g, b), 1e-5f, on(g, y), on(g, mean), on(g, rstd), nullptr);
        });
        CHECK(same(*y, "layer_norm_forward", "y", "layer_norm y"));
        mean->upload();
        rstd->upload();
        TP db = make(d, {N});
        db->upload();
        both([&](bool g) {
            return opkit_layer_norm_backward(on(g, dy), on(g, x), on(g, w), on(g, mean), on(g, rstd), on(g, dx),
                                             on(g, dw), on(g, db), nullptr);
        });
        CHECK(same(*dx, "layer_norm_backward", "dx", "layer_norm dx"));
        CHECK(same(*db, "layer_norm_backward", "dbias", "layer_norm dbias"));

        both([&](bool g) { return opkit_softmax_forward(on(g, x), on(g, y), nullptr); });
        CHECK(same(*y, "softmax_forward", "y", "softmax y"));
        y->upload();
        both([&](bool g) { return opkit_softmax_backward(on(g, dy), on(g, y), on(g, dx), nullptr); });
        CHECK(same(*dx, "softmax_backward", "dx", "softmax dx"));

        TP da = make(d, {R, N}), dbb = make(d, {R, N});
        upload_all({da.get(), dbb.get()});
        both([&](bool g) { return opkit_swiglu_forward(on(g, x), on(g, dy), on(g, y), nullptr); });
        CHECK(same(*y, "swiglu_forward", "y", "swiglu y"));
        both([&](bool g) { return opkit_geglu_backward(on(g, y), on(g, x), on(g, dy), OPKIT_GELU_NONE, on(g, da), on(g, dbb), nullptr); });
        CHECK(same(*da, "geglu_backward", "da", "geglu da"));
        CHECK(same(*dbb, "geglu_backward", "db", "geglu db"));

        const int64_t B = 2, T = 5, H = 3, D = 64;
        TP q = make(d, {B, T, H, D}), cs = make(d, {T, D}), sn = make(d, {T, D}), qo = make(d, {B, T, H, D});
        q->random(-1, 1, seed++);
        cs->random(-1, 1, seed++);
        sn->random(-1, 1, seed++);
        upload_all({q.get(), cs.get(), sn.get(), qo.get()});
        both([&](bool g) { return opkit_rope_forward(on(g, q), on(g, cs), on(g, sn), on(g, qo), nullptr); });
        CHECK(same(*qo, "rope_forward", "y", "rope y"));
        both([&](bool g) { return opkit_rope_backward(on(g, q), on(g, cs), on(g, sn), on(g, qo), nullptr); });
        CHECK(same(*qo, "rope_backward", "dx", "rope dx"));

        const int64_t V = 1000;
        TP logits = make(d, {R, V}), target = make(i64(), {R}), loss = make(f32(), {}), lse = make(f32(), {R}),
           dl = make(d, {R, V}), dloss = make(f32(), {});
        logits->random(-4, 4, seed++);
        target->random_ints(0, V - 1, seed++);  // inclusive
        dloss->set(0, 1.0);
        upload_all({logits.get(), target.get(), loss.get(), lse.get(), dl.get(), dloss.get()});
        both([&](bool g) {
            return opkit_cross_entropy_forward(on(g, logits), on(g, target), -100, 0.0f, OPKIT_REDUCTION_MEAN,
                                               on(g, loss), on(g, lse), nullptr, nullptr);
        });
        CHECK(same(*loss, "cross_entropy_forward", "loss", "cross_entropy loss", 1.0));
        lse->upload();
        both([&](bool g) {
            return opkit_cross_entropy_backward(on(g, dloss), on(g, logits), on(g, target), on(g, lse), -100, 0.0f,
                                                OPKIT_REDUCTION_MEAN, on(g, dl), nullptr);
        });
        CHECK(same(*dl, "cross_entropy_backward", "dlogits", "cross_entropy dlogits", 1.0));

        TP table = make(d, {50, 48}), ids = make(i64(), {R}), rows = make(d, {R, 48}), dtable = make(d, {50, 48});
        table->random(-1, 1, seed++);
        ids->random_ints(0, 49, seed++);  // inclusive
        upload_all({table.get(), ids.get(), rows.get(), dtable.get()});
        both([&](bool g) { return opkit_embedding_forward(on(g, table), on(g, ids), on(g, rows), nullptr); });
        CHECK(same(*rows, "embedding_forward", "y", "embedding y"));
        both([&](bool g) { return opkit_embedding_backward(on(g, rows), on(g, ids), -1, on(g, dtable), nullptr); });
        CHECK(same(*dtable, "embedding_backward", "dweight", "embedding dweight"));

        TP ma = make(d, {33, 65}), mb = make(d, {65, 17}), mc = make(d, {33, 17});
        ma->random(-1, 1, seed++);
        mb->random(-1, 1, seed++);
        upload_all({ma.get(), mb.get(), mc.get()});
        both([&](bool g) { return opkit_matmul(on(g, ma), on(g, mb), on(g, mc), 1.0f, 0.0f, 0, 0, nullptr); });
        served_by_vendor();
        CHECK(same(*mc, "matmul", "c", "matmul c"));

        both([&](bool g) { return opkit_axpy(0.5f, on(g, x), on(g, y), nullptr); });
        CHECK(same(*y, "axpy", "y", "axpy y"));
    }
}

TEST_CASE("multi: a stream and opkit_malloc buffers of device 1", "[gpu][multi]") {
    if (!two_devices_or_skip()) return;
    opkit_stream s = nullptr;
    REQUIRE_OK(opkit_stream_create(kGpu1, &s));
    TP x = make(f32(), {64, 257}), y = make(f32(), {64, 257});
    x->random(-2, 2, 77);
    y->poison();
    x->upload();
    y->upload();
    REQUIRE_OK(opkit_softmax_forward(x->cpu(), y->cpu(), nullptr));
    REQUIRE_OK(opkit_softmax_forward(x->gpu(), y->gpu(), s));
    REQUIRE_OK(opkit_synchronize(kGpu1, s));
    CHECK(same(*y, "softmax_forward", "y", "softmax on a device-1 stream"));
    REQUIRE_OK(opkit_stream_destroy(kGpu1, s));
}

TEST_CASE("multi: opkit_memcpy between devices 0 and 1", "[gpu][multi]") {
    if (!two_devices_or_skip()) return;
    const size_t n = (size_t(1) << 20) + 13;
    std::vector<uint8_t> src(n), back(n, 0);
    for (size_t i = 0; i < n; ++i) src[i] = uint8_t(i * 131 + 7);
    void *a = nullptr, *b = nullptr;
    REQUIRE_OK(opkit_malloc(kGpu, n, &a));
    REQUIRE_OK(opkit_malloc(kGpu1, n, &b));
    REQUIRE_OK(opkit_memcpy(a, kGpu, src.data(), kCpu, n, nullptr));
    REQUIRE_OK(opkit_memcpy(b, kGpu1, a, kGpu, n, nullptr));  // 0 -> 1
    REQUIRE_OK(opkit_memcpy(back.data(), kCpu, b, kGpu1, n, nullptr));
    // memcmp, not CHECK(back == src): Catch would print both megabytes with -s.
    CHECK(std::memcmp(back.data(), src.data(), n) == 0);
    std::fill(back.begin(), back.end(), 0);
    REQUIRE_OK(opkit_memcpy(a, kGpu, src.data() + 1, kCpu, n - 1, nullptr));
    REQUIRE_OK(opkit_memcpy(static_cast<char*>(b) + 1, kGpu1, a, kGpu, n - 1, nullptr));  // 0 -> 1, odd offset
    REQUIRE_OK(opkit_memcpy(a, kGpu, b, kGpu1, n, nullptr));                              // 1 -> 0
    REQUIRE_OK(opkit_memcpy(back.data(), kCpu, a, kGpu, n, nullptr));
    CHECK(std::memcmp(back.data() + 1, src.data() + 1, n - 1) == 0);
    REQUIRE_OK(opkit_free(kGpu, a));
    REQUIRE_OK(opkit_free(kGpu1, b));
}

TEST_CASE("multi: a call mixing devices 0 and 1 is refused and writes nothing", "[gpu][multi]") {
    if (!two_devices_or_skip()) return;
    TP x = make(f32(), {8, 64}, 0), y = make(f32(), {8, 64}, kDev1);
    x->random(-1, 1, 5);
    y->poison();
    x->upload();
    y->upload();
    const std::vector<uint8_t> before = y->download();
    const opkit_status st = opkit_softmax_forward(x->gpu(), y->gpu(), nullptr);
    INFO(opkit_last_error_message());
    CHECK(st == OPKIT_ERROR_INVALID_ARGUMENT);
    CHECK(std::string(opkit_last_error_message()).find("different devices") != std::string::npos);
    CHECK(y->download() == before);
}

TEST_CASE("multi: a stream of device 0 is not used for device-1 work", "[gpu][multi]") {
    if (!two_devices_or_skip()) return;
    opkit_stream s0 = nullptr;
    REQUIRE_OK(opkit_stream_create(kGpu, &s0));
    TP x = make(f32(), {8, 64}), y = make(f32(), {8, 64});
    x->random(-1, 1, 6);
    y->poison();
    x->upload();
    y->upload();
    const std::vector<uint8_t> before = y->download();
    const opkit_status st = opkit_softmax_forward(x->gpu(), y->gpu(), s0);
    INFO(opkit_status_string(st) << ": " << opkit_last_error_message());
    // Refused (the driver rejects a launch on another context's stream, or opkit checks
    // it first); never run on device 0 and never written.
    CHECK(st != OPKIT_OK);
    REQUIRE_OK(opkit_synchronize(kGpu1, nullptr));
    CHECK(y->download() == before);
    REQUIRE_OK(opkit_stream_destroy(kGpu, s0));
}

TEST_CASE("multi: threads alternating devices 0 and 1, device 1 first", "[gpu][multi]") {
    if (!two_devices_or_skip()) return;
    // Device 1 is used first in this process, so nothing it needs (modules, scratch,
    // cuBLASLt handles) can be left over from device 0; then both, from four threads.
    const int kThreads = 4, kIters = 25;
    std::vector<TP> xs, ys;
    for (int t = 0; t < kThreads; ++t)
        for (int dev = 1; dev >= 0; --dev) {
            xs.push_back(make(bf16(), {16, 4096}, dev));
            ys.push_back(make(bf16(), {16, 4096}, dev));
            xs.back()->random(-3, 3, uint64_t(100 + t * 2 + dev));
            xs.back()->upload();
            ys.back()->poison();
            ys.back()->upload();
        }
    for (size_t i = 0; i < xs.size(); ++i) REQUIRE_OK(opkit_softmax_forward(xs[i]->cpu(), ys[i]->cpu(), nullptr));
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([&, t] {
            for (int it = 0; it < kIters; ++it)
                for (int k = 0; k < 2; ++k) {
                    const size_t i = size_t(t * 2 + (it + k) % 2);
                    if (opkit_softmax_forward(xs[i]->gpu(), ys[i]->gpu(), nullptr) != OPKIT_OK) ++failures;
                }
        });
    for (std::thread& th : threads) th.join();
    CHECK(failures == 0);
    for (size_t i = 0; i < xs.size(); ++i) CHECK(same(*ys[i], "softmax_forward", "y", "thread result " + std::to_string(i)));
}
