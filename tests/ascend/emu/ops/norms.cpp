// RmsNorm, RmsNormGrad (audit:218-219), LayerNorm, LayerNormBackward (audit:220-221).
#include "ops_common.h"

using namespace emu;

namespace {

std::vector<int64_t> tail(const std::vector<int64_t>& s, size_t k) {
    return k <= s.size() ? std::vector<int64_t>(s.end() - long(k), s.end()) : std::vector<int64_t>{};
}
std::vector<int64_t> head(const std::vector<int64_t>& s, size_t k) {
    return k <= s.size() ? std::vector<int64_t>(s.begin(), s.end() - long(k)) : std::vector<int64_t>{};
}
// x's shape with its last k dims set to 1: the shape of RmsNorm's rstd and LayerNorm's
// mean and rstd (audit:218, ascend.md §4).
std::vector<int64_t> kept(const std::vector<int64_t>& s, size_t k) {
    std::vector<int64_t> r = head(s, k);
    r.insert(r.end(), k, 1);
    return r;
}

}  // namespace

EMU_EXPORT aclnnStatus aclnnRmsNormGetWorkspaceSize(const aclTensor* x, const aclTensor* gamma, double epsilon,
                                                    const aclTensor* yOut, const aclTensor* rstdOut,
                                                    uint64_t* workspaceSize, aclOpExecutor** executor) {
    EMU_PHASE1(RmsNorm);
    const T tx = p.tensor(x, "x"), tg = p.tensor(gamma, "gamma"), ty = p.tensor(yOut, "yOut"),
            tr = p.tensor(rstdOut, "rstdOut");
    p.dtype_in(tx, "x", kFloats);
    p.dtype_in(tr, "rstdOut", {DT_FLOAT});
    p.require(tx.ndim >= 1 && tx.ndim <= 8, "x must have 1 to 8 dims");
    // (x, gamma, y): (f32,f32,f32), (f16,f16|f32,f16), (bf16,bf16|f32,bf16) (audit:218)
    p.require(ty.dtype == tx.dtype, "yOut must have x's dtype");
    p.require(tg.dtype == tx.dtype || tg.dtype == DT_FLOAT, "gamma must have x's dtype or FLOAT");
    const size_t g = size_t(tg.ndim);
    p.require(g >= 1 && tail(tx.shape(), g) == tg.shape(), "gamma " + shape_text(tg.shape()) +
                                                               " must be x's trailing dims " + shape_text(tx.shape()));
    p.same_shape(tx, "x", ty, "yOut");
    p.shape_is(tr, "rstdOut", kept(tx.shape(), g));
    const int64_t n = tg.numel(), rows = n ? tx.numel() / n : 0;
    return p.done(workspace_for("RmsNorm", tx.numel()), workspaceSize, executor, [=] {
        const std::vector<double> xv = read(tx), gv = read(tg);
        std::vector<double> y(xv.size()), r(static_cast<size_t>(rows));
        for (int64_t i = 0; i < rows; ++i) {
            double ss = 0;
            for (int64_t j = 0; j < n; ++j) ss += xv[size_t(i * n + j)] * xv[size_t(i * n + j)];
            r[size_t(i)] = 1.0 / std::sqrt(ss / double(n) + epsilon);
            for (int64_t j = 0; j < n; ++j) y[size_t(i * n + j)] = xv[size_t(i * n + j)] * r[size_t(i)] * gv[size_t(j)];
        }
        write(ty, y);
        write(tr, r);
        return std::string();
    });
}
EMU_PHASE2(RmsNorm)

EMU_EXPORT aclnnStatus aclnnRmsNormGradGetWorkspaceSize(const aclTensor* dy, const aclTensor* x,
                                                        const aclTensor* rstd, const aclTensor* gamma,
                                                        const aclTensor* dxOut, const aclTensor* dgammaOut,
                                                        uint64_t* workspaceSize, aclOpExecutor** executor) {
    EMU_PHASE1(RmsNormGrad);
    const T tdy = p.tensor(dy, "dy"), tx = p.tensor(x, "x"), tr = p.tensor(rstd, "rstd"), tg = p.tensor(gamma, "gamma"),
            tdx = p.tensor(dxOut, "dxOut"), tdg = p.tensor(dgammaOut, "dgammaOut");
    p.dtype_in(tx, "x", kFloats);
    p.dtype_in(tr, "rstd", {DT_FLOAT});
    p.dtype_in(tdg, "dgammaOut", {DT_FLOAT});  // dgamma is fp32 (audit:219)
    p.require(tdy.dtype == tx.dtype && tdx.dtype == tx.dtype, "dy and dxOut must have x's dtype");
    p.require(tg.dtype == tx.dtype || tg.dtype == DT_FLOAT, "gamma must have x's dtype or FLOAT");
    p.require(tx.ndim >= 2 && tx.ndim <= 8, "x must have 2 to 8 dims (audit:219)");
    p.same_shape(tx, "x", tdy, "dy");
    p.same_shape(tx, "x", tdx, "dxOut");
    const size_t g = size_t(tg.ndim);
    p.require(g >= 1 && tail(tx.shape(), g) == tg.shape(), "gamma must be x's trailing dims");
    // rstd_shape = x_shape[0:n], the normalized dims dropped (audit:219)
    p.shape_is(tr, "rstd", head(tx.shape(), g));
    p.same_shape(tg, "gamma", tdg, "dgammaOut");
    const int64_t n = tg.numel(), rows = n ? tx.numel() / n : 0;
    return p.done(workspace_for("RmsNormGrad", tx.numel()), workspaceSize, executor, [=] {
        const std::vector<double> dyv = read(tdy), xv = read(tx), rv = read(tr), gv = read(tg);
        std::vector<double> dx(xv.size()), dg(static_cast<size_t>(n), 0.0);
        for (int64_t i = 0; i < rows; ++i) {
            const double r = rv[size_t(i)];
            double dot = 0;
            for (int64_t j = 0; j < n; ++j) dot += dyv[size_t(i * n + j)] * gv[size_t(j)] * xv[size_t(i * n + j)];
            for (int64_t j = 0; j < n; ++j) {
                const size_t k = size_t(i * n + j);
                dx[k] = r * dyv[k] * gv[size_t(j)] - xv[k] * r * r * r * dot / double(n);
                dg[size_t(j)] += dyv[k] * xv[k] * r;
            }
        }
        write(tdx, dx);
        write(tdg, dg);
        return std::string();
    });
}
EMU_PHASE2(RmsNormGrad)

EMU_EXPORT aclnnStatus aclnnLayerNormGetWorkspaceSize(const aclTensor* input, const aclIntArray* normalizedShape,
                                                      const aclTensor* weightOptional, const aclTensor* biasOptional,
                                                      double eps, aclTensor* out, aclTensor* meanOutOptional,
                                                      aclTensor* rstdOutOptional, uint64_t* workspaceSize,
                                                      aclOpExecutor** executor) {
    EMU_PHASE1(LayerNorm);
    const T tx = p.tensor(input, "input"), tw = p.tensor(weightOptional, "weightOptional", true),
            tb = p.tensor(biasOptional, "biasOptional", true), ty = p.tensor(out, "out"),
            tm = p.tensor(meanOutOptional, "meanOutOptional", true),
            tr = p.tensor(rstdOutOptional, "rstdOutOptional", true);
    const std::vector<int64_t> ns = p.ints(normalizedShape, "normalizedShape");
    p.dtype_in(tx, "input", kFloats);
    p.require(tx.ndim >= 1 && tx.ndim <= 8, "input must have 1 to 8 dims");
    p.require(!ns.empty() && tail(tx.shape(), ns.size()) == ns,
              "normalizedShape " + shape_text(ns) + " must be input's trailing dims " + shape_text(tx.shape()));
    p.same_shape(tx, "input", ty, "out");
    p.require(ty.dtype == tx.dtype, "out must have input's dtype");
    for (const auto& [t, name] : {std::pair<const T*, const char*>{&tw, "weightOptional"}, {&tb, "biasOptional"}})
        if (t->present) {
            p.shape_is(*t, name, ns);
            p.require(t->dtype == tx.dtype || t->dtype == DT_FLOAT, std::string(name) + " must have input's dtype or FLOAT");
        }
    // mean and rstd: [A..., 1...] in the input's dtype (ascend.md §4)
    for (const auto& [t, name] : {std::pair<const T*, const char*>{&tm, "meanOutOptional"}, {&tr, "rstdOutOptional"}})
        if (t->present) {
            p.shape_is(*t, name, kept(tx.shape(), ns.size()));
            p.require(t->dtype == tx.dtype, std::string(name) + " must have input's dtype (" + dtype_name(tx.dtype) + ")");
        }
    const int64_t n = product(ns), rows = n ? tx.numel() / n : 0;
    return p.done(workspace_for("LayerNorm", tx.numel()), workspaceSize, executor, [=] {
        const std::vector<double> xv = read(tx), wv = tw.present ? read(tw) : std::vector<double>(),
                                  bv = tb.present ? read(tb) : std::vector<double>();
        std::vector<double> y(xv.size()), m(static_cast<size_t>(rows)), r(static_cast<size_t>(rows));
        for (int64_t i = 0; i < rows; ++i) {
            double mu = 0, var = 0;
            for (int64_t j = 0; j < n; ++j) mu += xv[size_t(i * n + j)];
            mu /= double(n);
            for (int64_t j = 0; j < n; ++j) var += (xv[size_t(i * n + j)] - mu) * (xv[size_t(i * n + j)] - mu);
            const double inv = 1 / std::sqrt(var / double(n) + eps);  // biased variance, like PyTorch
            m[size_t(i)] = mu;
            r[size_t(i)] = inv;
            for (int64_t j = 0; j < n; ++j)
                y[size_t(i * n + j)] = (xv[size_t(i * n + j)] - mu) * inv * (tw.present ? wv[size_t(j)] : 1.0) +
                                       (tb.present ? bv[size_t(j)] : 0.0);
        }
        write(ty, y);
        if (tm.present) write(tm, m);
        if (tr.present) write(tr, r);
        return std::string();
    });
}
EMU_PHASE2(LayerNorm)

EMU_EXPORT aclnnStatus aclnnLayerNormBackwardGetWorkspaceSize(
    const aclTensor* gradOut, const aclTensor* input, const aclIntArray* normalizedShape, const aclTensor* mean,
    const aclTensor* rstd, const aclTensor* weightOptional, const aclTensor* biasOptional,
    const aclBoolArray* outputMask, aclTensor* gradInputOut, aclTensor* gradWeightOut, aclTensor* gradBiasOut,
    uint64_t* workspaceSize, aclOpExecutor** executor) {
    EMU_PHASE1(LayerNormBackward);
    const T tdy = p.tensor(gradOut, "gradOut"), tx = p.tensor(input, "input"), tm = p.tensor(mean, "mean"),
            tr = p.tensor(rstd, "rstd"), tw = p.tensor(weightOptional, "weightOptional", true);
    (void)p.tensor(biasOptional, "biasOptional", true);
    const std::vector<int64_t> ns = p.ints(normalizedShape, "normalizedShape");
    const std::vector<bool> mask = p.bools(outputMask, "outputMask");
    p.require(mask.size() == 3, "outputMask must have 3 entries (input, weight, bias)");
    const bool want_dx = p.ok() && mask[0], want_dw = p.ok() && mask[1], want_db = p.ok() && mask[2];
    // A masked-off gradient may be NULL; a wanted one must be there.
    const T tdx = p.tensor(gradInputOut, "gradInputOut", !want_dx), tdw = p.tensor(gradWeightOut, "gradWeightOut", !want_dw),
            tdb = p.tensor(gradBiasOut, "gradBiasOut", !want_db);
    p.dtype_in(tx, "input", kFloats);
    p.require(!ns.empty() && tail(tx.shape(), ns.size()) == ns, "normalizedShape must be input's trailing dims");
    p.same_shape(tx, "input", tdy, "gradOut");
    p.require(tdy.dtype == tx.dtype, "gradOut must have input's dtype");
    for (const auto& [t, name] : {std::pair<const T*, const char*>{&tm, "mean"}, {&tr, "rstd"}}) {
        p.shape_is(*t, name, kept(tx.shape(), ns.size()));
        p.require(t->dtype == tx.dtype, std::string(name) + " must have input's dtype, as LayerNorm wrote it");
    }
    if (tw.present) {
        p.shape_is(tw, "weightOptional", ns);
        p.require(tw.dtype == tx.dtype || tw.dtype == DT_FLOAT, "weightOptional must have input's dtype or FLOAT");
    }
    const int param_dtype = tw.present ? tw.dtype : tx.dtype;
    if (want_dx) {
        p.same_shape(tx, "input", tdx, "gradInputOut");
        p.require(tdx.dtype == tx.dtype, "gradInputOut must have input's dtype");
    }
    for (const auto& [t, name, want] : {std::tuple<const T*, const char*, bool>{&tdw, "gradWeightOut", want_dw},
                                        {&tdb, "gradBiasOut", want_db}})
        if (want) {
            p.shape_is(*t, name, ns);
            p.require(t->dtype == param_dtype, std::string(name) + " must have the weight's dtype");
        }
    const int64_t n = product(ns), rows = n ? tx.numel() / n : 0;
    return p.done(workspace_for("LayerNormBackward", tx.numel()), workspaceSize, executor, [=] {
        const std::vector<double> dyv = read(tdy), xv = read(tx), mv = read(tm), rv = read(tr),
                                  wv = tw.present ? read(tw) : std::vector<double>();
        std::vector<double> dx(xv.size()), dw(static_cast<size_t>(n), 0.0), db(static_cast<size_t>(n), 0.0);
        for (int64_t i = 0; i < rows; ++i) {
            double mg = 0, mgx = 0;
            for (int64_t j = 0; j < n; ++j) {
                const size_t k = size_t(i * n + j);
                const double xhat = (xv[k] - mv[size_t(i)]) * rv[size_t(i)];
                const double g = dyv[k] * (tw.present ? wv[size_t(j)] : 1.0);
                mg += g;
                mgx += g * xhat;
            }
            mg /= double(n);
            mgx /= double(n);
            for (int64_t j = 0; j < n; ++j) {
                const size_t k = size_t(i * n + j);
                const double xhat = (xv[k] - mv[size_t(i)]) * rv[size_t(i)];
                const double g = dyv[k] * (tw.present ? wv[size_t(j)] : 1.0);
                dx[k] = rv[size_t(i)] * (g - mg - xhat * mgx);
                dw[size_t(j)] += dyv[k] * xhat;
                db[size_t(j)] += dyv[k];
            }
        }
        if (want_dx) write(tdx, dx);
        if (want_dw) write(tdw, dw);
        if (want_db) write(tdb, db);
        return std::string();
    });
}
EMU_PHASE2(LayerNormBackward)
