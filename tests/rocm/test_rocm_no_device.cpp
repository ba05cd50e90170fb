// The rocm vendor where no AMD GPU can be used, through the public API:
//   [real]         against whatever HIP runtime this machine has (CI: Debian's real
//                  libamdhip64.so.5, which finds no GPU): NO_DEVICE with the runtime's
//                  own reason, and every device call refused cleanly;
//   [unsupported]  against tests/rocm's fake runtime reporting a gfx1100: NO_DEVICE
//                  naming the ISA and the build's targets;
//   [mixed]        the fake reporting a supported and an unsupported GPU: READY with
//                  both counted (device ids stay the runtime's), the unsupported one
//                  refused by name on use;
//   [dispatch]     the fake with host memory (FAKE_HIP_MEMORY=1), which records launches
//                  instead of running them: which kernel, block and grid the shared GPU
//                  host code (vendors/gpu/host) picks for a shape and layout, e.g. that
//                  bf16 rows of 4096 take the fixed-group kernel of 128 threads and the
//                  same rows misaligned the general one. The GPU tests check the numbers
//                  such kernels give, not that the fast kernel ran.
// ctest runs each tag in its own process with its own environment (CMakeLists.txt).
#include "opkit.h"

#include <catch2/catch.hpp>

#include <dlfcn.h>

#include <cstring>
#include <string>
#include <vector>

namespace {

struct VendorState {
    int32_t state = -1;
    int32_t devices = -1;
    std::string detail, version;
};

VendorState rocm_vendor() {
    VendorState v;
    for (int32_t i = 0; i < opkit_vendor_count(); ++i) {
        opkit_vendor_info info{};
        info.struct_size = sizeof info;
        if (opkit_vendor_get_info(i, &info) != OPKIT_OK || !info.name || std::strcmp(info.name, "rocm") != 0)
            continue;
        v.state = info.state;
        v.devices = info.device_count;
        v.detail = info.detail ? info.detail : "";
        v.version = info.version ? info.version : "";
    }
    return v;
}

const std::string kFirstTarget = [] {
    const std::string all = OPKIT_TEST_ROCM_TARGETS;
    return all.substr(0, all.find(','));
}();

}  // namespace

TEST_CASE("rocm without a GPU: NO_DEVICE with the HIP runtime's reason", "[real]") {
    const VendorState v = rocm_vendor();
    INFO("detail: " << v.detail);
    REQUIRE(v.state == OPKIT_VENDOR_NO_DEVICE);
    CHECK(v.devices == 0);
    CHECK(opkit_device_count(OPKIT_DEVICE_ROCM) == 0);
    void* lib = dlopen("libamdhip64.so.5", RTLD_NOW | RTLD_LOCAL);
    if (!lib) lib = dlopen("libamdhip64.so", RTLD_NOW | RTLD_LOCAL);
    if (lib) {
        // Debian's runtime: hipGetDeviceCount answers hipErrorNoDevice (100) without a GPU.
        CHECK(v.detail.find("hipGetDeviceCount failed: hipErrorNoDevice") != std::string::npos);
        CHECK(v.detail.find("HIP 5.") != std::string::npos);
        dlclose(lib);
    } else {
        CHECK(v.detail.find("the HIP runtime is not installed") != std::string::npos);
    }
    // A ROCm tensor then has no vendor: refused with a message, nothing crashes.
    void* p = nullptr;
    CHECK(opkit_malloc(opkit_device{OPKIT_DEVICE_ROCM, 0}, 16, &p) != OPKIT_OK);
    CHECK(p == nullptr);
    CHECK(std::strlen(opkit_last_error_message()) > 0);
    float host[4] = {1, 2, 3, 4};
    int64_t shape[1] = {4};
    opkit_tensor t{host, {OPKIT_DEVICE_ROCM, 0}, 1, {OPKIT_DTYPE_FLOAT, 32, 1}, shape, nullptr, 0};
    CHECK(opkit_softmax_forward(&t, &t, nullptr) != OPKIT_OK);
    CHECK(host[3] == 4.0f);  // nothing written
}

TEST_CASE("rocm: a GPU whose ISA has no code object makes the vendor NO_DEVICE, naming it", "[unsupported]") {
    const VendorState v = rocm_vendor();
    INFO("detail: " << v.detail);
    REQUIRE(v.state == OPKIT_VENDOR_NO_DEVICE);
    CHECK(opkit_device_count(OPKIT_DEVICE_ROCM) == 0);
    CHECK(v.detail.find("device 0 (Fake GPU 0) is gfx1100") != std::string::npos);
    CHECK(v.detail.find("no code objects") != std::string::npos);
    CHECK(v.detail.find(kFirstTarget) != std::string::npos);
    CHECK(v.detail.find("OPKIT_ROCM_ARCHS") != std::string::npos);
}

TEST_CASE("rocm: of a supported and an unsupported GPU, the second is refused by name", "[mixed]") {
    const VendorState v = rocm_vendor();
    INFO("detail: " << v.detail << "; version: " << v.version);
    REQUIRE(v.state == OPKIT_VENDOR_READY);
    CHECK(opkit_device_count(OPKIT_DEVICE_ROCM) == 2);
    CHECK(v.version.find("HIP 5.2.21153") != std::string::npos);
    CHECK(v.detail.find("device 1 (Fake GPU 1) is gfx1100") != std::string::npos);
    void* p = nullptr;
    CHECK(opkit_malloc(opkit_device{OPKIT_DEVICE_ROCM, 1}, 16, &p) == OPKIT_ERROR_DEVICE);
    const std::string refused = opkit_last_error_message();
    CHECK(refused.find("HIP device 1 (Fake GPU 1) is gfx1100") != std::string::npos);
    // Device 0 passes the ISA check and reaches the runtime, which (being a fake) has no
    // memory to give: the runtime's own error comes back.
    CHECK(opkit_malloc(opkit_device{OPKIT_DEVICE_ROCM, 0}, 16, &p) == OPKIT_ERROR_DEVICE);
    const std::string runtime_error = opkit_last_error_message();
    CHECK(runtime_error.find("hipErrorNotSupported") != std::string::npos);
    CHECK(runtime_error.find("gfx1100") == std::string::npos);
}

namespace {

struct Launch {
    std::string name;
    unsigned grid = 0, grid_y = 0, block = 0, smem = 0;
};

// The launches the fake runtime (already loaded by the vendor) recorded so far.
std::vector<Launch> recorded_launches() {
    void* lib = dlopen("libamdhip64.so", RTLD_NOW | RTLD_NOLOAD);
    if (!lib) lib = dlopen("libamdhip64.so.5", RTLD_NOW | RTLD_NOLOAD);
    REQUIRE(lib != nullptr);
    using CountFn = int (*)();
    using GetFn = int (*)(int, const char**, unsigned*, unsigned*, unsigned*, unsigned*);
    const auto count = reinterpret_cast<CountFn>(dlsym(lib, "fake_hip_launch_count"));
    const auto get = reinterpret_cast<GetFn>(dlsym(lib, "fake_hip_launch"));
    REQUIRE(count != nullptr);
    REQUIRE(get != nullptr);
    std::vector<Launch> out;
    for (int i = 0; i < count(); ++i) {
        const char* name = nullptr;
        Launch l;
        REQUIRE(get(i, &name, &l.grid, &l.grid_y, &l.block, &l.smem) == 1);
        l.name = name;
        out.push_back(l);
    }
    dlclose(lib);
    return out;
}

// A row-major tensor on ROCm device 0 (the fake's host memory), byte_offset elements in.
struct RocmTensor {
    std::vector<int64_t> shape;
    void* base = nullptr;
    opkit_tensor t{};
    // code: the dtype code; -1 = a float of `bits` (32: f32, 16: bf16).
    RocmTensor(std::vector<int64_t> s, int bits, uint64_t offset_elements = 0, int code = -1)
        : shape(std::move(s)) {
        int64_t n = 1;
        for (int64_t d : shape) n *= d;
        const size_t bytes = size_t(n + int64_t(offset_elements)) * size_t(bits / 8);
        REQUIRE(opkit_malloc(opkit_device{OPKIT_DEVICE_ROCM, 0}, bytes, &base) == OPKIT_OK);
        if (code < 0) code = bits == 32 ? OPKIT_DTYPE_FLOAT : OPKIT_DTYPE_BFLOAT;
        t = opkit_tensor{base,
                         {OPKIT_DEVICE_ROCM, 0},
                         int32_t(shape.size()),
                         {uint8_t(code), uint8_t(bits), 1},
                         shape.data(),
                         nullptr,
                         offset_elements * uint64_t(bits / 8)};
    }
    // Outer dimensions laid out otherwise than row-major (elements; the innermost stays 1).
    RocmTensor& strided(std::vector<int64_t> s) {
        strides = std::move(s);
        t.strides = strides.data();
        return *this;
    }
    std::vector<int64_t> strides;
    ~RocmTensor() { opkit_free(opkit_device{OPKIT_DEVICE_ROCM, 0}, base); }
    RocmTensor(const RocmTensor&) = delete;
    RocmTensor& operator=(const RocmTensor&) = delete;
    opkit_tensor* get() { return &t; }
};

// Every launch a call made, in order.
template <class F>
std::vector<Launch> launches_of(F&& call) {
    const size_t before = recorded_launches().size();
    const opkit_status status = call();
    INFO(opkit_last_error_message());
    REQUIRE(status == OPKIT_OK);
    std::vector<Launch> after = recorded_launches();
    return std::vector<Launch>(after.begin() + std::ptrdiff_t(before), after.end());
}

// The first launch a call made (it must make at least one).
template <class F>
Launch first_launch_of(F&& call) {
    const std::vector<Launch> ls = launches_of(call);
    REQUIRE(!ls.empty());
    return ls.front();
}

}  // namespace

TEST_CASE("rocm: the host picks the fixed-group, exact and register-sum kernels for their rows", "[dispatch]") {
    REQUIRE(rocm_vendor().state == OPKIT_VENDOR_READY);
    constexpr int kBf16 = 16, kF32 = 32;
    SECTION("forwards: fixed groups for exact rows, the general kernels otherwise") {
        RocmTensor x({3, 4096}, kBf16), y({3, 4096}, kBf16), w({4096}, kBf16), rstd({3}, kF32);
        Launch l = first_launch_of(
            [&] { return opkit_rms_norm_forward(x.get(), w.get(), 1e-6f, 0.0f, y.get(), rstd.get(), nullptr); });
        // rms_norm's exact rows read twice (OPK_RMS_TWICE_KERNELS): 2-byte 4096 at 256 x 2,
        // 8192 at 512 x 2 one block a row (block_row: a block for every row; at 3 rows the
        // walking kernels' grid would be 3 too: it is capped only past 53248 rows on the fake
        // device's 104 SMs, more host memory than the fake's buffers should take, so
        // test_gpu_host_plans.cpp checks the grids on the plan itself); rows of 16384 at
        // 512 x 4 one block a row too (since the forty-eighth session). layer_norm's rows
        // keep the fixed group.
        CHECK(l.name == "opk_rms_fwd_twice_bf16_g256x2");
        CHECK(l.block == 256);
        CHECK(l.grid == 3);
        RocmTensor b({4096}, kBf16), mean3({3}, kF32);
        CHECK(first_launch_of([&] {
                  return opkit_layer_norm_forward(x.get(), w.get(), b.get(), 1e-5f, y.get(), mean3.get(), rstd.get(),
                                                  nullptr);
              }).name == "opk_ln_fwd_fixed_bf16_g128");
        for (int64_t n : {8192, 16384}) {
            RocmTensor xl({3, n}, kBf16), yl({3, n}, kBf16), wl({n}, kBf16);
            l = first_launch_of(
                [&] { return opkit_rms_norm_forward(xl.get(), wl.get(), 1e-6f, 0.0f, yl.get(), rstd.get(), nullptr); });
            CHECK(l.name == (n == 8192 ? "opk_rms_fwd_twice_block_row_bf16_g512x2" : "opk_rms_fwd_twice_block_row_bf16_g512x4"));
            CHECK(l.block == 512);
            CHECK(l.grid == 3);
        }
        RocmTensor xh({3, 8192}, 16, 0, OPKIT_DTYPE_FLOAT), yh({3, 8192}, 16, 0, OPKIT_DTYPE_FLOAT),
            wh({8192}, 16, 0, OPKIT_DTYPE_FLOAT);  // f16
        l = first_launch_of(
            [&] { return opkit_rms_norm_forward(xh.get(), wh.get(), 1e-6f, 0.0f, yh.get(), rstd.get(), nullptr); });
        CHECK(l.name == "opk_rms_fwd_twice_block_row_f16_g512x2");
        CHECK(l.block == 512);
        // One element in: no row is 16-byte aligned, so no exact kernel.
        RocmTensor xm({3, 4096}, kBf16, 1), ym({3, 4096}, kBf16, 1);
        l = first_launch_of(
            [&] { return opkit_rms_norm_forward(xm.get(), w.get(), 1e-6f, 0.0f, ym.get(), rstd.get(), nullptr); });
        CHECK(l.name == "opk_rms_fwd_bf16_c1");
        // A batch of rows the host cannot merge into one outer dimension (permuted: row
        // (i, j) at (j * 2 + i) * 4096): the general kernel, which walks both dimensions;
        // the fixed-group kernels assume one (assume_flat_rows). Merged, the fixed one.
        RocmTensor xp({2, 3, 4096}, kBf16), yp({2, 3, 4096}, kBf16), rp({6}, kF32);
        xp.strided({4096, 2 * 4096, 1});
        l = first_launch_of(
            [&] { return opkit_rms_norm_forward(xp.get(), w.get(), 1e-6f, 0.0f, yp.get(), rp.get(), nullptr); });
        CHECK(l.name == "opk_rms_fwd_bf16_c1");
        RocmTensor sp({2, 3, 4096}, kBf16), so({2, 3, 4096}, kBf16);
        so.strided({4096, 2 * 4096, 1});
        CHECK(first_launch_of([&] { return opkit_softmax_forward(sp.get(), so.get(), nullptr); }).name ==
              "opk_softmax_fwd_bf16_c1");
        CHECK(first_launch_of([&] { return opkit_softmax_forward(sp.get(), yp.get(), nullptr); }).name ==
              "opk_softmax_fwd_fixed_bf16_g128");
        RocmTensor xs({2, 16384}, kF32), ys({2, 16384}, kF32);
        l = first_launch_of([&] { return opkit_softmax_forward(xs.get(), ys.get(), nullptr); });
        CHECK(l.name == "opk_softmax_fwd_fixed_f32_g512");
        CHECK(l.block == 512);
        // fp32 rows of 4096: 256 threads of four packs (x4) in softmax and layer_norm, rms_norm's
        // read twice at 512 x 2; rows of 8192 at eight packs in softmax, rms_norm's read twice
        // at 512 x 4, and in layer_norm's kernel that loads weight and bias beside x; rows of
        // 16384 at 512 x 8 in softmax and layer_norm, rms_norm's read twice at 1024 x 4.
        struct Fp32Pick {
            int64_t n;
            const char *softmax, *rms, *ln;
            unsigned rms_block;
        };
        for (const Fp32Pick& c :
             {Fp32Pick{4096, "opk_softmax_fwd_fixed_f32_g256x4", "opk_rms_fwd_twice_f32_g512x2",
                       "opk_ln_fwd_fixed_f32_g256x4", 512},
              Fp32Pick{8192, "opk_softmax_fwd_fixed_f32_g256", "opk_rms_fwd_twice_f32_g512x4",
                       "opk_ln_fwd_params_f32_g512x4", 512},
              Fp32Pick{16384, "opk_softmax_fwd_fixed_f32_g512", "opk_rms_fwd_twice_f32_g1024x4",
                       "opk_ln_fwd_fixed_f32_g512", 1024}}) {
            INFO("fp32 rows of " << c.n);
            RocmTensor xf({2, c.n}, kF32), yf({2, c.n}, kF32), wf({c.n}, kF32), bf({c.n}, kF32);
            RocmTensor mf({2}, kF32), rf({2}, kF32);
            CHECK(first_launch_of([&] { return opkit_softmax_forward(xf.get(), yf.get(), nullptr); }).name ==
                  c.softmax);
            const Launch r = first_launch_of(
                [&] { return opkit_rms_norm_forward(xf.get(), wf.get(), 1e-6f, 0.0f, yf.get(), rf.get(), nullptr); });
            CHECK(r.name == c.rms);
            CHECK(r.block == c.rms_block);
            CHECK(r.grid == 2);
            CHECK(first_launch_of([&] {
                      return opkit_layer_norm_forward(xf.get(), wf.get(), bf.get(), 1e-5f, yf.get(), mf.get(),
                                                      rf.get(), nullptr);
                  }).name == c.ln);
        }
        // fp32 rows of 12288: exact for eight packs of 384 threads, no fixed group.
        RocmTensor xw({2, 12288}, kF32), yw({2, 12288}, kF32);
        l = first_launch_of([&] { return opkit_softmax_forward(xw.get(), yw.get(), nullptr); });
        CHECK(l.name == "opk_softmax_fwd_wide_f32");
        CHECK(l.block == 384);
        RocmTensor xl({2, 8192}, kBf16), yl({2, 8192}, kBf16), wl({8192}, kBf16), bl({8192}, kBf16);
        RocmTensor mean({2}, kF32), rs({2}, kF32);
        l = first_launch_of([&] {
            return opkit_layer_norm_forward(xl.get(), wl.get(), bl.get(), 1e-5f, yl.get(), mean.get(), rs.get(),
                                            nullptr);
        });
        CHECK(l.name == "opk_ln_fwd_fixed_bf16_g256");
        CHECK(l.block == 256);
    }
    SECTION("embedding forward: the grid's x is the part of a row, its y the row (capped)") {
        RocmTensor w({37, 4097}, kBf16), y({3, 4097}, kBf16), ids({3}, 64, 0, OPKIT_DTYPE_INT);
        Launch l = first_launch_of([&] { return opkit_embedding_forward(w.get(), ids.get(), y.get(), nullptr); });
        CHECK(l.name == "opk_emb_fwd_bf16");  // 4097 is not a whole number of packs: the general kernel
        CHECK(l.block == 128);
        CHECK(l.grid == 3);  // 513 packs of 8, in blocks of 128 threads x 2 packs
        CHECK(l.grid_y == 3);
        RocmTensor wn({5, 8}, kF32), yn({70000, 8}, kF32), idn({70000}, 64, 0, OPKIT_DTYPE_INT);
        l = first_launch_of([&] { return opkit_embedding_forward(wn.get(), idn.get(), yn.get(), nullptr); });
        CHECK(l.name == "opk_emb_fwd_dense_f32");  // dense ids, rows of whole packs
        CHECK(l.block == 128);
        CHECK(l.grid == 1);
        CHECK(l.grid_y == 65535);  // the kernel steps over the other 4465 rows
        Launch r = first_launch_of(
            [&] { return opkit_rms_norm_forward(yn.get(), nullptr, 1e-6f, 0.0f, yn.get(), nullptr, nullptr); });
        CHECK(r.grid_y == 1);  // the 1-D launches say so
    }
    SECTION("embedding backward: a contiguous dweight zeroed whole, then the ids' rows; else the row walk") {
        RocmTensor dy({3, 4097}, kBf16), ids({3}, 64, 0, OPKIT_DTYPE_INT), dw({37, 4097}, kBf16);
        std::vector<Launch> l =
            launches_of([&] { return opkit_embedding_backward(dy.get(), ids.get(), -1, dw.get(), nullptr); });
        REQUIRE(l.size() == 6);  // zero, mark, classify, init, add, the ids' rows
        CHECK(l[0].name == "opk_emb_bwd_zero_bf16");
        CHECK(l[0].block == 256);
        CHECK(l[0].grid == ((37 * 4097 * 2 + 15) / 16 + 255) / 256);  // a pack a thread, the partial one too
        CHECK(l[1].name == "opk_emb_mark");
        CHECK(l[5].name == "opk_emb_bwd_write_ids_bf16");
        // dweight one element in: not on a 16-byte boundary, so every row is walked and written.
        RocmTensor dwo({37, 4097}, kBf16, 1);
        l = launches_of([&] { return opkit_embedding_backward(dy.get(), ids.get(), -1, dwo.get(), nullptr); });
        REQUIRE(l.size() == 5);  // mark, classify, init, add, every row
        CHECK(l[0].name == "opk_emb_mark");
        CHECK(l[4].name == "opk_emb_bwd_write_bf16");
    }
    SECTION("cross-entropy forward: the loss sum counts the targets itself unless dlogits need the count") {
        RocmTensor logits({5, 1000}, kF32), target({5}, 64, 0, OPKIT_DTYPE_INT), loss({}, kF32), lse({5}, kF32);
        RocmTensor dlogits({5, 1000}, kF32);
        // MEAN, the loss alone: the row kernel, then the sum (which divides by its own count).
        std::vector<Launch> ls = launches_of([&] {
            return opkit_cross_entropy_forward(logits.get(), target.get(), -100, 0.0f, OPKIT_REDUCTION_MEAN,
                                               loss.get(), lse.get(), nullptr, nullptr);
        });
        REQUIRE(ls.size() == 2);
        CHECK(ls[1].name == "opk_ce_loss_sum");
        CHECK(ls[1].block == 1024);
        CHECK(ls[1].grid == 1);
        // MEAN with dlogits: the count first, as the row kernel scales dlogits by it.
        ls = launches_of([&] {
            return opkit_cross_entropy_forward(logits.get(), target.get(), -100, 0.0f, OPKIT_REDUCTION_MEAN,
                                               loss.get(), lse.get(), dlogits.get(), nullptr);
        });
        REQUIRE(ls.size() == 3);
        CHECK(ls[0].name == "opk_ce_count_valid");
        CHECK(ls[2].name == "opk_ce_loss_sum");
        // SUM: no count anywhere.
        ls = launches_of([&] {
            return opkit_cross_entropy_forward(logits.get(), target.get(), -100, 0.0f, OPKIT_REDUCTION_SUM,
                                               loss.get(), lse.get(), dlogits.get(), nullptr);
        });
        REQUIRE(ls.size() == 2);
        CHECK(ls[1].name == "opk_ce_loss_sum");
    }
    SECTION("rope on q and k: one launch, q's blocks then k's, dense or heads-in-flight") {
        // f32, D = 128: 32 packs a head. Both dense: opk_rope_qk_dense, two packs a thread
        // in 128-thread blocks over every 16-byte pack (q: 2 x 3 x 32 heads x 32 packs =
        // 6144, 24 blocks; k: 576, 3), q's blocks then k's.
        RocmTensor q({2, 3, 32, 128}, kF32), k({2, 3, 3, 128}, kF32), cs({3, 128}, kF32), sn({3, 128}, kF32);
        // The pair's one launch (q and k rotated in place), forward or backward.
        auto pair_launch = [&](bool backward) {
            const std::vector<Launch> ls = launches_of([&] {
                return backward
                           ? opkit_rope_qk_backward(q.get(), k.get(), cs.get(), sn.get(), q.get(), k.get(), nullptr)
                           : opkit_rope_qk_forward(q.get(), k.get(), cs.get(), sn.get(), q.get(), k.get(), nullptr);
            });
            REQUIRE(ls.size() == 1);
            return ls[0];
        };
        Launch l = pair_launch(false);
        CHECK(l.name == "opk_rope_qk_dense_f32");
        CHECK(l.grid == 27);
        CHECK(l.block == 128);
        l = pair_launch(true);
        CHECK(l.name == "opk_rope_qk_dense_f32");
        CHECK(l.grid == 27);
        // Each alone, dense: opk_rope_dense with the same blocks.
        l = first_launch_of([&] { return opkit_rope_forward(q.get(), cs.get(), sn.get(), q.get(), nullptr); });
        CHECK(l.name == "opk_rope_dense_f32");
        CHECK(l.grid == 24);
        CHECK(l.block == 128);
        l = first_launch_of([&] { return opkit_rope_backward(k.get(), cs.get(), sn.get(), k.get(), nullptr); });
        CHECK(l.name == "opk_rope_dense_f32");
        CHECK(l.grid == 3);
        // k not dense ([B,H,T,D] storage), q dense: the pair takes the heads-in-flight
        // kernel, 16 lanes over a half's packs. q's 32 heads: 8 groups, one position a block
        // of 128 threads, 6 blocks; k's 3 heads: one group, 6 positions in one block of 96
        // threads. Together 7 blocks of 128 threads, one launch.
        k.strided({3 * 3 * 128, 128, 3 * 128, 1});
        l = pair_launch(false);
        CHECK(l.name == "opk_rope_qk_f32");
        CHECK(l.grid == 7);
        CHECK(l.block == 128);
        // Neither dense: the same.
        q.strided({3 * 32 * 128, 128, 3 * 128, 1});
        l = pair_launch(true);
        CHECK(l.name == "opk_rope_qk_f32");
        CHECK(l.grid == 7);
        // Each alone, not dense: the heads-in-flight kernel, planned as its part of the
        // q+k launch.
        l = first_launch_of([&] { return opkit_rope_forward(q.get(), cs.get(), sn.get(), q.get(), nullptr); });
        CHECK(l.name == "opk_rope_f32");
        CHECK(l.grid == 6);
        CHECK(l.block == 128);
        l = first_launch_of([&] { return opkit_rope_forward(k.get(), cs.get(), sn.get(), k.get(), nullptr); });
        CHECK(l.name == "opk_rope_f32");
        CHECK(l.grid == 1);
        CHECK(l.block == 96);
    }
    SECTION("rope alone: the dense kernel only where a head's packs are a power of two within a warp") {
        // bf16 D = 256: 32 packs a head (dense); D = 512: 64 (not); f32 D = 96: 24 (not).
        RocmTensor a({1, 4, 2, 256}, 16), ac({4, 256}, 16), as({4, 256}, 16);
        Launch l = first_launch_of([&] { return opkit_rope_forward(a.get(), ac.get(), as.get(), a.get(), nullptr); });
        CHECK(l.name == "opk_rope_dense_bf16");
        CHECK(l.grid == 1);  // 256 packs
        RocmTensor b({1, 4, 2, 512}, 16), bc({4, 512}, 16), bs({4, 512}, 16);
        l = first_launch_of([&] { return opkit_rope_forward(b.get(), bc.get(), bs.get(), b.get(), nullptr); });
        CHECK(l.name == "opk_rope_bf16");
        RocmTensor c({1, 4, 2, 96}, 32), cc({4, 96}, 32), cn({4, 96}, 32);
        l = first_launch_of([&] { return opkit_rope_forward(c.get(), cc.get(), cn.get(), c.get(), nullptr); });
        CHECK(l.name == "opk_rope_f32");
    }
    SECTION("softmax backward: 2-byte rows of 512 packs at one pack a thread") {
        RocmTensor dy({3, 4096}, kBf16), y({3, 4096}, kBf16), dx({3, 4096}, kBf16);
        Launch l = first_launch_of([&] { return opkit_softmax_backward(dy.get(), y.get(), dx.get(), nullptr); });
        CHECK(l.name == "opk_softmax_bwd_one_pack_bf16");
        CHECK(l.block == 512);
        CHECK(l.grid == 3);  // one block a row
        // Misaligned rows are not whole packs: the general kernel.
        RocmTensor dym({3, 4096}, kBf16, 1), ym({3, 4096}, kBf16, 1), dxm({3, 4096}, kBf16, 1);
        l = first_launch_of([&] { return opkit_softmax_backward(dym.get(), ym.get(), dxm.get(), nullptr); });
        CHECK(l.name == "opk_softmax_bwd_bf16_c1");
        // fp32 rows of 4096 are 1024 packs: the exact kernel at four packs a thread.
        RocmTensor dyf({3, 4096}, kF32), yf({3, 4096}, kF32), dxf({3, 4096}, kF32);
        l = first_launch_of([&] { return opkit_softmax_backward(dyf.get(), yf.get(), dxf.get(), nullptr); });
        CHECK(l.name == "opk_softmax_bwd_exact_f32");
        CHECK(l.block == 256);
    }
    SECTION("softmax backward: 2-byte rows of 16384 one block a row") {
        RocmTensor dy({3, 16384}, kBf16), y({3, 16384}, kBf16), dx({3, 16384}, kBf16);
        Launch l = first_launch_of([&] { return opkit_softmax_backward(dy.get(), y.get(), dx.get(), nullptr); });
        CHECK(l.name == "opk_softmax_bwd_block_row_bf16_g512x4");
        CHECK(l.block == 512);
        // A block for every row: the kernel has no row walk. (Here the fixed groups' grid
        // would be 3 as well; rows past that grid, 53248 on the fake device's 104 SMs, are
        // more host memory than the fake's buffers should take.)
        CHECK(l.grid == 3);
        // Misaligned rows are not whole packs: the general kernel.
        RocmTensor dym({3, 16384}, kBf16, 1), ym({3, 16384}, kBf16, 1), dxm({3, 16384}, kBf16, 1);
        l = first_launch_of([&] { return opkit_softmax_backward(dym.get(), ym.get(), dxm.get(), nullptr); });
        CHECK(l.name == "opk_softmax_bwd_bf16_c1");
        // Rows the host cannot merge into one outer dimension (permuted: row (i, j) at
        // (j * 2 + i) * 16384): the kernel assumes one (assume_flat_rows), so the eight-pack
        // kernel, which walks both.
        RocmTensor dyp({2, 3, 16384}, kBf16), yp({2, 3, 16384}, kBf16), dxp({2, 3, 16384}, kBf16);
        for (RocmTensor* t : {&dyp, &yp, &dxp}) t->strided({16384, 2 * 16384, 1});
        l = first_launch_of([&] { return opkit_softmax_backward(dyp.get(), yp.get(), dxp.get(), nullptr); });
        CHECK(l.name == "opk_softmax_bwd_wide_bf16");
        CHECK(l.block == 256);
    }
    SECTION("softmax backward: the exact and eight-pack kernels") {
        // 2-byte rows of 24576 (3072 packs): eight packs a thread of 384 threads.
        RocmTensor dy({2, 24576}, kBf16), y({2, 24576}, kBf16), dx({2, 24576}, kBf16);
        Launch l = first_launch_of([&] { return opkit_softmax_backward(dy.get(), y.get(), dx.get(), nullptr); });
        CHECK(l.name == "opk_softmax_bwd_wide_bf16");
        CHECK(l.block == 384);
        RocmTensor dyf({2, 8192}, kF32), yf({2, 8192}, kF32), dxf({2, 8192}, kF32);
        l = first_launch_of([&] { return opkit_softmax_backward(dyf.get(), yf.get(), dxf.get(), nullptr); });
        CHECK(l.name == "opk_softmax_bwd_exact_f32");
        CHECK(l.block == 512);
        RocmTensor dym({2, 8192}, kF32, 1), ym({2, 8192}, kF32, 1), dxm({2, 8192}, kF32, 1);
        l = first_launch_of([&] { return opkit_softmax_backward(dym.get(), ym.get(), dxm.get(), nullptr); });
        CHECK(l.name == "opk_softmax_bwd_f32_c1");
    }
    SECTION("fp32 norm backwards: register sums, then the column sums") {
        RocmTensor dy({4, 8192}, kF32), x({4, 8192}, kF32), dx({4, 8192}, kF32);
        RocmTensor w({8192}, kF32), dw({8192}, kF32), db({8192}, kF32), mean({4}, kF32), rstd({4}, kF32);
        std::vector<Launch> ls = launches_of([&] {
            return opkit_layer_norm_backward(dy.get(), x.get(), w.get(), mean.get(), rstd.get(), dx.get(), dw.get(),
                                             db.get(), nullptr);
        });
        REQUIRE(ls.size() == 2);  // the row kernel, then one launch of the column sums
        CHECK(ls[0].name == "opk_ln_bwd_regs_f32");
        CHECK(ls[0].block == 512);
        CHECK(ls[0].smem == 8192 * 4);  // the weight row's copy only: the sums are in registers
        // dweight's and dbias's sums a grid row each, 32 columns a block.
        CHECK(ls[1].name == "opk_column_sum_f32");
        CHECK(ls[1].grid == 8192 / 32);
        CHECK(ls[1].grid_y == 2);
        CHECK(ls[1].block == 512);
        RocmTensor dy4({4, 4096}, kF32), x4({4, 4096}, kF32), dx4({4, 4096}, kF32), w4({4096}, kF32);
        RocmTensor dw4({4096}, kF32);
        ls = launches_of([&] {
            return opkit_rms_norm_backward(dy4.get(), x4.get(), w4.get(), rstd.get(), 0.0f, dx4.get(), dw4.get(),
                                           nullptr);
        });
        REQUIRE(ls.size() == 2);
        CHECK(ls[0].name == "opk_rms_bwd_regs_f32");
        CHECK(ls[0].block == 256);
        CHECK(ls[1].name == "opk_column_sum_f32");
        CHECK(ls[1].grid_y == 1);  // dweight's alone
        // From rows of kColumnSumQuadsMinColumns the lanes of opk_column_sum4 sum four
        // adjacent columns, a block 128; a row that is not a multiple of four keeps one a lane.
        for (int64_t n : {int64_t(16384), int64_t(16386)}) {
            RocmTensor dyw({4, n}, kF32), xw({4, n}, kF32), dxw({4, n}, kF32), ww({n}, kF32), dww({n}, kF32);
            ls = launches_of([&] {
                return opkit_rms_norm_backward(dyw.get(), xw.get(), ww.get(), rstd.get(), 0.0f, dxw.get(), dww.get(),
                                               nullptr);
            });
            REQUIRE(ls.size() == 2);
            CHECK(ls[1].name == (n == 16384 ? "opk_column_sum4_f32" : "opk_column_sum_f32"));
            CHECK(ls[1].grid == (n == 16384 ? 16384 / 128 : (16386 + 31) / 32));
        }
        // Without dweight (no weight) there are no sums to add: the row kernel alone.
        ls = launches_of([&] {
            return opkit_rms_norm_backward(dy4.get(), x4.get(), nullptr, rstd.get(), 0.0f, dx4.get(), nullptr,
                                           nullptr);
        });
        REQUIRE(ls.size() == 1);
        CHECK(ls[0].name == "opk_rms_bwd_regs_f32");
    }
}
