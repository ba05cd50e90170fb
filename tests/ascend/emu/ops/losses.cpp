// CrossEntropyLoss and CrossEntropyLossGrad (audit:236-237) with PyTorch's semantics:
// ignore_index rows contribute nothing, label smoothing spreads eps over the classes, MEAN
// divides by the rows not ignored (0/0 = NaN when none is). zloss is not supported: its
// outputs must be passed anyway (ascend.md §4) and are written as zeros. The emulator does
// not emulate class weights. A target outside [0, C) that is not ignore_index fails the
// task, as a device-side exception would: nothing is read out of bounds.
#include "ops_common.h"

#include <algorithm>
#include <cstring>

using namespace emu;

namespace {

int reduction_of(emu::Phase1& p, const char* r) {
    if (!r || !std::strcmp(r, "mean")) return 1;  // reductionOptional: NULL is "mean"
    if (!std::strcmp(r, "sum")) return 2;
    if (!std::strcmp(r, "none")) return 0;
    p.require(false, std::string("reductionOptional '") + r + "' is not mean, sum or none");
    return -1;
}

std::vector<int64_t> loss_shape(int reduction, int64_t n) {
    return reduction == 0 ? std::vector<int64_t>{n} : std::vector<int64_t>{1};
}

std::string out_of_range(int64_t row, int64_t t, int64_t c) {
    return "target[" + std::to_string(row) + "] = " + std::to_string(t) + " is outside [0, " + std::to_string(c) + ")";
}

}  // namespace

EMU_EXPORT aclnnStatus aclnnCrossEntropyLossGetWorkspaceSize(
    const aclTensor* input, const aclTensor* target, const aclTensor* weightOptional, char* reductionOptional,
    int64_t ignoreIndex, double labelSmoothing, double lseSquareScaleForZloss, bool returnZloss,
    const aclTensor* lossOut, const aclTensor* logProbOut, const aclTensor* zlossOut, const aclTensor* lseForZlossOut,
    uint64_t* workspaceSize, aclOpExecutor** executor) {
    EMU_PHASE1(CrossEntropyLoss);
    const T tx = p.tensor(input, "input"), tt = p.tensor(target, "target"),
            tw = p.tensor(weightOptional, "weightOptional", true), tl = p.tensor(lossOut, "lossOut"),
            tlp = p.tensor(logProbOut, "logProbOut"), tz = p.tensor(zlossOut, "zlossOut"),
            tzl = p.tensor(lseForZlossOut, "lseForZlossOut");
    const int reduction = reduction_of(p, reductionOptional);
    p.dtype_in(tx, "input", kFloats);
    p.dtype_in(tt, "target", {DT_INT32, DT_INT64});
    p.require(tx.ndim == 2, "input must be 2-D (N, C)");
    p.require(!tw.present, "weightOptional: class weights are not emulated");
    p.require(labelSmoothing >= 0 && labelSmoothing <= 1, "labelSmoothing must be in [0, 1]");
    p.require(!returnZloss && lseSquareScaleForZloss == 0, "zloss is not supported (returnZloss false, scale 0)");
    const int64_t n = tx.ndim == 2 ? tx.dims[0] : 0, c = tx.ndim == 2 ? tx.dims[1] : 0;
    p.shape_is(tt, "target", {n});
    p.shape_is(tl, "lossOut", loss_shape(reduction, n));
    p.same_shape(tx, "input", tlp, "logProbOut");
    p.shape_is(tz, "zlossOut", loss_shape(reduction, n));
    p.shape_is(tzl, "lseForZlossOut", {n});
    for (const T* t : {&tl, &tlp, &tz, &tzl}) p.require(t->dtype == tx.dtype, "the outputs must have input's dtype");
    return p.done(workspace_for("CrossEntropyLoss", tx.numel()), workspaceSize, executor, [=]() -> std::string {
        const std::vector<double> x = read(tx);
        const std::vector<int64_t> t = read_ints(tt);
        std::vector<double> logp(x.size()), per_row(static_cast<size_t>(n), 0.0);
        int64_t valid = 0;
        for (int64_t i = 0; i < n; ++i) {
            double m = -INFINITY, s = 0;
            for (int64_t j = 0; j < c; ++j) m = std::max(m, x[size_t(i * c + j)]);
            for (int64_t j = 0; j < c; ++j) s += std::exp(x[size_t(i * c + j)] - m);
            const double lse = m + std::log(s);
            double sum_logp = 0;
            for (int64_t j = 0; j < c; ++j) {
                logp[size_t(i * c + j)] = x[size_t(i * c + j)] - lse;
                sum_logp += logp[size_t(i * c + j)];
            }
            const int64_t ti = t[size_t(i)];
            if (ti == ignoreIndex) continue;
            if (ti < 0 || ti >= c) return out_of_range(i, ti, c);
            ++valid;
            per_row[size_t(i)] = -(1 - labelSmoothing) * logp[size_t(i * c + ti)] - labelSmoothing / double(c) * sum_logp;
        }
        std::vector<double> loss;
        if (reduction == 0) {
            loss = per_row;
        } else {
            double total = 0;
            for (double v : per_row) total += v;
            loss = {reduction == 1 ? total / double(valid) : total};  // 0/0 = NaN, like PyTorch
        }
        write(tl, loss);
        write(tlp, logp);
        write(tz, std::vector<double>(size_t(tz.numel()), 0.0));
        write(tzl, std::vector<double>(size_t(n), 0.0));
        return std::string();
    });
}
EMU_PHASE2(CrossEntropyLoss)

EMU_EXPORT aclnnStatus aclnnCrossEntropyLossGradGetWorkspaceSize(
    const aclTensor* gradLoss, const aclTensor* logProb, const aclTensor* target, const aclTensor* weightOptional,
    const aclTensor* gradZlossOptional, const aclTensor* lseForZlossOptional, char* reductionOptional,
    int64_t ignoreIndex, double labelSmoothing, double lseSquareScaleForZloss, const aclTensor* out,
    uint64_t* workspaceSize, aclOpExecutor** executor) {
    EMU_PHASE1(CrossEntropyLossGrad);
    const T tg = p.tensor(gradLoss, "gradLoss"), tlp = p.tensor(logProb, "logProb"), tt = p.tensor(target, "target"),
            tw = p.tensor(weightOptional, "weightOptional", true), tdx = p.tensor(out, "out");
    (void)p.tensor(gradZlossOptional, "gradZlossOptional", true);
    (void)p.tensor(lseForZlossOptional, "lseForZlossOptional", true);
    const int reduction = reduction_of(p, reductionOptional);
    p.dtype_in(tlp, "logProb", kFloats);
    p.dtype_in(tt, "target", {DT_INT32, DT_INT64});
    p.require(tlp.ndim == 2, "logProb must be 2-D (N, C)");
    p.require(!tw.present, "weightOptional: class weights are not emulated");
    p.require(lseSquareScaleForZloss == 0, "zloss is not supported (scale 0)");
    const int64_t n = tlp.ndim == 2 ? tlp.dims[0] : 0, c = tlp.ndim == 2 ? tlp.dims[1] : 0;
    p.shape_is(tt, "target", {n});
    p.shape_is(tg, "gradLoss", loss_shape(reduction, n));
    p.same_shape(tlp, "logProb", tdx, "out");
    p.require(tg.dtype == tlp.dtype && tdx.dtype == tlp.dtype, "gradLoss and out must have logProb's dtype");
    return p.done(workspace_for("CrossEntropyLossGrad", tlp.numel()), workspaceSize, executor, [=]() -> std::string {
        const std::vector<double> g = read(tg), logp = read(tlp);
        const std::vector<int64_t> t = read_ints(tt);
        int64_t valid = 0;
        for (int64_t i = 0; i < n; ++i) valid += t[size_t(i)] != ignoreIndex;
        std::vector<double> dx(logp.size(), 0.0);
        for (int64_t i = 0; i < n; ++i) {
            const int64_t ti = t[size_t(i)];
            if (ti == ignoreIndex) continue;
            if (ti < 0 || ti >= c) return out_of_range(i, ti, c);
            const double scale = reduction == 0 ? g[size_t(i)] : reduction == 2 ? g[0] : g[0] / double(valid);
            for (int64_t j = 0; j < c; ++j)
                dx[size_t(i * c + j)] = (std::exp(logp[size_t(i * c + j)]) - labelSmoothing / double(c) -
                                         (j == ti ? 1 - labelSmoothing : 0.0)) *
                                        scale;
        }
        write(tdx, dx);
        return std::string();
    });
}
EMU_PHASE2(CrossEntropyLossGrad)
