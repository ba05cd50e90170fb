// SwiGlu, SwiGluGrad (audit:225-226), GeGlu, GeGluBackward (audit:230-231): one tensor
// holding both halves along `dim`. SwiGlu activates the first half, GeGlu the second
// (out = A * Gelu(B), ascend.md §4). GeGlu's approximate follows the tiling code, 0 = erf
// and 1 = tanh, not the header comment that says the opposite (audit:59-64).
#include "ops_common.h"

using namespace emu;

namespace {

struct Halves {
    int64_t outer = 0, half = 0, inner = 0;  // x is [outer, 2*half, inner] along the dim
    size_t a(int64_t o, int64_t k, int64_t i) const { return size_t((o * 2 * half + k) * inner + i); }
    size_t b(int64_t o, int64_t k, int64_t i) const { return size_t((o * 2 * half + half + k) * inner + i); }
    size_t y(int64_t o, int64_t k, int64_t i) const { return size_t((o * half + k) * inner + i); }
    template <class F>
    void each(F&& f) const {
        for (int64_t o = 0; o < outer; ++o)
            for (int64_t k = 0; k < half; ++k)
                for (int64_t i = 0; i < inner; ++i) f(a(o, k, i), b(o, k, i), y(o, k, i));
    }
};

// Checks x / the halved tensor along dim; returns the geometry.
Halves split(emu::Phase1& p, const T& x, int64_t dim, const std::vector<std::pair<const T*, const char*>>& halved,
             const std::vector<std::pair<const T*, const char*>>& whole) {
    Halves h;
    p.dtype_in(x, "x", kFloats);
    const int ax = axis(dim, x.ndim);
    if (!p.require(ax >= 0, "dim " + std::to_string(dim) + " is out of range for " + std::to_string(x.ndim) + " dims"))
        return h;
    std::vector<int64_t> hs = x.shape();
    p.require(hs[size_t(ax)] % 2 == 0, "x's size along dim must be even, not " + std::to_string(hs[size_t(ax)]));
    hs[size_t(ax)] /= 2;
    for (const auto& [t, name] : halved) {
        p.shape_is(*t, name, hs);
        p.require(t->dtype == x.dtype, std::string(name) + " must have x's dtype");
    }
    for (const auto& [t, name] : whole) {
        p.shape_is(*t, name, x.shape());
        p.require(t->dtype == x.dtype, std::string(name) + " must have x's dtype");
    }
    h.outer = product(x.shape(), 0, size_t(ax));
    h.half = hs[size_t(ax)];
    h.inner = product(x.shape(), size_t(ax) + 1);
    return h;
}

bool approximate_ok(emu::Phase1& p, int64_t approximate) {
    return p.require(approximate == 0 || approximate == 1,
                     "approximate " + std::to_string(approximate) + " is neither 0 (erf) nor 1 (tanh)");
}

}  // namespace

EMU_EXPORT aclnnStatus aclnnSwiGluGetWorkspaceSize(const aclTensor* x, int64_t dim, const aclTensor* out,
                                                   uint64_t* workspaceSize, aclOpExecutor** executor) {
    EMU_PHASE1(SwiGlu);
    const T tx = p.tensor(x, "x"), ty = p.tensor(out, "out");
    // "non-contiguous tensors: not supported" (audit:225)
    p.require(tx.contiguous() && ty.contiguous(), "x and out must be contiguous (aclnnSwiGlu takes no "
                                                  "non-contiguous tensors)");
    const Halves h = split(p, tx, dim, {{&ty, "out"}}, {});
    return p.done(workspace_for("SwiGlu", tx.numel()), workspaceSize, executor, [=] {
        const std::vector<double> xv = read(tx);
        std::vector<double> y(static_cast<size_t>(ty.numel()));
        h.each([&](size_t a, size_t b, size_t o) {
            double v, d;
            activation(0, xv[a], &v, &d);
            y[o] = v * xv[b];
        });
        write(ty, y);
        return std::string();
    });
}
EMU_PHASE2(SwiGlu)

EMU_EXPORT aclnnStatus aclnnSwiGluGradGetWorkspaceSize(const aclTensor* yGrad, const aclTensor* x, int64_t dim,
                                                       const aclTensor* out, uint64_t* workspaceSize,
                                                       aclOpExecutor** executor) {
    EMU_PHASE1(SwiGluGrad);
    const T tg = p.tensor(yGrad, "yGrad"), tx = p.tensor(x, "x"), tdx = p.tensor(out, "out");
    const Halves h = split(p, tx, dim, {{&tg, "yGrad"}}, {{&tdx, "out"}});
    return p.done(workspace_for("SwiGluGrad", tx.numel()), workspaceSize, executor, [=] {
        const std::vector<double> g = read(tg), xv = read(tx);
        std::vector<double> dx(xv.size());
        h.each([&](size_t a, size_t b, size_t o) {
            double v, d;
            activation(0, xv[a], &v, &d);
            dx[a] = g[o] * xv[b] * d;
            dx[b] = g[o] * v;
        });
        write(tdx, dx);
        return std::string();
    });
}
EMU_PHASE2(SwiGluGrad)

EMU_EXPORT aclnnStatus aclnnGeGluGetWorkspaceSize(const aclTensor* self, int64_t dim, int64_t approximate,
                                                  aclTensor* out, aclTensor* outGelu, uint64_t* workspaceSize,
                                                  aclOpExecutor** executor) {
    EMU_PHASE1(GeGlu);
    const T tx = p.tensor(self, "self"), ty = p.tensor(out, "out"), tgl = p.tensor(outGelu, "outGelu");
    approximate_ok(p, approximate);
    const Halves h = split(p, tx, dim, {{&ty, "out"}, {&tgl, "outGelu"}}, {});
    const int act = approximate == 0 ? 1 : 2;
    return p.done(workspace_for("GeGlu", tx.numel()), workspaceSize, executor, [=] {
        const std::vector<double> xv = read(tx);
        std::vector<double> y(static_cast<size_t>(ty.numel())), gl(y.size());
        h.each([&](size_t a, size_t b, size_t o) {
            double v, d;
            activation(act, xv[b], &v, &d);
            gl[o] = v;
            y[o] = xv[a] * v;
        });
        write(ty, y);
        write(tgl, gl);
        return std::string();
    });
}
EMU_PHASE2(GeGlu)

EMU_EXPORT aclnnStatus aclnnGeGluBackwardGetWorkspaceSize(const aclTensor* gradOutput, const aclTensor* self,
                                                          const aclTensor* gelu, int64_t dim, int64_t approximate,
                                                          aclTensor* gradInput, uint64_t* workspaceSize,
                                                          aclOpExecutor** executor) {
    EMU_PHASE1(GeGluBackward);
    const T tg = p.tensor(gradOutput, "gradOutput"), tx = p.tensor(self, "self"), tgl = p.tensor(gelu, "gelu"),
            tdx = p.tensor(gradInput, "gradInput");
    approximate_ok(p, approximate);
    const Halves h = split(p, tx, dim, {{&tg, "gradOutput"}, {&tgl, "gelu"}}, {{&tdx, "gradInput"}});
    const int act = approximate == 0 ? 1 : 2;
    return p.done(workspace_for("GeGluBackward", tx.numel()), workspaceSize, executor, [=] {
        const std::vector<double> g = read(tg), xv = read(tx), gl = read(tgl);
        std::vector<double> dx(xv.size());
        h.each([&](size_t a, size_t b, size_t o) {
            double v, d;
            activation(act, xv[b], &v, &d);
            dx[a] = g[o] * gl[o];  // the forward's gelu(B), as given
            dx[b] = g[o] * xv[a] * d;
        });
        write(tdx, dx);
        return std::string();
    });
}
EMU_PHASE2(GeGluBackward)
