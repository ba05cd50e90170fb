// Embedding and EmbeddingDenseBackward (audit:240-241). An index outside [0, rows) fails
// the task, as a device-side exception would (the doc requires indices in range): nothing
// is read or written out of bounds.
#include "ops_common.h"

using namespace emu;

EMU_EXPORT aclnnStatus aclnnEmbeddingGetWorkspaceSize(const aclTensor* weight, const aclTensor* indices,
                                                      const aclTensor* out, uint64_t* workspaceSize,
                                                      aclOpExecutor** executor) {
    EMU_PHASE1(Embedding);
    const T tw = p.tensor(weight, "weight"), ti = p.tensor(indices, "indices"), ty = p.tensor(out, "out");
    p.dtype_in(tw, "weight", {DT_FLOAT, DT_FLOAT16, DT_BF16, DT_INT64, DT_INT32, DT_DOUBLE});
    p.dtype_in(ti, "indices", {DT_INT32, DT_INT64});
    p.require(tw.ndim == 2, "weight must be 2-D");
    std::vector<int64_t> shape = ti.shape();
    shape.push_back(tw.ndim == 2 ? tw.dims[1] : 0);
    p.shape_is(ty, "out", shape);
    p.require(ty.dtype == tw.dtype, "out must have weight's dtype");
    const int64_t rows = tw.ndim == 2 ? tw.dims[0] : 0, d = tw.ndim == 2 ? tw.dims[1] : 0;
    return p.done(workspace_for("Embedding", ty.numel()), workspaceSize, executor, [=]() -> std::string {
        const std::vector<double> w = read(tw);
        const std::vector<int64_t> ids = read_ints(ti);
        std::vector<double> y(static_cast<size_t>(ty.numel()));
        for (size_t k = 0; k < ids.size(); ++k) {
            if (ids[k] < 0 || ids[k] >= rows)
                return "indices[" + std::to_string(k) + "] = " + std::to_string(ids[k]) + " is outside [0, " +
                       std::to_string(rows) + ")";
            for (int64_t j = 0; j < d; ++j) y[k * size_t(d) + size_t(j)] = w[size_t(ids[k] * d + j)];
        }
        write(ty, y);
        return std::string();
    });
}
EMU_PHASE2(Embedding)

EMU_EXPORT aclnnStatus aclnnEmbeddingDenseBackwardGetWorkspaceSize(const aclTensor* grad, const aclTensor* indices,
                                                                   uint64_t numWeights, uint64_t paddingIdx,
                                                                   bool scaleGradByFreq, const aclTensor* out,
                                                                   uint64_t* workspaceSize,
                                                                   aclOpExecutor** executor) {
    EMU_PHASE1(EmbeddingDenseBackward);
    const T tg = p.tensor(grad, "grad"), ti = p.tensor(indices, "indices"), tdw = p.tensor(out, "out");
    p.dtype_in(tg, "grad", kFloats);
    p.dtype_in(ti, "indices", {DT_INT32, DT_INT64});
    const int64_t d = tg.ndim ? tg.dims[tg.ndim - 1] : 0;
    std::vector<int64_t> shape = ti.shape();
    shape.push_back(d);
    p.shape_is(tg, "grad", shape);
    p.shape_is(tdw, "out", {int64_t(numWeights), d});
    p.require(tdw.dtype == tg.dtype, "out must have grad's dtype");
    return p.done(workspace_for("EmbeddingDenseBackward", tg.numel()), workspaceSize, executor, [=]() -> std::string {
        const std::vector<double> g = read(tg);
        const std::vector<int64_t> ids = read_ints(ti);
        std::vector<double> dw(static_cast<size_t>(tdw.numel()), 0.0), count(static_cast<size_t>(numWeights), 0.0);
        for (size_t k = 0; k < ids.size(); ++k) {
            if (uint64_t(ids[k]) == paddingIdx) continue;  // paddingIdx is unsigned: -1 matches nothing valid
            if (ids[k] < 0 || uint64_t(ids[k]) >= numWeights)
                return "indices[" + std::to_string(k) + "] = " + std::to_string(ids[k]) + " is outside [0, " +
                       std::to_string(numWeights) + ")";
            count[size_t(ids[k])] += 1;
            for (int64_t j = 0; j < d; ++j) dw[size_t(ids[k] * d + j)] += g[k * size_t(d) + size_t(j)];
        }
        if (scaleGradByFreq)
            for (size_t r = 0; r < count.size(); ++r)
                for (int64_t j = 0; j < d; ++j)
                    if (count[r] > 0) dw[r * size_t(d) + size_t(j)] /= count[r];
        write(tdw, dw);
        return std::string();
    });
}
EMU_PHASE2(EmbeddingDenseBackward)
