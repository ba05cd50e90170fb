// matmul through cuBLASLt against the CPU default: transposes, 3-D batches with
// broadcasting, strided rows, alpha/beta, beta = 0 over a NaN c, K = 0.
#include "cuda_test_support.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

using namespace cudatest;

namespace {
using TP = std::unique_ptr<Tensor>;
TP make(opkit_dtype d, std::vector<int64_t> shape, Layout l = {}) {
    return std::make_unique<Tensor>(d, std::move(shape), l);
}
}  // namespace

TEST_CASE("matmul: matches the CPU", "[gpu][matmul]") {
    if (!cuda_or_skip()) return;
    const char* who = nullptr;
    REQUIRE(opkit_op_resolve("matmul", kDeviceType, &who) == OPKIT_OK);
    struct Case {
        int64_t batch_a, batch_b, batch, M, N, K;
        int ta, tb;
        float alpha, beta;
        int64_t pad;
    };
    const Case cases[] = {
        {0, 0, 0, 1, 1, 1, 0, 0, 1.0f, 0.0f, 0},      {0, 0, 0, 3, 5, 7, 0, 0, 1.0f, 0.0f, 0},
        {0, 0, 0, 127, 65, 129, 1, 0, 0.5f, 1.0f, 0}, {0, 0, 0, 64, 128, 256, 0, 1, 1.0f, -0.5f, 0},
        {0, 0, 0, 33, 17, 40, 1, 1, 2.0f, 0.0f, 3},   {4, 4, 4, 16, 24, 32, 0, 0, 1.0f, 0.0f, 0},
        {4, 1, 4, 16, 24, 32, 0, 1, 1.0f, 0.25f, 0},  {1, 3, 3, 9, 10, 11, 1, 0, 1.0f, 0.0f, 2},
        {0, 0, 0, 256, 256, 1024, 0, 0, 1.0f, 0.0f, 0}, {0, 0, 0, 5, 6, 0, 0, 0, 1.0f, 0.5f, 0},
        {0, 0, 0, 5, 6, 0, 0, 0, 1.0f, 0.0f, 0},
    };
    uint64_t seed = 1000;
    for (opkit_dtype d : {f32(), f16(), bf16()})
        for (const Case& c : cases) {
            auto dims = [&](int64_t batch, int64_t r, int64_t cc) {
                return batch ? std::vector<int64_t>{batch, r, cc} : std::vector<int64_t>{r, cc};
            };
            const std::vector<int64_t> as = c.ta ? dims(c.batch_a, c.K, c.M) : dims(c.batch_a, c.M, c.K);
            const std::vector<int64_t> bs = c.tb ? dims(c.batch_b, c.N, c.K) : dims(c.batch_b, c.K, c.N);
            const std::vector<int64_t> cs = dims(c.batch, c.M, c.N);
            const std::string what = std::string("matmul ") + dtype_name(d) + " a " + shape_str(as) + " b " +
                                     shape_str(bs) + " c " + shape_str(cs) + " ta " + std::to_string(c.ta) + " tb " +
                                     std::to_string(c.tb) + " alpha " + std::to_string(c.alpha) + " beta " +
                                     std::to_string(c.beta) + " pad " + std::to_string(c.pad);
            INFO(what);
            TP a = make(d, as, {{}, c.pad, 0}), b = make(d, bs, {{}, c.pad, 0}), cc = make(d, cs, {{}, c.pad, 0});
            a->random(-1, 1, seed++);
            b->random(-1, 1, seed++);
            if (c.beta == 0.0f)
                cc->poison();  // NaN: must not leak into the result
            else
                cc->random(-1, 1, seed++);
            for (Tensor* t : {a.get(), b.get(), cc.get()}) t->upload();
            REQUIRE_OK(opkit_matmul(a->cpu(), b->cpu(), cc->cpu(), c.alpha, c.beta, c.ta, c.tb, nullptr));
            REQUIRE_OK(opkit_matmul(a->gpu(), b->gpu(), cc->gpu(), c.alpha, c.beta, c.ta, c.tb, nullptr));
            // Tolerances: the one table (core/tolerances.def, docs/tolerances.md).
            CHECK(same(*cc, "matmul", "c", what));
        }
}
