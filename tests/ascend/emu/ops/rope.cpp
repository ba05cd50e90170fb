// RotaryPositionEmbedding and its grad (audit:234-235): x 4-D (BSND, BNSD or SBND), cos and
// sin broadcast to it, mode 0 = rotate-half (NeoX), 1 = interleave (GPT-J); modes 2 and 3
// are not supported on the A2/A3 this emulates. D even and < 896.
#include "ops_common.h"

using namespace emu;

namespace {

// rotate(x) at element p of a row of D: mode 0 cat(-x2, x1), mode 1 pairs (-x1, x0).
double rotated(const std::vector<double>& x, size_t p, int64_t i, int64_t d, int64_t mode) {
    if (mode == 0) return i < d / 2 ? -x[p + size_t(d / 2)] : x[p - size_t(d / 2)];
    return i % 2 == 0 ? -x[p + 1] : x[p - 1];
}

// The transpose of rotate applied to v (v = dy * sin).
double rotated_t(const std::vector<double>& v, size_t p, int64_t i, int64_t d, int64_t mode) {
    if (mode == 0) return i < d / 2 ? v[p + size_t(d / 2)] : -v[p - size_t(d / 2)];
    return i % 2 == 0 ? v[p + 1] : -v[p - 1];
}

void check(emu::Phase1& p, const T& x, const T& cos, const T& sin, int64_t mode,
           const std::vector<std::pair<const T*, const char*>>& like_x) {
    p.dtype_in(x, "x", kFloats);
    p.require(x.ndim == 4, "x must be 4-D (BSND, BNSD or SBND), not " + std::to_string(x.ndim) + "-D");
    p.require(mode == 0 || mode == 1, "mode " + std::to_string(mode) + " is not supported on Ascend910B (0 and 1 are)");
    const int64_t d = x.ndim == 4 ? x.dims[3] : 0;
    p.require(d % 2 == 0 && d < 896, "D = " + std::to_string(d) + " must be even and < 896");
    for (const auto& [t, name] : {std::pair<const T*, const char*>{&cos, "cos"}, {&sin, "sin"}}) {
        p.require(t->dtype == x.dtype, std::string(name) + " must have x's dtype");
        p.require(t->ndim == 4 && broadcastable(t->shape(), x.shape()) && t->dims[3] == d,
                  std::string(name) + " " + shape_text(t->shape()) + " does not broadcast to x " + shape_text(x.shape()));
    }
    for (const auto& [t, name] : like_x) {
        p.shape_is(*t, name, x.shape());
        p.require(t->dtype == x.dtype, std::string(name) + " must have x's dtype");
    }
}

}  // namespace

EMU_EXPORT aclnnStatus aclnnRotaryPositionEmbeddingGetWorkspaceSize(const aclTensor* x, const aclTensor* cos,
                                                                    const aclTensor* sin, int64_t mode,
                                                                    aclTensor* out, uint64_t* workspaceSize,
                                                                    aclOpExecutor** executor) {
    EMU_PHASE1(RotaryPositionEmbedding);
    const T tx = p.tensor(x, "x"), tc = p.tensor(cos, "cos"), ts = p.tensor(sin, "sin"), ty = p.tensor(out, "out");
    check(p, tx, tc, ts, mode, {{&ty, "out"}});
    return p.done(workspace_for("RotaryPositionEmbedding", tx.numel()), workspaceSize, executor, [=] {
        const std::vector<double> xv = read(tx), cv = read(tc), sv = read(ts);
        const std::vector<int64_t> shape = tx.shape();
        const int64_t d = shape[3];
        std::vector<double> y(xv.size());
        for (size_t q = 0; q < xv.size(); ++q) {
            const int64_t i = int64_t(q) % d;
            const size_t ci = size_t(broadcast_index(int64_t(q), shape, tc.shape()));
            const size_t si = size_t(broadcast_index(int64_t(q), shape, ts.shape()));
            y[q] = xv[q] * cv[ci] + rotated(xv, q, i, d, mode) * sv[si];
        }
        write(ty, y);
        return std::string();
    });
}
EMU_PHASE2(RotaryPositionEmbedding)

EMU_EXPORT aclnnStatus aclnnRotaryPositionEmbeddingGradGetWorkspaceSize(
    const aclTensor* dy, const aclTensor* cos, const aclTensor* sin, const aclTensor* xOptional, int64_t mode,
    const aclTensor* dxOut, const aclTensor* dcosOut, const aclTensor* dsinOut, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
    EMU_PHASE1(RotaryPositionEmbeddingGrad);
    const T tdy = p.tensor(dy, "dy"), tc = p.tensor(cos, "cos"), ts = p.tensor(sin, "sin"),
            tx = p.tensor(xOptional, "xOptional", true), tdx = p.tensor(dxOut, "dxOut"),
            tdc = p.tensor(dcosOut, "dcosOut", true), tds = p.tensor(dsinOut, "dsinOut", true);
    std::vector<std::pair<const T*, const char*>> like = {{&tdx, "dxOut"}};
    if (tx.present) like.push_back({&tx, "xOptional"});
    check(p, tdy, tc, ts, mode, like);
    if (tdc.present) p.same_shape(tdc, "dcosOut", tc, "cos");
    if (tds.present) p.same_shape(tds, "dsinOut", ts, "sin");
    return p.done(workspace_for("RotaryPositionEmbeddingGrad", tdy.numel()), workspaceSize, executor, [=] {
        const std::vector<double> g = read(tdy), cv = read(tc), sv = read(ts);
        const std::vector<double> xv = tx.present ? read(tx) : std::vector<double>();
        const std::vector<int64_t> shape = tdy.shape();
        const int64_t d = shape[3];
        std::vector<double> gs(g.size()), dx(g.size()), dc(cv.size(), 0.0), ds(sv.size(), 0.0);
        for (size_t q = 0; q < g.size(); ++q) gs[q] = g[q] * sv[size_t(broadcast_index(int64_t(q), shape, ts.shape()))];
        for (size_t q = 0; q < g.size(); ++q) {
            const int64_t i = int64_t(q) % d;
            const size_t ci = size_t(broadcast_index(int64_t(q), shape, tc.shape()));
            dx[q] = g[q] * cv[ci] + rotated_t(gs, q, i, d, mode);
            if (tx.present) {  // without x there is nothing to differentiate cos and sin by
                dc[ci] += g[q] * xv[q];
                ds[size_t(broadcast_index(int64_t(q), shape, ts.shape()))] += g[q] * rotated(xv, q, i, d, mode);
            }
        }
        write(tdx, dx);
        if (tdc.present) write(tdc, dc);
        if (tds.present) write(tds, ds);
        return std::string();
    });
}
EMU_PHASE2(RotaryPositionEmbeddingGrad)
