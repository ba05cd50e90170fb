// Every op, forward and backward, on the cuda vendor against opkit's CPU defaults: all
// dtypes, odd sizes, strided and permuted views, misaligned byte offsets, in place.
// Both sides get byte-identical inputs (one host storage, uploaded); outputs start
// poisoned (NaN) and must match within the dtype's tolerance, padding untouched.
#include "cuda_test_support.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <tuple>

using namespace cudatest;

namespace {

using TP = std::unique_ptr<Tensor>;
TP make(opkit_dtype d, std::vector<int64_t> shape, Layout l = {}) {
    return std::make_unique<Tensor>(d, std::move(shape), l);
}

const opkit_dtype kFloats[] = {f32(), f16(), bf16()};

// Row-op cases: the shape of x and the layout of every tensor shaped like it.
struct RowCase {
    std::vector<int64_t> shape;
    Layout layout;
};
const std::vector<RowCase>& row_cases() {
    static const std::vector<RowCase> cases = {
        {{1, 1}, {}},
        {{3, 3}, {}},
        {{5, 127}, {}},
        {{130, 127}, {}},
        {{3, 4097}, {}},
        {{1030, 8}, {}},
        {{2, 3, 127}, {{}, 3, 1}},         // padded rows, misaligned start
        {{3, 2, 4097}, {{1, 0, 2}, 0, 0}},  // permuted outer dimensions
        {{4, 64}, {{}, 8, 0}},              // padded rows that stay 16-byte aligned
        {{6, 1000}, {{}, 0, 1}},            // dense rows, misaligned by one element
        {{3, 1025}, {}},                    // launch-plan boundaries: warp -> block per row,
        {{2, 16385}, {}},                   // block -> streaming (4-byte types, backward),
        {{2, 32769}, {}},                   // block -> streaming (2-byte types)
        {{3000, 520}, {}},                  // more rows than resident row groups
        // Exact rows (kExactPath: 4 whole packs per thread of a block, aligned), which the
        // forward kernels run through their lean body: 2048 and 3072 elements in every
        // dtype, dense, padded but aligned, and with more rows than the grid; then the same
        // row misaligned, which is not exact.
        {{3, 2048}, {}},
        {{5, 2048}, {{}, 8, 0}},
        {{300, 3072}, {}},
        {{3, 2048}, {{}, 3, 1}},
        // (The norm backwards' kernels named below are those of devices without cluster
        // launch, and of any device with OPKIT_CUDA_CLUSTER_KERNELS=0: on sm_90+ the stash
        // kernels take every whole aligned row of 257 to 2048 packs, fp32 to 1024; the case
        // "norm backwards through the stash kernels" is theirs.)
        // Both norm backwards in 2-byte types: rows of 8193 to 16384 elements take the
        // four-pack kernels (opk_{ln,rms}_bwd_long_*, kRowConfigsNormBwd16Long), which read
        // the weight from shared memory: just past the one- and two-pack limits, exactly
        // 512 threads of four packs, and misaligned.
        {{3, 8200}, {}},
        {{3, 8201}, {}},  // a partial last pack: the weight row's copy loads it by element
        {{5, 16384}, {}},  // also the 2-byte softmax backward one block a row (opk_softmax_bwd_block_row_*)
        {{2, 12000}, {{}, 3, 1}},
        // rms_norm backward in 2-byte types: exact rows from 4096 elements take the
        // four-pack kernel with its exact-row body too (kRmsBwd16ExactMinPacks): more rows
        // than the one-wave grid of the dweight sums (528 row groups on 132 SMs), padded but
        // aligned, and the same width misaligned (not exact).
        {{1500, 4096}, {}},
        {{5, 8192}, {{}, 8, 0}},
        {{3, 4096}, {{}, 0, 1}},
        // layer_norm backward in fp32 with its sums in shared memory: 2 x 6100 floats
        // (47.7 KiB) plus the static reduction slots pass the 48 KiB a launch may have
        // without asking for more (kStaticSharedReserve).
        {{2, 6100}, {}},
        // The fp32 forwards: rows exact for eight packs a thread of 256 to 512 threads take
        // the *_fwd_wide_f32 kernels (kRowConfigsFwdWide) unless a fixed-group kernel
        // (FixedKernel) has them (8192, 16384): 12288 (384 threads) dense and with permuted
        // outer dimensions (a two-dimension row offset in the exact body); 8192 permuted (a
        // fixed group in every dtype); then 16384 misaligned, which is not exact.
        {{3, 12288}, {}},
        {{3, 2, 12288}, {{1, 0, 2}, 0, 0}},
        {{3, 2, 8192}, {{1, 0, 2}, 0, 0}},
        {{2, 16384}, {{}, 0, 1}},
        // The fixed-group forwards (FixedKernel: rows of 4096, 8192 and 16384 in every dtype,
        // fp32 4096 at four packs a thread, rms_norm's 8192 too; whole aligned rows) are the
        // 4096, 8192 and 16384 rows above;
        // the softmax backward's exact kernels (kRowConfigsBwdExact) every exact width from
        // 2048 above. Here both with permuted outer dimensions at 16384 (2-byte: the
        // eight-pack backward, kRowConfigsBwdWide16), and a 2-byte row of 24576 (eight packs
        // of 384 threads backward; forward not fixed: config 1's exact body). The fp32 norm
        // backwards with register sums (kRowConfigsNormBwdRegs32) take the exact rows of 4096
        // (1500 rows: several rows a block) and 8192 (padded, permuted); rows of 12288
        // floats are not exact for them (768 threads).
        {{3, 2, 16384}, {{1, 0, 2}, 0, 0}},
        {{2, 24576}, {}},
        // The softmax backward's 2-byte rows of exactly 512 packs (4096 elements) on views of
        // at most one outer dimension: one pack a thread (opk_softmax_bwd_one_pack_*,
        // kBwdOnePackThreads). Dense (1500 rows above), padded but aligned here (a row
        // stride of 4104); with permuted outer dimensions they take the exact kernel, and
        // misaligned (above) the general one.
        {{5, 4096}, {{}, 8, 0}},
        {{3, 2, 4096}, {{1, 0, 2}, 0, 0}},
    };
    return cases;
}

int64_t rows_of(const std::vector<int64_t>& s) {
    int64_t r = 1;
    for (size_t i = 0; i + 1 < s.size(); ++i) r *= s[i];
    return r;
}

// The view of a tensor on one side; `gpu` selects the device copy.
opkit_tensor* on(bool gpu, Tensor& t) { return gpu ? t.gpu() : t.cpu(); }
opkit_tensor* on(bool gpu, const TP& t) { return t ? on(gpu, *t) : nullptr; }

template <class F>
void both(F&& call) {
    REQUIRE_OK(call(false));
    REQUIRE_OK(call(true));
}

std::string label(const char* op, opkit_dtype d, const RowCase& c) {
    return std::string(op) + " " + dtype_name(d) + " " + shape_str(c.shape) + " pad " +
           std::to_string(c.layout.pad) + " offset " + std::to_string(c.layout.offset) +
           (c.layout.perm.empty() ? "" : " permuted");
}

// The backwards on both sides from inputs already uploaded; the outputs (dx, and dweight
// and dbias where given) start poisoned.
void check_rms_norm_backward(const TP& dy, const TP& x, const TP& w, const TP& rstd, float offset, const TP& dx,
                             const TP& dw, const std::string& what) {
    for (const TP* t : {&dx, &dw})
        if (*t) {
            (*t)->poison();
            (*t)->upload();
        }
    both([&](bool g) {
        return opkit_rms_norm_backward(on(g, dy), on(g, x), on(g, w), on(g, rstd), offset, on(g, dx), on(g, dw),
                                       nullptr);
    });
    CHECK(same(*dx, "rms_norm_backward", "dx", what + " dx", 1.0));
    if (dw) CHECK(same(*dw, "rms_norm_backward", "dweight", what + " dweight"));
}

// x, w and b hold their values on the host; y, mean and rstd are poisoned on both sides.
void check_layer_norm_forward(const TP& x, const TP& w, const TP& b, const TP& y, const TP& mean, const TP& rstd,
                              const std::string& what) {
    for (Tensor* t : {y.get(), mean.get(), rstd.get()}) t->poison();
    for (Tensor* t : {x.get(), y.get(), mean.get(), rstd.get()}) t->upload();
    if (w) w->upload();
    if (b) b->upload();
    both([&](bool g) {
        return opkit_layer_norm_forward(on(g, x), on(g, w), on(g, b), 1e-5f, on(g, y), on(g, mean), on(g, rstd),
                                        nullptr);
    });
    CHECK(same(*y, "layer_norm_forward", "y", what + " y"));
    CHECK(same(*mean, "layer_norm_forward", "mean", what + " mean", 1.0));
    CHECK(same(*rstd, "layer_norm_forward", "rstd", what + " rstd"));
}

void check_layer_norm_backward(const TP& dy, const TP& x, const TP& w, const TP& mean, const TP& rstd, const TP& dx,
                               const TP& dw, const TP& db, const std::string& what) {
    for (const TP* t : {&dx, &dw, &db})
        if (*t) {
            (*t)->poison();
            (*t)->upload();
        }
    both([&](bool g) {
        return opkit_layer_norm_backward(on(g, dy), on(g, x), on(g, w), on(g, mean), on(g, rstd), on(g, dx),
                                         on(g, dw), on(g, db), nullptr);
    });
    CHECK(same(*dx, "layer_norm_backward", "dx", what + " dx", 1.0));
    if (dw) CHECK(same(*dw, "layer_norm_backward", "dweight", what + " dweight"));
    if (db) CHECK(same(*db, "layer_norm_backward", "dbias", what + " dbias"));
}

}  // namespace

TEST_CASE("ops: rms_norm forward and backward match the CPU", "[gpu][ops]") {
    if (!cuda_or_skip()) return;
    uint64_t seed = 1;
    for (opkit_dtype d : kFloats)
        for (const RowCase& c : row_cases())
            // 0: weight, 1: no weight, 2: Gemma offset, in place (forward only), 3: Gemma offset
            for (int variant = 0; variant < 4; ++variant) {
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
                const float offset = variant >= 2 ? 1.0f : 0.0f;
                const bool in_place = variant == 2;
                for (Tensor* t : {x.get(), y.get(), rstd.get()}) t->upload();
                if (w) w->upload();
                Tensor& out = in_place ? *x : *y;
                both([&](bool g) {
                    return opkit_rms_norm_forward(on(g, x), on(g, w), 1e-5f, offset, on(g, out), on(g, rstd),
                                                  nullptr);
                });
                CHECK(same(out, "rms_norm_forward", "y", what + " y"));
                CHECK(same(*rstd, "rms_norm_forward", "rstd", what + " rstd"));

                // Backward from the reference forward's rstd (uploaded to both sides).
                if (in_place) continue;
                TP dy = make(d, c.shape, c.layout), dx = make(d, c.shape, c.layout);
                TP dw = w ? make(d, {n}) : nullptr;
                dy->random(-1, 1, seed++);
                for (Tensor* t : {dy.get(), rstd.get()}) t->upload();
                check_rms_norm_backward(dy, x, w, rstd, offset, dx, dw, what);
            }
}

TEST_CASE("ops: layer_norm forward and backward match the CPU", "[gpu][ops]") {
    if (!cuda_or_skip()) return;
    uint64_t seed = 100;
    for (opkit_dtype d : kFloats)
        for (const RowCase& c : row_cases())
            for (int variant = 0; variant < 3; ++variant) {  // 0: weight+bias, 1: none, 2: bias only
                const std::string what = label("layer_norm", d, c) + " variant " + std::to_string(variant);
                INFO(what);
                const int64_t n = c.shape.back(), rows = rows_of(c.shape);
                TP x = make(d, c.shape, c.layout), y = make(d, c.shape, c.layout);
                TP w = variant == 0 ? make(d, {n}) : nullptr;
                TP b = variant != 1 ? make(d, {n}) : nullptr;
                TP mean = make(f32(), {rows}), rstd = make(f32(), {rows});
                x->random(-2, 3, seed++);  // a mean away from zero
                if (w) w->random(-1.5f, 1.5f, seed++);
                if (b) b->random(-1, 1, seed++);
                check_layer_norm_forward(x, w, b, y, mean, rstd, what);

                TP dy = make(d, c.shape, c.layout), dx = make(d, c.shape, c.layout);
                TP dw = w ? make(d, {n}) : nullptr;
                TP db = b ? make(d, {n}) : nullptr;
                dy->random(-1, 1, seed++);
                for (Tensor* t : {dy.get(), mean.get(), rstd.get()}) t->upload();
                check_layer_norm_backward(dy, x, w, mean, rstd, dx, dw, db, what);
            }
}

TEST_CASE("ops: layer_norm forward, 2-byte rows of 8192 and 16384", "[gpu][ops]") {
    if (!cuda_or_skip()) return;
    // f16 and bf16 rows of exactly 8192 and 16384 elements: the fixed-group kernels (f16
    // rows went through a ring in shared memory, opk_ln_fwd_stash_f16_*, until the
    // thirty-first session). 600 rows: more than twice the blocks that fit at once, so the
    // blocks step over rows; 3: fewer rows than blocks. Variants: weight and bias, neither,
    // bias only, a misaligned weight and bias (the general kernels), rows 8 elements apart
    // past their end (16 bytes: still aligned rows; the padding must stay untouched).
    uint64_t seed = 1300;
    for (opkit_dtype d : {f16(), bf16()})
        for (int64_t n : {int64_t(8192), int64_t(16384)})
            for (int64_t rows : {int64_t(600), int64_t(3)})
                for (int variant = 0; variant < (rows == 600 ? 5 : 1); ++variant) {
                    const std::vector<int64_t> shape = {rows, n};
                    const std::string what = "layer_norm forward " + std::string(dtype_name(d)) + " " +
                                             shape_str(shape) + " variant " + std::to_string(variant);
                    INFO(what);
                    const Layout params{{}, 0, variant == 3 ? 1 : 0}, rows_layout{{}, variant == 4 ? 8 : 0, 0};
                    TP x = make(d, shape, rows_layout), y = make(d, shape, rows_layout);
                    TP w = variant == 0 || variant >= 3 ? make(d, {n}, params) : nullptr;
                    TP b = variant != 1 ? make(d, {n}, params) : nullptr;
                    TP mean = make(f32(), {rows}), rstd = make(f32(), {rows});
                    x->random(-2, 3, seed++);  // a mean away from zero
                    if (w) w->random(-1.5f, 1.5f, seed++);
                    if (b) b->random(-1, 1, seed++);
                    check_layer_norm_forward(x, w, b, y, mean, rstd, what);
                }
}

// One case of the norm backwards' stash tests: rms_norm's and layer_norm's backward of
// rows x n of dtype d (rstd and mean from the CPU's forward), against the CPU. Variants: 0
// with a weight, 1 without one, 2 rms_norm with a Gemma offset and no dweight / layer_norm
// without dbias, 3 a misaligned weight, 4 as 0 with x, dy and dx rows 16 bytes apart past
// their end (still aligned rows, so the same kernels; the padding must stay untouched).
static void check_norm_backwards_stash(opkit_dtype d, int64_t rows, int64_t n, int variant, uint64_t& seed) {
    const std::vector<int64_t> shape = {rows, n};
    const bool misaligned_weight = variant == 3;
    const Layout rows_layout{{}, variant == 4 ? 16 / (d.bits / 8) : 0, 0};
    TP x = make(d, shape, rows_layout), dy = make(d, shape, rows_layout);
    TP dx = make(d, shape, rows_layout);
    TP w = variant == 1 ? nullptr : make(d, {n}, Layout{{}, 0, misaligned_weight ? 1 : 0});
    TP y = make(d, shape, rows_layout), rstd = make(f32(), {rows}), mean = make(f32(), {rows});
    x->random(-2, 3, seed++);  // a mean away from zero
    dy->random(-1, 1, seed++);
    if (w) w->random(-1.5f, 1.5f, seed++);
    for (Tensor* t : {x.get(), dy.get()}) t->upload();
    if (w) w->upload();
    {
        const std::string what = "rms_norm stash " + std::string(dtype_name(d)) + " " +
                                 shape_str(shape) + " variant " + std::to_string(variant);
        INFO(what);
        const float offset = variant == 2 ? 1.0f : 0.0f;
        // rstd from the CPU's forward, on both sides.
        REQUIRE_OK(opkit_rms_norm_forward(x->cpu(), on(false, w), 1e-5f, offset, y->cpu(),
                                          rstd->cpu(), nullptr));
        rstd->upload();
        TP dw = w && variant != 2 ? make(d, {n}) : nullptr;
        check_rms_norm_backward(dy, x, w, rstd, offset, dx, dw, what);
    }
    {
        const std::string what = "layer_norm stash " + std::string(dtype_name(d)) + " " +
                                 shape_str(shape) + " variant " + std::to_string(variant);
        INFO(what);
        REQUIRE_OK(opkit_layer_norm_forward(x->cpu(), on(false, w), nullptr, 1e-5f, y->cpu(),
                                            mean->cpu(), rstd->cpu(), nullptr));
        mean->upload();
        rstd->upload();
        TP dw = w ? make(d, {n}) : nullptr;
        TP db = variant != 2 ? make(d, {n}) : nullptr;
        check_layer_norm_backward(dy, x, w, mean, rstd, dx, dw, db, what);
    }
}

TEST_CASE("ops: norm backwards through the stash kernels (rows in shared memory)", "[gpu][ops]") {
    if (!cuda_or_skip()) return;
    // On a device with thread-block clusters (sm_90+), both backwards of whole aligned rows
    // of 257 to 2048 packs (fp32 layer_norm: to 1024) run opk_{rms,ln}_bwd_stash_<dtype>_s<i>[_exact]
    // (kNormStashConfigs): 256 threads of two packs (s0), 512 of two (s1), 512 of four (s2),
    // _exact where the row is exactly that; layer_norm's 2-byte ones are named _s<i>_k2 and run
    // in pairs of blocks that add their column sums (norm_stash_pairs; with 3 rows one block of
    // the second pair has none). Per dtype the widths below are, in that order,
    // s0 exact, s0 with the fewest packs it takes (257), s1 exact, s1 guarded, s2 exact (2-byte
    // layer_norm's dbias and rms_norm's dweight summed in shared memory there:
    // norm_stash_shared_sums), s2 guarded (fp32 layer_norm: the last two take the register-sum kernels,
    // kRowConfigsNormBwdRegs32; rms_norm's fp32 s2 kernels, kRmsStashMaxPacks32);
    // fp32 then has two more, rows split over a cluster of two blocks
    // (opk_{rms,ln}_bwd_stash_f32_k2[_exact], kNormStashSplit): exact (16384) and guarded
    // (12288: 1536 of a block's 2048 packs).
    // 600 rows: more than twice the blocks that fit at once (the grid; 264 of s0 on 132
    // SMs), so some blocks take a third row into their first slot again; 3 rows (variant 0
    // only): fewer rows than blocks. A last case takes 16 rows a block (4224 rows of s0
    // exact), so every slot of every ring is refilled many times.
    // Variants: rms_norm with a weight, without one, with a Gemma offset and no dweight,
    // with a misaligned weight; layer_norm with weight and bias, without a weight, with a
    // weight and no dbias, with a misaligned weight; and for each dtype's first width and
    // fp32's split widths a fifth, as the first with x, dy and dx rows 16 bytes apart past
    // their end (still aligned rows, so the same kernels; the padding must stay untouched).
    uint64_t seed = 1200;
    const std::vector<int64_t> widths16 = {4096, 2056, 8192, 5120, 16384, 12288, 4096};
    const std::vector<int64_t> widths32 = {2048, 1028, 4096, 3072, 8192, 6144, 16384, 12288, 2048};
    for (opkit_dtype d : kFloats) {
        const std::vector<int64_t>& widths = d.bits == 32 ? widths32 : widths16;
        for (size_t i = 0; i < widths.size(); ++i)
            for (int64_t rows : i + 1 < widths.size() ? std::vector<int64_t>{600, 3} : std::vector<int64_t>{4224})
                for (int variant = 0;
                     variant < (rows != 600 ? 1 : i == 0 || (d.bits == 32 && widths[i] >= 12288) ? 5 : 4);
                     ++variant) {
                    check_norm_backwards_stash(d, rows, widths[i], variant, seed);
                }
    }
}

TEST_CASE("ops: rms_norm backward through the bulk-ring stash kernel", "[gpu][ops]") {
    if (!cuda_or_skip()) return;
    // On sm_90+, rms_norm's fp32 exact rows of 8192 run opk_rms_bwd_stash_f32_s2_exact, whose
    // ring the Tensor Memory Accelerator fills (norm_stash_bulk, kernel_params.h): thread 0
    // asks for a row's x and dy whole and the block waits on each slot's mbarriers. Its own
    // case, so that scripts/gpu-check.sh can run racecheck over it alone (the stash case
    // above also runs the cluster kernels, which racecheck must instrument). 600 rows: the
    // two slots of each of the 132 blocks filled two and three times, in every variant
    // (weight, none, offset, misaligned weight, padded rows); 3 (variant 0): blocks with no
    // row; 4224 (variant 0): 32 rows a block, every slot refilled many times. layer_norm's
    // rows of 8192 beside them take the register-sum kernels.
    uint64_t seed = 1400;
    for (int64_t rows : {int64_t(600), int64_t(3), int64_t(4224)})
        for (int variant = 0; variant < (rows == 600 ? 5 : 1); ++variant)
            check_norm_backwards_stash(f32(), rows, 8192, variant, seed);
}

TEST_CASE("ops: softmax forward and backward match the CPU", "[gpu][ops]") {
    if (!cuda_or_skip()) return;
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
                both([&](bool g) { return opkit_softmax_forward(on(g, x), on(g, out), nullptr); });
                CHECK(same(out, "softmax_forward", "y", what + " y"));

                TP dy = make(d, c.shape, c.layout), dx = make(d, c.shape, c.layout);
                dy->random(-1, 1, seed++);
                dx->poison();
                out.upload();  // the reference y as input on both sides
                dy->upload();
                dx->upload();
                Tensor& grad = in_place ? *dy : *dx;  // dx may alias dy
                both([&](bool g) { return opkit_softmax_backward(on(g, dy), on(g, out), on(g, grad), nullptr); });
                CHECK(same(grad, "softmax_backward", "dx", what + " dx"));
            }
}

// The norm forwards and softmax launch up to kRowGridWavesBalanced waves of blocks
// (ops_common.h): 2 M rows of 8 are more than such a grid has row groups (1.08 M rows on
// 132 SMs: 128-thread blocks of four rows), so their grid-stride row loops take a second
// lap. (The backwards with dweight sums launch one wave, so the row cases above with more
// rows than that take several laps there; their sums over 2 M rows are not what this checks.)
TEST_CASE("ops: row kernels with more rows than their grid match the CPU", "[gpu][ops]") {
    if (!cuda_or_skip()) return;
    uint64_t seed = 250;
    const std::vector<int64_t> shape = {2000000, 8};
    for (opkit_dtype d : {f32(), bf16()}) {
        const std::string what = std::string(dtype_name(d)) + " " + shape_str(shape);
        INFO(what);
        TP x = make(d, shape), y = make(d, shape), w = make(d, {8}), b = make(d, {8});
        TP mean = make(f32(), {shape[0]}), rstd = make(f32(), {shape[0]});
        x->random(-2, 3, seed++);
        w->random(-1.5f, 1.5f, seed++);
        b->random(-1, 1, seed++);
        for (Tensor* t : {y.get(), mean.get(), rstd.get()}) t->poison();
        for (Tensor* t : {x.get(), y.get(), w.get(), b.get(), mean.get(), rstd.get()}) t->upload();
        both([&](bool g) { return opkit_rms_norm_forward(on(g, x), on(g, w), 1e-5f, 0.0f, on(g, y), on(g, rstd), nullptr); });
        CHECK(same(*y, "rms_norm_forward", "y", what + " rms_norm y"));
        CHECK(same(*rstd, "rms_norm_forward", "rstd", what + " rms_norm rstd"));
        for (Tensor* t : {y.get(), rstd.get()}) {
            t->poison();
            t->upload();
        }
        both([&](bool g) {
            return opkit_layer_norm_forward(on(g, x), on(g, w), on(g, b), 1e-5f, on(g, y), on(g, mean), on(g, rstd),
                                            nullptr);
        });
        CHECK(same(*y, "layer_norm_forward", "y", what + " layer_norm y"));
        CHECK(same(*mean, "layer_norm_forward", "mean", what + " layer_norm mean", 1.0));
        CHECK(same(*rstd, "layer_norm_forward", "rstd", what + " layer_norm rstd"));
        y->poison();
        y->upload();
        both([&](bool g) { return opkit_softmax_forward(on(g, x), on(g, y), nullptr); });
        CHECK(same(*y, "softmax_forward", "y", what + " softmax y"));
        TP dy = make(d, shape), dx = make(d, shape);
        dy->random(-1, 1, seed++);
        dx->poison();
        y->upload();  // the reference y as input on both sides
        dy->upload();
        dx->upload();
        both([&](bool g) { return opkit_softmax_backward(on(g, dy), on(g, y), on(g, dx), nullptr); });
        CHECK(same(*dx, "softmax_backward", "dx", what + " softmax dx"));
    }
}

// Beyond the row cases, dense tensors whose start is 8 bytes past a 16-byte boundary in
// one dtype family and 4 or 16 in the other: the dense backwards that move 8 bytes a thread
// (kernel_params.h's EwDenseAccess) take their straight-line kernel only where every view is
// 8-byte aligned, the general kernel otherwise; 5 x 301 elements end in a partial access.
const std::vector<RowCase>& gated_cases() {
    static const std::vector<RowCase> cases = [] {
        std::vector<RowCase> c = row_cases();
        c.push_back({{5, 301}, {{}, 0, 2}});  // fp32: 8 bytes off; 2-byte types: 4
        c.push_back({{5, 301}, {{}, 0, 4}});  // 2-byte types: 8 bytes off; fp32: 16
        return c;
    }();
    return cases;
}

TEST_CASE("ops: swiglu and geglu forward and backward match the CPU", "[gpu][ops]") {
    if (!cuda_or_skip()) return;
    uint64_t seed = 300;
    for (opkit_dtype d : kFloats)
        for (const RowCase& c : gated_cases())
            for (int act = 0; act < 3; ++act) {  // swiglu, geglu erf, geglu tanh
                const char* name = act == 0 ? "swiglu" : act == 1 ? "geglu(erf)" : "geglu(tanh)";
                const std::string what = label(name, d, c);
                INFO(what);
                TP a = make(d, c.shape, c.layout), b = make(d, c.shape, c.layout), y = make(d, c.shape);
                a->random(-4, 4, seed++);
                b->random(-2, 2, seed++);
                y->poison();
                for (Tensor* t : {a.get(), b.get(), y.get()}) t->upload();
                const int32_t approx = act == 2 ? OPKIT_GELU_TANH : OPKIT_GELU_NONE;
                both([&](bool g) {
                    return act == 0 ? opkit_swiglu_forward(on(g, a), on(g, b), on(g, y), nullptr)
                                    : opkit_geglu_forward(on(g, a), on(g, b), approx, on(g, y), nullptr);
                });
                CHECK(same(*y, act == 0 ? "swiglu_forward" : "geglu_forward", "y", what + " y"));

                // Backward in place over a and b (allowed aliases).
                TP dy = make(d, c.shape, c.layout);
                dy->random(-1, 1, seed++);
                dy->upload();
                both([&](bool g) {
                    return act == 0 ? opkit_swiglu_backward(on(g, dy), on(g, a), on(g, b), on(g, a), on(g, b), nullptr)
                                    : opkit_geglu_backward(on(g, dy), on(g, a), on(g, b), approx, on(g, a), on(g, b),
                                                           nullptr);
                });
                CHECK(same(*a, act == 0 ? "swiglu_backward" : "geglu_backward", "da", what + " da"));
                CHECK(same(*b, act == 0 ? "swiglu_backward" : "geglu_backward", "db", what + " db"));
            }
}

TEST_CASE("ops: axpy matches the CPU", "[gpu][ops]") {
    if (!cuda_or_skip()) return;
    uint64_t seed = 400;
    for (opkit_dtype d : kFloats)
        for (const RowCase& c : row_cases()) {
            const std::string what = label("axpy", d, c);
            INFO(what);
            TP x = make(d, c.shape), y = make(d, c.shape, c.layout);
            x->random(-1, 1, seed++);
            y->random(-1, 1, seed++);
            x->upload();
            y->upload();
            both([&](bool g) { return opkit_axpy(0.75f, on(g, x), on(g, y), nullptr); });
            CHECK(same(*y, "axpy", "y", what));
        }
}

TEST_CASE("ops: rope forward and backward match the CPU", "[gpu][ops]") {
    if (!cuda_or_skip()) return;
    uint64_t seed = 500;
    struct RopeCase {
        int64_t B, T, H, D;
        bool batched_angles, bhtd, in_place;
        int64_t offset;
    };
    const RopeCase cases[] = {
        {1, 1, 1, 2, false, false, false, 0},  {2, 3, 4, 6, false, false, false, 0},
        {2, 5, 3, 128, false, true, false, 0}, {2, 7, 2, 64, true, false, true, 0},
        {1, 4, 3, 130, true, true, false, 1},  {3, 17, 8, 16, false, false, true, 1},
        // Thread mapping: 4 heads per thread (H = 32, 40), heads past the last batch of 4
        // (H = 6, 13), halves wider than 64 packs (D = 2048), [B,H,T,D] and in place.
        {2, 9, 32, 128, false, false, false, 0}, {1, 5, 6, 128, true, true, false, 0},
        {2, 3, 13, 256, false, false, true, 0},  {1, 3, 5, 2048, false, true, false, 0},
        {1, 2, 40, 64, true, false, false, 1},   {2, 33, 32, 128, false, true, true, 0},
        // Dense [B,T,H,D], not in place: [B,T,D] angles with one pack a half (D = 16 in the
        // 2-byte types), and six packs a half (D = 96).
        {3, 11, 5, 16, true, false, false, 0},   {2, 6, 7, 96, false, false, false, 0},
        // Past the 2-byte kernels' L2 prefetch distance (rope.cu, prefetch_position_ahead:
        // 4 MB of x ahead): 600 positions of 32 heads of 128 (8 KB a position in 2-byte
        // types, 512 ahead) and 2100 of 8 (2 KB, 2048 ahead), dense [B,T,H,D].
        {1, 600, 32, 128, false, false, false, 0}, {2, 1050, 8, 128, true, false, false, 0},
    };
    for (opkit_dtype d : kFloats)
        for (const RopeCase& c : cases) {
            const std::string what = std::string("rope ") + dtype_name(d) + " " +
                                     shape_str({c.B, c.T, c.H, c.D}) + (c.batched_angles ? " [B,T,D] angles" : "") +
                                     (c.bhtd ? " [B,H,T,D] storage" : "") + (c.in_place ? " in place" : "") +
                                     (c.offset ? " misaligned" : "");
            INFO(what);
            Layout xl{c.bhtd ? std::vector<int>{0, 2, 1, 3} : std::vector<int>{}, 0, c.offset};
            TP x = make(d, {c.B, c.T, c.H, c.D}, xl), y = make(d, {c.B, c.T, c.H, c.D}, xl);
            std::vector<int64_t> ashape = c.batched_angles ? std::vector<int64_t>{c.B, c.T, c.D}
                                                           : std::vector<int64_t>{c.T, c.D};
            TP cs = make(d, ashape), sn = make(d, ashape);
            x->random(-2, 2, seed++);
            cs->random(-1, 1, seed++);
            sn->random(-1, 1, seed++);
            y->poison();
            for (Tensor* t : {x.get(), y.get(), cs.get(), sn.get()}) t->upload();
            Tensor& out = c.in_place ? *x : *y;
            both([&](bool g) { return opkit_rope_forward(on(g, x), on(g, cs), on(g, sn), on(g, out), nullptr); });
            CHECK(same(out, "rope_forward", "y", what + " y"));
            TP dy = make(d, {c.B, c.T, c.H, c.D}, xl), dx = make(d, {c.B, c.T, c.H, c.D});
            dy->random(-1, 1, seed++);
            dx->poison();
            dy->upload();
            dx->upload();
            Tensor& grad = c.in_place ? *dy : *dx;
            both([&](bool g) { return opkit_rope_backward(on(g, dy), on(g, cs), on(g, sn), on(g, grad), nullptr); });
            CHECK(same(grad, "rope_backward", "dx", what + " dx"));
        }
}

// rope on q and k in one launch (opk_rope_qk: q's blocks, then k's, each part planned as
// its own opk_rope launch): the same results as the CPU default, which is two rope calls.
TEST_CASE("ops: rope on q and k in one call matches the CPU", "[gpu][ops]") {
    if (!cuda_or_skip()) return;
    uint64_t seed = 550;
    struct QkCase {
        int64_t B, T, Hq, Hk, D;
        bool batched_angles, q_bhtd, in_place;
        int64_t k_offset;  // k misaligned: its part takes the element path, q's the packs
    };
    const QkCase cases[] = {
        // Hq != Hk with the two parts' blocks of different widths (heads past a batch of
        // four in k), [B,H,T,D] q storage, in place, a misaligned k beside an aligned q.
        {2, 9, 32, 8, 128, false, false, false, 0}, {1, 5, 6, 13, 64, true, true, false, 0},
        {2, 3, 4, 1, 16, false, false, true, 1},    {1, 2, 1, 40, 96, true, false, true, 0},
        {3, 7, 12, 3, 130, false, true, false, 1},  {1, 1, 1, 1, 2, false, false, false, 0},
        // No k heads, then no q heads: one part has no blocks.
        {2, 4, 8, 0, 64, false, false, false, 0},   {2, 4, 0, 8, 64, false, false, false, 0},
        // Many positions (more blocks than the grid's cap of each part), past the 2-byte
        // L2 prefetch distance: the benchmark's 32 + 8 heads of 128.
        {2, 1050, 32, 8, 128, false, false, false, 0},
    };
    for (opkit_dtype d : kFloats)
        for (const QkCase& c : cases) {
            const std::string what = std::string("rope_qk ") + dtype_name(d) + " q " +
                                     shape_str({c.B, c.T, c.Hq, c.D}) + " k " + shape_str({c.B, c.T, c.Hk, c.D}) +
                                     (c.batched_angles ? " [B,T,D] angles" : "") + (c.q_bhtd ? " q [B,H,T,D]" : "") +
                                     (c.in_place ? " in place" : "") + (c.k_offset ? " k misaligned" : "");
            INFO(what);
            const Layout ql{c.q_bhtd ? std::vector<int>{0, 2, 1, 3} : std::vector<int>{}, 0, 0};
            const Layout kl{{}, 0, c.k_offset};
            const std::vector<int64_t> qs{c.B, c.T, c.Hq, c.D}, ks{c.B, c.T, c.Hk, c.D};
            TP q = make(d, qs, ql), k = make(d, ks, kl), qo = make(d, qs), ko = make(d, ks, kl);
            std::vector<int64_t> ashape = c.batched_angles ? std::vector<int64_t>{c.B, c.T, c.D}
                                                           : std::vector<int64_t>{c.T, c.D};
            TP cs = make(d, ashape), sn = make(d, ashape);
            q->random(-2, 2, seed++);
            k->random(-2, 2, seed++);
            cs->random(-1, 1, seed++);
            sn->random(-1, 1, seed++);
            qo->poison();
            ko->poison();
            for (Tensor* t : {q.get(), k.get(), qo.get(), ko.get(), cs.get(), sn.get()}) t->upload();
            Tensor& q_out = c.in_place ? *q : *qo;
            Tensor& k_out = c.in_place ? *k : *ko;
            both([&](bool g) {
                return opkit_rope_qk_forward(on(g, q), on(g, k), on(g, cs), on(g, sn), on(g, q_out), on(g, k_out),
                                             nullptr);
            });
            // The tolerances of rope_forward's y: the same arithmetic element for element.
            CHECK(same(q_out, "rope_forward", "y", what + " q_out"));
            CHECK(same(k_out, "rope_forward", "y", what + " k_out"));
            TP dq_out = make(d, qs, ql), dk_out = make(d, ks, kl), dq = make(d, qs), dk = make(d, ks, kl);
            dq_out->random(-1, 1, seed++);
            dk_out->random(-1, 1, seed++);
            dq->poison();
            dk->poison();
            for (Tensor* t : {dq_out.get(), dk_out.get(), dq.get(), dk.get()}) t->upload();
            Tensor& dq_in = c.in_place ? *dq_out : *dq;
            Tensor& dk_in = c.in_place ? *dk_out : *dk;
            both([&](bool g) {
                return opkit_rope_qk_backward(on(g, dq_out), on(g, dk_out), on(g, cs), on(g, sn), on(g, dq_in),
                                              on(g, dk_in), nullptr);
            });
            CHECK(same(dq_in, "rope_backward", "dx", what + " dq"));
            CHECK(same(dk_in, "rope_backward", "dx", what + " dk"));
        }
}

TEST_CASE("ops: cross_entropy forward and backward match the CPU", "[gpu][ops]") {
    if (!cuda_or_skip()) return;
    uint64_t seed = 600;
    const int64_t kIgnore = -100;
    struct CeShape {
        int64_t rows, V;
        Layout layout;
    };
    // 40000: streamed rows (config 2) in every dtype. 20000, 33333 (through the element
    // path: rows not 16-byte aligned) and 40000 take the fixed-group forwards (rows of
    // 512-thread blocks or more): opk_ce_fwd_loss_* without dlogits, opk_ce_fwd_grad_* with
    // them in the 2-byte types where the rows in flight fit L2 (20000 and 33333 on an H100 or
    // H200).
    const CeShape shapes[] = {{1, 1, {}},    {3, 3, {}},           {7, 127, {}},           {130, 127, {}},
                              {5, 4097, {}}, {9, 300, {{}, 5, 1}}, {4, 1024, {{}, 0, 1}}, {3, 40000, {}},
                              {6, 20000, {}}, {4, 33333, {}}};
    for (opkit_dtype d : kFloats)
        for (const CeShape& sh : shapes)
            for (int reduction : {OPKIT_REDUCTION_NONE, OPKIT_REDUCTION_MEAN, OPKIT_REDUCTION_SUM})
                for (float smoothing : {0.0f, 0.1f})
                    // 0: separate dlogits, int64; 1: in place, int32; 2: the loss alone (no dlogits;
                    // under MEAN the loss sum counts the targets itself), int64 without smoothing
                    // and int32 with it
                    for (int variant = 0; variant < 3; ++variant) {
                        const std::string what = std::string("cross_entropy ") + dtype_name(d) + " " +
                                                 shape_str({sh.rows, sh.V}) + " reduction " +
                                                 std::to_string(reduction) + " smoothing " +
                                                 std::to_string(smoothing) + " variant " + std::to_string(variant);
                        INFO(what);
                        TP logits = make(d, {sh.rows, sh.V}, sh.layout), grad = make(d, {sh.rows, sh.V}, sh.layout);
                        const bool target32 = variant == 1 || (variant == 2 && smoothing != 0.0f);
                        TP target = make(target32 ? i32() : i64(), {sh.rows});
                        TP loss = reduction == OPKIT_REDUCTION_NONE ? make(f32(), {sh.rows}) : make(f32(), {});
                        TP lse = make(f32(), {sh.rows});
                        const uint64_t logits_seed = seed++;
                        logits->random(-5, 5, logits_seed);
                        target->random_ints(0, sh.V - 1, seed++);
                        // Targets at fixed places too: the last element (in a partial last pack
                        // where V is not a multiple of the pack), and one in pack 33, which a
                        // thread other than lane 0 owns (the gradient's target term is written
                        // by the thread owning the target's pack).
                        target->set(0, double(sh.V - 1));
                        if (sh.rows > 2 && sh.V > 33 * 8) target->set(2, double(33 * 8 + 3));
                        if (sh.rows > 2) target->set(1, double(kIgnore));  // one ignored row
                        grad->poison();
                        loss->poison();
                        lse->poison();
                        for (Tensor* t : {logits.get(), grad.get(), target.get(), loss.get(), lse.get()}) t->upload();
                        Tensor& dl = variant == 1 ? *logits : *grad;
                        both([&](bool g) {
                            return opkit_cross_entropy_forward(on(g, logits), on(g, target), kIgnore, smoothing,
                                                               reduction, on(g, loss), on(g, lse),
                                                               variant == 2 ? nullptr : on(g, dl), nullptr);
                        });
                        CHECK(same(*loss, "cross_entropy_forward", "loss", what + " loss", 1.0));
                        CHECK(same(*lse, "cross_entropy_forward", "lse", what + " lse"));
                        if (variant != 2) CHECK(same(dl, "cross_entropy_forward", "dlogits", what + " dlogits", 1.0));

                        // Backward, with and without the saved lse.
                        if (variant != 0) continue;
                        TP dloss = reduction == OPKIT_REDUCTION_NONE ? make(f32(), {sh.rows}) : make(f32(), {});
                        dloss->random(0.5f, 2.0f, seed++);
                        dloss->upload();
                        for (int with_lse = 0; with_lse < 2; ++with_lse) {
                            // Into a separate dlogits, and in place over (a copy of) the logits.
                            TP dlog = make(d, {sh.rows, sh.V}, sh.layout), x = make(d, {sh.rows, sh.V}, sh.layout);
                            dlog->poison();
                            x->random(-5, 5, logits_seed);
                            for (Tensor* t : {dlog.get(), x.get(), lse.get()}) t->upload();
                            const std::tuple<Tensor*, Tensor*, const char*> calls[] = {
                                {logits.get(), dlog.get(), " backward dlogits"}, {x.get(), x.get(), " backward in place"}};
                            for (const auto& [in, out, name] : calls) {
                                both([&](bool g) {
                                    return opkit_cross_entropy_backward(on(g, dloss), on(g, *in), on(g, target),
                                                                        with_lse ? on(g, lse) : nullptr, kIgnore,
                                                                        smoothing, reduction, on(g, *out), nullptr);
                                });
                                CHECK(same(*out, "cross_entropy_backward", "dlogits",
                                           what + name + " lse " + std::to_string(with_lse), 1.0));
                            }
                        }
                    }
}

TEST_CASE("ops: cross_entropy forward with dlogits through the stash kernels (each row read once)", "[gpu][ops]") {
    if (!cuda_or_skip()) return;
    // On a device with thread-block clusters (sm_90+), the forward with dlogits of rows of
    // 4000 packs or more runs opk_ce_fwd_stash_<dtype>_k<K> (kernel_params.h): the smallest
    // K of 1, 2, 4, 8 whose part of a row fits 64 KB. Shapes (K for 2-byte / fp32 types):
    // 32000 (1 / 2), 40000 (2 / 4), 40001 (rows not 16-byte aligned: element loads; 2 / 4),
    // 40001 padded to a stride of 40008 (aligned rows whose last pack is partial: cp.async
    // and element loads in one row; 2 / 4), 128256 with 260 rows (4 / 8: more rows than the
    // two waves of clusters launched), 140000 (8 / none: fp32 takes the two-pass kernels),
    // 16001 with 800 rows (the two-pass kernels / 1, not aligned: 1-block clusters stepping
    // over rows). Rows: the target the last element, one ignored, one whose target is out
    // of range (NaN loss and gradient on the GPU; the CPU refuses such a target, so its
    // reference row is the ignored one's, set to NaN), one all -inf, one whose target is
    // the first element of the cluster's second block's part. Outputs start at 7, not NaN,
    // so a NaN the kernel did not write cannot match.
    uint64_t seed = 900;
    const int64_t kIgnore = -100;
    struct Variant {
        bool index32, want_lse, in_place;
        float smoothing;
        int reduction;
        bool odd_rows;  // the out-of-range target and the all -inf row (reduction NONE only)
    };
    const Variant variants[] = {{false, true, false, 0.0f, OPKIT_REDUCTION_NONE, true},
                                {true, false, true, 0.1f, OPKIT_REDUCTION_MEAN, false},
                                {false, true, false, 0.0f, OPKIT_REDUCTION_SUM, false},
                                {true, false, true, 0.1f, OPKIT_REDUCTION_NONE, true}};
    struct Shape {
        int64_t rows, V, pad;
    };
    const Shape shapes[] = {{6, 32000, 0}, {6, 40000, 0}, {5, 40001, 0}, {7, 40001, 7},
                            {260, 128256, 0}, {5, 140000, 0}, {800, 16001, 0}};
    for (opkit_dtype d : kFloats)
        for (const Shape& sh : shapes)
            for (const Variant& v : variants) {
                const int64_t rows = sh.rows, V = sh.V;
                const std::string what = std::string("cross_entropy stash ") + dtype_name(d) + " " +
                                         shape_str({rows, V}) + " pad " + std::to_string(sh.pad) + " reduction " +
                                         std::to_string(v.reduction) + (v.in_place ? " in place" : "") +
                                         (v.index32 ? " int32" : "") + (v.want_lse ? " lse" : "");
                INFO(what);
                // The cluster the host picks, and where its second block's part begins.
                const int64_t per_pack = int64_t(16 / (d.bits / 8)), packs = (V + per_pack - 1) / per_pack;
                int64_t K = 1;
                while ((packs + K - 1) / K * 16 > (int64_t(64) << 10) && K < 8) K *= 2;
                const int64_t second_part = (packs + K - 1) / K * per_pack;
                const Layout layout{{}, sh.pad, 0};
                TP logits = make(d, {rows, V}, layout), grad = make(d, {rows, V}, layout);
                TP target = make(v.index32 ? i32() : i64(), {rows});
                TP loss = v.reduction == OPKIT_REDUCTION_NONE ? make(f32(), {rows}) : make(f32(), {});
                TP lse = make(f32(), {rows});
                logits->random(-5, 5, seed++);
                target->random_ints(0, V - 1, seed++);
                target->set(0, double(V - 1));
                target->set(1, double(kIgnore));
                target->set(4, double(K > 1 && second_part < V ? second_part : V / 2));
                if (v.odd_rows)
                    for (int64_t j = 0; j < V; ++j) logits->set(3 * V + j, -INFINITY);
                for (Tensor* t : {grad.get(), loss.get(), lse.get()}) t->random(7.0f, 7.0f, 0);
                if (v.odd_rows) target->set(2, double(kIgnore));  // the CPU's reference row
                for (Tensor* t : {logits.get(), grad.get(), target.get(), loss.get(), lse.get()}) t->upload();
                Tensor& dl = v.in_place ? *logits : *grad;
                const auto call = [&](bool g) {
                    return opkit_cross_entropy_forward(on(g, logits), on(g, target), kIgnore, v.smoothing,
                                                       v.reduction, on(g, loss), v.want_lse ? on(g, lse) : nullptr,
                                                       on(g, dl), nullptr);
                };
                REQUIRE_OK(call(false));
                if (v.odd_rows) {  // the device gets the out-of-range target; the reference row becomes NaN
                    target->set(2, double(V + 5));
                    target->upload();
                    loss->set(2, NAN);
                    for (int64_t j = 0; j < V; ++j) dl.set(2 * V + j, NAN);
                }
                REQUIRE_OK(call(true));
                CHECK(same(*loss, "cross_entropy_forward", "loss", what + " loss", 1.0));
                CHECK(same(*lse, "cross_entropy_forward", "lse", what + " lse"));  // 7 where not wanted
                CHECK(same(dl, "cross_entropy_forward", "dlogits", what + " dlogits", 1.0));
                if (v.odd_rows) {  // the NaN rows are the device's own: the outputs started at 7
                    const std::vector<uint8_t> l = loss->download(), gd = dl.download();
                    CHECK(std::isnan(loss->value_in(l, 2)));
                    CHECK(std::isnan(loss->value_in(l, 3)));
                    CHECK(std::isnan(dl.value_in(gd, 2 * V + V / 2)));
                    CHECK(std::isnan(dl.value_in(gd, 3 * V + 1)));
                    CHECK(!std::isnan(loss->value_in(l, 0)));
                    CHECK(loss->value_in(l, 1) == 0.0);
                }
            }
}

TEST_CASE("ops: cross_entropy of a row that is all -inf: lse -inf, loss and gradient NaN", "[gpu][ops]") {
    if (!cuda_or_skip()) return;
    for (opkit_dtype d : kFloats)
        for (int64_t V : {int64_t(50), int64_t(40000)}) {  // a cached row and a streamed one
            INFO(dtype_name(d) << " V " << V);
            TP logits = make(d, {3, V}), grad = make(d, {3, V}), target = make(i64(), {3});
            TP loss = make(f32(), {3}), lse = make(f32(), {3});
            logits->random(-3, 3, 11);
            for (int64_t j = 0; j < V; ++j) logits->set(V + j, -INFINITY);  // row 1
            for (int64_t r = 0; r < 3; ++r) target->set(r, double(r * 7 % V));
            for (Tensor* t : {grad.get(), loss.get(), lse.get()}) t->poison();
            for (Tensor* t : {logits.get(), grad.get(), target.get(), loss.get(), lse.get()}) t->upload();
            both([&](bool g) {
                return opkit_cross_entropy_forward(on(g, logits), on(g, target), -100, 0.0f, OPKIT_REDUCTION_NONE,
                                                   on(g, loss), on(g, lse), on(g, grad), nullptr);
            });
            CHECK(same(*lse, "cross_entropy_forward", "lse", "lse"));
            CHECK(same(*loss, "cross_entropy_forward", "loss", "loss", 1.0));
            CHECK(same(*grad, "cross_entropy_forward", "dlogits", "dlogits", 1.0));
            const std::vector<uint8_t> e = lse->download(), gd = grad->download();
            CHECK(lse->value_in(e, 1) == -INFINITY);
            CHECK(std::isnan(grad->value_in(gd, V)));
        }
}

TEST_CASE("ops: cross_entropy with every row ignored", "[gpu][ops]") {
    if (!cuda_or_skip()) return;
    // With and without dlogits: MEAN's count comes from its own kernel with them and from the
    // loss sum without them; both divide by zero.
    for (int reduction : {OPKIT_REDUCTION_MEAN, OPKIT_REDUCTION_SUM, OPKIT_REDUCTION_NONE})
        for (bool with_grad : {true, false}) {
            INFO("reduction " << reduction << " dlogits " << with_grad);
            TP logits = make(bf16(), {6, 50}), grad = make(bf16(), {6, 50}), target = make(i64(), {6});
            TP loss = reduction == OPKIT_REDUCTION_NONE ? make(f32(), {6}) : make(f32(), {});
            logits->random(-3, 3, 7);
            for (int64_t r = 0; r < 6; ++r) target->set(r, -100.0);
            grad->poison();
            loss->poison();
            for (Tensor* t : {logits.get(), grad.get(), target.get(), loss.get()}) t->upload();
            both([&](bool g) {
                return opkit_cross_entropy_forward(on(g, logits), on(g, target), -100, 0.0f, reduction, on(g, loss),
                                                   nullptr, with_grad ? on(g, grad) : nullptr, nullptr);
            });
            CHECK(identical(*loss, "loss"));  // MEAN: NaN (0/0) on both sides; SUM/NONE: 0
            if (with_grad) CHECK(identical(*grad, "dlogits"));
            const std::vector<uint8_t> l = loss->download();
            if (reduction == OPKIT_REDUCTION_MEAN) CHECK(std::isnan(loss->value_in(l, 0)));
            if (reduction == OPKIT_REDUCTION_SUM) CHECK(loss->value_in(l, 0) == 0.0);
        }
}

TEST_CASE("ops: a target out of range is never dereferenced: NaN loss and gradient row",
          "[gpu][ops]") {
    if (!cuda_or_skip()) return;
    // The CPU rejects such a target (INVALID_ARGUMENT); the device cannot check before
    // launching without a synchronization, so it marks the row instead (docs/cuda-vendor.md).
    TP logits = make(f32(), {4, 10}), grad = make(f32(), {4, 10}), target = make(i32(), {4});
    TP loss = make(f32(), {4});
    logits->random(-1, 1, 9);
    const double t[4] = {3, 10, -5, 2};  // rows 1 and 2 out of range
    for (int r = 0; r < 4; ++r) target->set(r, t[r]);
    for (Tensor* x : {logits.get(), grad.get(), target.get(), loss.get()}) x->upload();
    REQUIRE_OK(opkit_cross_entropy_forward(logits->gpu(), target->gpu(), -100, 0.0f, OPKIT_REDUCTION_NONE,
                                           loss->gpu(), nullptr, grad->gpu(), nullptr));
    const std::vector<uint8_t> l = loss->download(), g = grad->download();
    CHECK(std::isfinite(loss->value_in(l, 0)));
    CHECK(std::isnan(loss->value_in(l, 1)));
    CHECK(std::isnan(loss->value_in(l, 2)));
    CHECK(std::isfinite(loss->value_in(l, 3)));
    for (int64_t j = 0; j < 10; ++j) {
        CHECK(std::isnan(grad->value_in(g, 10 + j)));
        CHECK(std::isfinite(grad->value_in(g, j)));
    }
    REQUIRE(opkit_cross_entropy_forward(logits->cpu(), target->cpu(), -100, 0.0f, OPKIT_REDUCTION_NONE,
                                        loss->cpu(), nullptr, grad->cpu(), nullptr) == OPKIT_ERROR_INVALID_ARGUMENT);
}

TEST_CASE("ops: embedding forward and backward match the CPU", "[gpu][ops]") {
    if (!cuda_or_skip()) return;
    uint64_t seed = 700;
    for (opkit_dtype d : kFloats)
        for (int64_t D : {1, 3, 64, 127, 4097})  // 64: whole packs, the dense kernel where the layout allows
            for (int variant = 0; variant < 3; ++variant) {  // 0: int64 ids, 1: int32 ids + padding, 2: strided
                const int64_t V = 37;
                const std::string what = std::string("embedding ") + dtype_name(d) + " D " + std::to_string(D) +
                                         " variant " + std::to_string(variant);
                INFO(what);
                Layout wl = variant == 2 ? Layout{{}, 5, 1} : Layout{};
                TP w = make(d, {V, D}, wl);
                TP ids = make(variant == 1 ? i32() : i64(), {3, 5}, variant == 2 ? Layout{{}, 2, 1} : Layout{});
                TP y = make(d, {3, 5, D}, variant == 2 ? Layout{{1, 0, 2}, 2, 0} : Layout{});
                w->random(-1, 1, seed++);
                ids->random_ints(0, V - 1, seed++);
                ids->set(4, ids->host_value(0));  // repeated ids accumulate
                ids->set(9, ids->host_value(0));
                y->poison();
                for (Tensor* t : {w.get(), ids.get(), y.get()}) t->upload();
                both([&](bool g) { return opkit_embedding_forward(on(g, w), on(g, ids), on(g, y), nullptr); });
                CHECK(same(*y, "embedding_forward", "y", what + " y"));  // a copy: the table says exact

                TP dy = make(d, {3, 5, D}, variant == 2 ? Layout{{1, 0, 2}, 2, 0} : Layout{});
                TP dw = make(d, {V, D}, wl);
                dy->random(-1, 1, seed++);
                dw->poison();
                dy->upload();
                dw->upload();
                const int64_t padding = variant == 1 ? int64_t(ids->host_value(0)) : -1;
                both([&](bool g) {
                    return opkit_embedding_backward(on(g, dy), on(g, ids), padding, on(g, dw), nullptr);
                });
                CHECK(same(*dw, "embedding_backward", "dweight", what + " dweight"));
            }
}

TEST_CASE("ops: embedding forward over more ids than a grid has rows", "[gpu][ops]") {
    // The forward's grid takes one row per block row, at most 65535 (the second grid
    // dimension's limit): the kernel steps over the rest. Rows of one block, and of two (f32
    // rows of 1100: 275 packs).
    if (!cuda_or_skip()) return;
    uint64_t seed = 740;
    for (opkit_dtype d : kFloats)
        for (int64_t D : {8, 1100}) {
            const std::string what = std::string("embedding forward, 70001 ids, ") + dtype_name(d) + " D " +
                                     std::to_string(D);
            INFO(what);
            const int64_t V = 11, count = 70001;
            TP w = make(d, {V, D}), ids = make(i32(), {count}), y = make(d, {count, D});
            w->random(-1, 1, seed++);
            ids->random_ints(0, V - 1, seed++);
            y->poison();
            for (Tensor* t : {w.get(), ids.get(), y.get()}) t->upload();
            both([&](bool g) { return opkit_embedding_forward(on(g, w), on(g, ids), on(g, y), nullptr); });
            CHECK(same(*y, "embedding_forward", "y", what + " y"));
        }
}

TEST_CASE("ops: embedding backward with many repeated ids, no ids, and out-of-range ids", "[gpu][ops]") {
    if (!cuda_or_skip()) return;
    uint64_t seed = 750;
    struct EmbBwdCase {
        int64_t V, D, count;
        int64_t id_hi;    // ids drawn from [0, id_hi]
        int64_t padding;  // -1: none
        Layout wl;
    };
    // Positions owning a repeated id, positions adding into it, ids seen once (copied),
    // rows no id hits (zeros): at most min(count / 2, V) accumulator rows are needed.
    const EmbBwdCase cases[] = {
        {37, 520, 600, 2, -1, {}},             // 3 ids, ~200 positions each (atomics on few rows)
        {1000, 256, 3000, 999, 7, {}},         // count > V: most ids repeated
        {300, 4097, 600, 299, -1, {{}, 5, 1}}, // every id about twice; padded, misaligned dweight
        {128, 8, 1000, 127, 3, {}},            // short rows: many rows per block
        {50, 64, 0, 49, -1, {}},               // no ids: all zeros
        {1, 33, 5, 0, -1, {}},                 // V = 1
    };
    for (opkit_dtype d : kFloats)
        for (const EmbBwdCase& c : cases) {
            const std::string what = std::string("embedding backward ") + dtype_name(d) + " V " + std::to_string(c.V) +
                                     " D " + std::to_string(c.D) + " ids " + std::to_string(c.count);
            INFO(what);
            TP dy = make(d, {c.count, c.D}), dw = make(d, {c.V, c.D}, c.wl), ids = make(i64(), {c.count});
            dy->random(-1, 1, seed++);
            ids->random_ints(0, c.id_hi, seed++);
            dw->poison();
            for (Tensor* t : {dy.get(), ids.get(), dw.get()}) t->upload();
            both([&](bool g) { return opkit_embedding_backward(on(g, dy), on(g, ids), c.padding, on(g, dw), nullptr); });
            CHECK(same(*dw, "embedding_backward", "dweight", what + " dweight"));
        }

    // Out-of-range ids add nothing on the device. The CPU rejects them, so its reference
    // gets the padding id in their place (which adds nothing either).
    for (opkit_dtype d : kFloats) {
        const int64_t V = 40, D = 136, count = 500, padding = 5;
        const std::string what = std::string("embedding backward out-of-range ids ") + dtype_name(d);
        INFO(what);
        TP dy = make(d, {count, D}), dw = make(d, {V, D});
        TP ids_gpu = make(i32(), {count}), ids_cpu = make(i32(), {count});
        dy->random(-1, 1, seed++);
        ids_gpu->random_ints(-3, V + 2, seed++);
        for (int64_t k = 0; k < count; ++k) {
            const double id = ids_gpu->host_value(k);
            ids_cpu->set(k, id < 0 || id >= double(V) ? double(padding) : id);
        }
        dw->poison();
        for (Tensor* t : {dy.get(), dw.get(), ids_gpu.get(), ids_cpu.get()}) t->upload();
        REQUIRE_OK(opkit_embedding_backward(dy->cpu(), ids_cpu->cpu(), padding, dw->cpu(), nullptr));
        REQUIRE_OK(opkit_embedding_backward(dy->gpu(), ids_gpu->gpu(), padding, dw->gpu(), nullptr));
        CHECK(same(*dw, "embedding_backward", "dweight", what + " dweight"));
    }
}

TEST_CASE("ops: embedding backward into a contiguous dweight writes its elements and nothing past them",
          "[gpu][ops]") {
    // A contiguous dweight on a 16-byte boundary is zeroed whole by 16-byte packs before the
    // ids' rows are written (embedding.cu): its elements past the last whole pack are
    // written one a thread. dweight here is the first V rows of a [V + 1, D] buffer that
    // starts 16 bytes into its allocation: the bytes before it and the row after it (random
    // values) must keep what they hold. D 3 and 4097 leave a partial pack at the end, 64
    // none; ids repeat (f32 sums them in dweight's own rows, after the zeroing).
    if (!cuda_or_skip()) return;
    uint64_t seed = 790;
    for (opkit_dtype d : kFloats)
        for (int64_t D : {3, 64, 4097}) {
            const int64_t V = 37, count = 15;
            const std::string what = std::string("embedding backward, contiguous dweight + a row, ") + dtype_name(d) +
                                     " D " + std::to_string(D);
            INFO(what);
            TP buf = make(d, {V + 1, D}, Layout{{}, 0, int64_t(16 / (d.bits / 8))});
            TP dy = make(d, {count, D}), ids = make(i64(), {count});
            buf->random(-1, 1, seed++);
            dy->random(-1, 1, seed++);
            ids->random_ints(0, V - 1, seed++);
            ids->set(4, ids->host_value(0));
            ids->set(9, ids->host_value(0));
            for (Tensor* t : {buf.get(), dy.get(), ids.get()}) t->upload();
            int64_t shape[2] = {V, D};
            opkit_tensor dw_cpu = *buf->cpu(), dw_gpu = *buf->gpu();
            dw_cpu.shape = shape;
            dw_gpu.shape = shape;
            both([&](bool g) {
                return opkit_embedding_backward(on(g, dy), on(g, ids), -1, g ? &dw_gpu : &dw_cpu, nullptr);
            });
            CHECK(same(*buf, "embedding_backward", "dweight", what + " dweight and the row after it"));
        }
}

TEST_CASE("ops: an embedding id out of range gives a NaN row and no out-of-bounds read",
          "[gpu][ops]") {
    if (!cuda_or_skip()) return;
    TP w = make(bf16(), {8, 16}), ids = make(i64(), {4}), y = make(bf16(), {4, 16});
    w->random(-1, 1, 11);
    const double id[4] = {1, 8, -1, 7};
    for (int i = 0; i < 4; ++i) ids->set(i, id[i]);
    for (Tensor* t : {w.get(), ids.get(), y.get()}) t->upload();
    REQUIRE_OK(opkit_embedding_forward(w->gpu(), ids->gpu(), y->gpu(), nullptr));
    const std::vector<uint8_t> g = y->download();
    for (int64_t j = 0; j < 16; ++j) {
        CHECK(y->value_in(g, j) == w->host_value(16 + j));
        CHECK(std::isnan(y->value_in(g, 16 + j)));
        CHECK(std::isnan(y->value_in(g, 32 + j)));
        CHECK(y->value_in(g, 48 + j) == w->host_value(7 * 16 + j));
    }
}
