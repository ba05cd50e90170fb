// InplaceAdd, Adds (audit:244), InplaceMuls (audit:245), Cast (audit:246).
#include "ops_common.h"

using namespace emu;

EMU_EXPORT aclnnStatus aclnnInplaceAddGetWorkspaceSize(const aclTensor* selfRef, const aclTensor* other,
                                                       const aclScalar* alpha, uint64_t* workspaceSize,
                                                       aclOpExecutor** executor) {
    EMU_PHASE1(InplaceAdd);
    const T s = p.tensor(selfRef, "selfRef"), o = p.tensor(other, "other");
    const double al = p.scalar(alpha, "alpha");
    p.dtype_in(s, "selfRef", {DT_FLOAT, DT_FLOAT16, DT_BF16, DT_DOUBLE, DT_INT32, DT_INT64});
    p.require(o.dtype == s.dtype, "other must have selfRef's dtype (type promotion is not emulated)");
    p.require(broadcastable(o.shape(), s.shape()), "other " + shape_text(o.shape()) + " does not broadcast to selfRef " +
                                                       shape_text(s.shape()));
    return p.done(workspace_for("InplaceAdd", s.numel()), workspaceSize, executor, [=] {
        std::vector<double> sv = read(s);
        const std::vector<double> ov = read(o);
        for (size_t i = 0; i < sv.size(); ++i)
            sv[i] += al * ov[size_t(broadcast_index(int64_t(i), s.shape(), o.shape()))];
        write(s, sv);
        return std::string();
    });
}
EMU_PHASE2(InplaceAdd)

EMU_EXPORT aclnnStatus aclnnAddsGetWorkspaceSize(const aclTensor* self, const aclScalar* other, const aclScalar* alpha,
                                                 aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
    EMU_PHASE1(Adds);
    const T s = p.tensor(self, "self"), y = p.tensor(out, "out");
    const double ov = p.scalar(other, "other"), al = p.scalar(alpha, "alpha");
    p.dtype_in(s, "self", {DT_FLOAT, DT_FLOAT16, DT_BF16, DT_DOUBLE, DT_INT32, DT_INT64});
    p.same_shape(s, "self", y, "out");
    p.require(y.dtype == s.dtype, "out must have self's dtype");
    return p.done(workspace_for("Adds", s.numel()), workspaceSize, executor, [=] {
        std::vector<double> v = read(s);
        for (double& x : v) x += al * ov;
        write(y, v);
        return std::string();
    });
}
EMU_PHASE2(Adds)

EMU_EXPORT aclnnStatus aclnnInplaceMulsGetWorkspaceSize(aclTensor* selfRef, const aclScalar* other,
                                                        uint64_t* workspaceSize, aclOpExecutor** executor) {
    EMU_PHASE1(InplaceMuls);
    const T s = p.tensor(selfRef, "selfRef");
    const double ov = p.scalar(other, "other");
    p.dtype_in(s, "selfRef", {DT_FLOAT, DT_FLOAT16, DT_BF16, DT_DOUBLE, DT_INT32, DT_INT64});
    return p.done(workspace_for("InplaceMuls", s.numel()), workspaceSize, executor, [=] {
        std::vector<double> v = read(s);
        for (double& x : v) x *= ov;
        write(s, v);
        return std::string();
    });
}
EMU_PHASE2(InplaceMuls)

EMU_EXPORT aclnnStatus aclnnCastGetWorkspaceSize(const aclTensor* self, int dtype, aclTensor* out,
                                                 uint64_t* workspaceSize, aclOpExecutor** executor) {
    EMU_PHASE1(Cast);
    const T s = p.tensor(self, "self"), y = p.tensor(out, "out");
    p.require(valid_dtype(dtype), std::to_string(dtype) + " is not an aclDataType");
    p.require(y.dtype == dtype, "out has dtype " + std::string(dtype_name(y.dtype)) + " but the cast is to " +
                                    dtype_name(dtype));
    p.same_shape(s, "self", y, "out");
    return p.done(workspace_for("Cast", s.numel()), workspaceSize, executor, [=] {
        write(y, read(s));
        return std::string();
    });
}
EMU_PHASE2(Cast)
