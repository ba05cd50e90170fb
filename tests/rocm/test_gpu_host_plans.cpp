// The shared GPU host layer's launch plans, checked on the host alone (no runtime, no
// device): fixed_group_plan (vendors/gpu/host/ops_common.h), which both GPU vendors use.
// It lives beside the rocm vendor's no-device tests because they are the build's tests of
// the host layer that run without a GPU; nothing here calls HIP.
//
// What the launch-shape test (test_rocm_no_device.cpp) cannot see: the grid of a
// block_row kernel (FixedKernel::block_row) at more rows than a walking kernel's capped
// grid, where a kernel with no row walk given that capped grid would skip rows silently;
// and the rows past which such a grid cannot be launched. Also the kernel parameters'
// field order that was measured (kernel_params.h), checked at compile time.
#include "../../vendors/gpu/host/ops_common.h"

#include <catch2/catch.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace {

using opkit_gpu::Device;
using opkit_gpu::RowPlan;

opk::RowsView flat_rows() {
    opk::RowsView v{};
    v.nd = 1;
    v.vec = 1;
    return v;
}

// An H100/H200-like device: 132 SMs, warps of 32.
void like_hopper(Device& d) {
    d.sm_count = 132;
    d.warp_size = 32;
}

}  // namespace

TEST_CASE("gpu host: rms_norm's 2-byte rows of 8192 and 16384 take a block_row kernel, a block for every row",
          "[plans]") {
    Device d;
    like_hopper(d);
    const opk::FixedKernel twice[3][3] = OPK_RMS_TWICE_KERNELS("opk_rms_fwd_twice");
    opk::RowsView x = flat_rows(), y = flat_rows();
    // More rows than the walking kernels' grid (132 SMs x 2 blocks of 512 x 256 waves).
    constexpr int64_t kRows = 200000;
    for (int type : {1, 2}) {  // f16, bf16
        const std::string dt = type == 1 ? "f16" : "bf16";
        RowPlan p{};
        // Rows of 8192 at 512 x 2 and of 16384 at 512 x 4, one block a row.
        for (int packs : {2, 4}) {
            const char* k = opkit_gpu::fixed_group_plan(d, kRows, 512 * packs * 8, 2, twice[type], {&x, &y}, &p);
            REQUIRE(k != nullptr);
            CHECK(std::string(k) == "opk_rms_fwd_twice_block_row_" + dt + "_g512x" + std::to_string(packs));
            CHECK(p.block == 512);
            CHECK(p.grid == size_t(kRows));
        }
        // Rows of 4096 take the 256 x 2 kernel, which walks its rows: its grid is capped.
        const char* w = opkit_gpu::fixed_group_plan(d, kRows, 4096, 2, twice[type], {&x, &y}, &p);
        REQUIRE(w != nullptr);
        CHECK(std::string(w).find("_block_row_") == std::string::npos);
        CHECK(p.block == 256);
        CHECK(p.grid == size_t(132 * (opkit_gpu::kResidentThreads / 256) * opkit_gpu::kRowGridWavesBalanced));
        CHECK(p.grid < size_t(kRows));
    }
    // fp32 rows keep walking kernels.
    RowPlan p{};
    const char* f = opkit_gpu::fixed_group_plan(d, kRows, 8192, 4, twice[0], {&x, &y}, &p);
    REQUIRE(f != nullptr);
    CHECK(std::string(f) == "opk_rms_fwd_twice_f32_g512x4");
    CHECK(p.grid < size_t(kRows));
}

TEST_CASE("gpu host: a block_row kernel is passed over at rows no grid of a block a row can have",
          "[plans]") {
    Device d;
    like_hopper(d);
    // 512 threads: at most 0xffffffff / 512 = 8388607 rows (HIP's 2^32 - 1 threads a grid).
    const opk::FixedKernel one[3] = {{"block_row_512x4", 512, 4, true}, {}, {}};
    const opk::FixedKernel then_walk[3] = {{"block_row_512x4", 512, 4, true}, {"walks_512x4", 512, 4}, {}};
    opk::RowsView x = flat_rows(), y = flat_rows();
    RowPlan p{};
    constexpr int64_t kMax = int64_t(0xffffffffu) / 512;
    const char* k = opkit_gpu::fixed_group_plan(d, kMax, 16384, 2, one, {&x, &y}, &p);
    REQUIRE(k != nullptr);
    CHECK(p.grid == size_t(kMax));
    RowPlan untouched{};
    untouched.grid = 7;
    CHECK(opkit_gpu::fixed_group_plan(d, kMax + 1, 16384, 2, one, {&x, &y}, &untouched) == nullptr);
    CHECK(untouched.grid == 7);
    // The table's next kernel of the row, if any, takes them instead.
    k = opkit_gpu::fixed_group_plan(d, kMax + 1, 16384, 2, then_walk, {&x, &y}, &p);
    REQUIRE(k != nullptr);
    CHECK(std::string(k) == "walks_512x4");
    CHECK(p.grid < size_t(kMax));
    // Views of more than one outer dimension: no fixed-group kernel at all.
    opk::RowsView x2 = flat_rows();
    x2.nd = 2;
    CHECK(opkit_gpu::fixed_group_plan(d, 3, 16384, 2, one, {&x2, &y}, &p) == nullptr);
}

TEST_CASE("gpu host: the forwards' fixed-group kernels that the *_fwd_block_row picks name take a block a row",
          "[plans]") {
    Device d;
    like_hopper(d);
    // The hosts' own table macros (ops_softmax.cpp, ops_norms.cpp build theirs from these).
    const opk::FixedKernel softmax[3][3] = OPK_SOFTMAX_FWD_FIXED_KERNELS;
    const opk::FixedKernel ln[3][3] = OPK_LN_FWD_FIXED_KERNELS;
    const opk::FixedKernel rms[3][3] = OPK_RMS_FWD_FIXED_KERNELS;
    opk::RowsView x = flat_rows(), y = flat_rows();
    constexpr int64_t kRows = 4000000;  // more than any walking kernel's capped grid
    using Table = opk::FixedKernel[3];
    struct Case {
        const Table& table;
        int64_t n;
        size_t element_size;
        const char* kernel;
        bool block_row;
    };
    const Case cases[] = {
        {softmax[2], 8192, 2, "opk_softmax_fwd_fixed_bf16_g256", true},
        {softmax[1], 8192, 2, "opk_softmax_fwd_fixed_f16_g256", true},
        // (rms_norm_forward tries its twice table first, which takes these rows since the
        // forty-eighth session; the fixed table's pick is still checked as a table.)
        {rms[2], 16384, 2, "opk_rms_fwd_fixed_bf16_g512", true},
        {rms[1], 16384, 2, "opk_rms_fwd_fixed_f16_g512", true},
        {ln[0], 16384, 4, "opk_ln_fwd_fixed_f32_g512", true},
        // Measured no faster or slower one row a block: they walk.
        {softmax[2], 4096, 2, "opk_softmax_fwd_fixed_bf16_g128", false},
        {softmax[2], 16384, 2, "opk_softmax_fwd_fixed_bf16_g512", false},
        {softmax[0], 8192, 4, "opk_softmax_fwd_fixed_f32_g256", false},
        {softmax[0], 16384, 4, "opk_softmax_fwd_fixed_f32_g512", false},  // spilled on AMD so
        {ln[2], 16384, 2, "opk_ln_fwd_fixed_bf16_g512", false},
        {ln[0], 8192, 4, "opk_ln_fwd_fixed_f32_g256", false},
    };
    for (const Case& c : cases) {
        INFO(c.kernel);
        RowPlan p{};
        const char* k = opkit_gpu::fixed_group_plan(d, kRows, c.n, c.element_size, c.table, {&x, &y}, &p);
        REQUIRE(k != nullptr);
        CHECK(std::string(k) == c.kernel);
        if (c.block_row)
            CHECK(p.grid == size_t(kRows));
        else
            CHECK(p.grid < size_t(kRows));
    }
    // The device bodies (softmax_forward_exact, rms_forward_exact, ln_forward_exact) ask the
    // same functions with (sizeof(T), G), G being the table's threads.
    STATIC_REQUIRE(opk::softmax_fwd_block_row(2, 256));
    STATIC_REQUIRE_FALSE(opk::softmax_fwd_block_row(2, 512));
    STATIC_REQUIRE_FALSE(opk::softmax_fwd_block_row(4, 512));
    STATIC_REQUIRE(opk::rms_fwd_block_row(2, 512));
    STATIC_REQUIRE_FALSE(opk::rms_fwd_block_row(4, 512));
    STATIC_REQUIRE(opk::ln_fwd_block_row(4, 512));
    STATIC_REQUIRE_FALSE(opk::ln_fwd_block_row(2, 512));
}

// The kernel parameters' order that was measured faster (kernel_params.h, above RowsView;
// bench/results/2026-12-02-s44/r4): what a flat-row kernel reads of a view in its first 24
// bytes, and each Args struct's scalars before its views. A reorder must be measured again.
TEST_CASE("gpu host: the kernel parameters keep what the row kernels read first", "[plans]") {
    STATIC_REQUIRE(offsetof(opk::RowsView, data) == 0);
    STATIC_REQUIRE(offsetof(opk::RowsView, nd) == 8);
    STATIC_REQUIRE(offsetof(opk::RowsView, vec) == 12);
    STATIC_REQUIRE(offsetof(opk::RowsView, stride) == 16);
    STATIC_REQUIRE(offsetof(opk::RowsView, size) > offsetof(opk::RowsView, stride));
    STATIC_REQUIRE(offsetof(opk::SoftmaxArgs, a) > offsetof(opk::SoftmaxArgs, exact));
    STATIC_REQUIRE(offsetof(opk::SoftmaxArgs, out) < offsetof(opk::SoftmaxArgs, b));  // b: backward only
    STATIC_REQUIRE(offsetof(opk::NormArgs, x) > offsetof(opk::NormArgs, stash_slots));
    STATIC_REQUIRE(offsetof(opk::NormArgs, x) > offsetof(opk::NormArgs, partial));
    STATIC_REQUIRE(offsetof(opk::ElementwiseArgs, t) > offsetof(opk::ElementwiseArgs, alpha));
    STATIC_REQUIRE(offsetof(opk::CrossEntropyArgs, logits) > offsetof(opk::CrossEntropyArgs, dloss_per_row));
    STATIC_REQUIRE(offsetof(opk::EmbeddingArgs, ids) > offsetof(opk::EmbeddingArgs, padding_idx));
}
