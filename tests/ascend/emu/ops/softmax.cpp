// Softmax, SoftmaxBackward, LogSoftmax over any dim (audit:222-224).
#include "ops_common.h"

#include <algorithm>

using namespace emu;

namespace {

// Calls f(indices of one line along `axis`) for every line of a tensor of `shape`.
template <class F>
void lines(const std::vector<int64_t>& shape, int ax, F&& f) {
    const int64_t outer = product(shape, 0, size_t(ax)), len = shape[size_t(ax)],
                  inner = product(shape, size_t(ax) + 1);
    std::vector<size_t> idx(static_cast<size_t>(len));
    for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i) {
            for (int64_t k = 0; k < len; ++k) idx[size_t(k)] = size_t((o * len + k) * inner + i);
            f(idx);
        }
}

std::vector<double> softmax(const std::vector<double>& x, const std::vector<int64_t>& shape, int ax, bool log) {
    std::vector<double> y(x.size());
    lines(shape, ax, [&](const std::vector<size_t>& idx) {
        double m = -INFINITY, s = 0;
        for (size_t k : idx) m = std::max(m, x[k]);
        for (size_t k : idx) s += std::exp(x[k] - m);
        for (size_t k : idx) y[k] = log ? x[k] - m - std::log(s) : std::exp(x[k] - m) / s;
    });
    return y;
}

aclnnStatus forward(emu::Phase1& p, const aclTensor* self, int64_t dim, aclTensor* out, bool log,
                    uint64_t* workspaceSize, aclOpExecutor** executor) {
    const T tx = p.tensor(self, "self"), ty = p.tensor(out, "out");
    p.dtype_in(tx, "self", {DT_FLOAT, DT_FLOAT16, DT_BF16, DT_DOUBLE});
    p.require(tx.ndim <= 8, "self has more than 8 dims");
    p.same_shape(tx, "self", ty, "out");
    p.require(ty.dtype == tx.dtype, "out must have self's dtype");
    const int ax = axis(dim, tx.ndim == 0 ? 1 : tx.ndim);
    p.require(ax >= 0, "dim " + std::to_string(dim) + " is out of range for " + std::to_string(tx.ndim) + " dims");
    return p.done(workspace_for(p.op(), tx.numel()), workspaceSize, executor, [=] {
        write(ty, softmax(read(tx), tx.ndim ? tx.shape() : std::vector<int64_t>{1}, ax, log));
        return std::string();
    });
}

}  // namespace

EMU_EXPORT aclnnStatus aclnnSoftmaxGetWorkspaceSize(const aclTensor* self, int64_t dim, aclTensor* out,
                                                    uint64_t* workspaceSize, aclOpExecutor** executor) {
    EMU_PHASE1(Softmax);
    return forward(p, self, dim, out, false, workspaceSize, executor);
}
EMU_PHASE2(Softmax)

EMU_EXPORT aclnnStatus aclnnLogSoftmaxGetWorkspaceSize(const aclTensor* self, int64_t dim, aclTensor* out,
                                                       uint64_t* workspaceSize, aclOpExecutor** executor) {
    EMU_PHASE1(LogSoftmax);
    return forward(p, self, dim, out, true, workspaceSize, executor);
}
EMU_PHASE2(LogSoftmax)

EMU_EXPORT aclnnStatus aclnnSoftmaxBackwardGetWorkspaceSize(const aclTensor* gradOutput, const aclTensor* output,
                                                            int64_t dim, aclTensor* out, uint64_t* workspaceSize,
                                                            aclOpExecutor** executor) {
    EMU_PHASE1(SoftmaxBackward);
    const T tdy = p.tensor(gradOutput, "gradOutput"), ty = p.tensor(output, "output"), tdx = p.tensor(out, "out");
    p.dtype_in(ty, "output", {DT_FLOAT, DT_FLOAT16, DT_BF16, DT_DOUBLE});
    p.same_shape(ty, "output", tdy, "gradOutput");
    p.same_shape(ty, "output", tdx, "out");
    p.require(tdy.dtype == ty.dtype && tdx.dtype == ty.dtype, "gradOutput, output and out must share a dtype");
    const int ax = axis(dim, ty.ndim == 0 ? 1 : ty.ndim);
    p.require(ax >= 0, "dim " + std::to_string(dim) + " is out of range");
    return p.done(workspace_for("SoftmaxBackward", ty.numel()), workspaceSize, executor, [=] {
        const std::vector<double> dy = read(tdy), y = read(ty);
        std::vector<double> dx(y.size());
        lines(ty.ndim ? ty.shape() : std::vector<int64_t>{1}, ax, [&](const std::vector<size_t>& idx) {
            double s = 0;
            for (size_t k : idx) s += dy[k] * y[k];
            for (size_t k : idx) dx[k] = y[k] * (dy[k] - s);
        });
        write(tdx, dx);
        return std::string();
    });
}
EMU_PHASE2(SoftmaxBackward)
