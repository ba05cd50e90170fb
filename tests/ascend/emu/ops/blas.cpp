// Mm, BatchMatMul, Addmm, Baddbmm (audit:242-243). cubeMathType (audit:242, 312-313) is
// emulated for fp32 inputs on an A2: 0 (KEEP_DTYPE) and 4 compute in fp32, 1 and 3 in
// HF32, 2 in fp16 — so a caller that picks anything but 0 for fp32 training sees its
// results lose precision here as on the NPU. fp16/bf16 inputs accumulate in fp32 (exact
// products, one rounding here). 2 is refused with bf16.
#include "ops_common.h"

#include <cstring>

using namespace emu;

namespace {

// v with its fp32 significand cut to `bits` explicit bits, rounded to nearest even.
double round_mantissa(double v, int bits) {
    float f = float(v);
    uint32_t u;
    std::memcpy(&u, &f, 4);
    const int drop = 23 - bits;
    const uint32_t half = 1u << (drop - 1), mask = (1u << drop) - 1;
    if ((u & 0x7f800000u) != 0x7f800000u) {
        const uint32_t rest = u & mask;
        u &= ~mask;
        if (rest > half || (rest == half && (u >> drop) & 1u)) u += 1u << drop;
    }
    std::memcpy(&f, &u, 4);
    return f;
}

double operand(double v, int dtype, int8_t cube) {
    if (dtype != DT_FLOAT) return v;
    if (cube == 1 || cube == 3) return round_mantissa(v, 10);  // HF32
    if (cube == 2) return double(_Float16(v));                 // USE_FP16
    return v;
}

struct Gemm {
    int64_t batch = 1, m = 0, k = 0, n = 0;
};

// self/mat2 [.., m, k] x [.., k, n] -> out [.., m, n]; also checks the cube type.
Gemm check(emu::Phase1& p, const T& a, const T& b, const T& out, int8_t cube, int nd) {
    Gemm g;
    p.dtype_in(a, "self", kFloats);
    p.require(a.ndim == nd && b.ndim == nd && out.ndim == nd, "self, mat2 and out must be " + std::to_string(nd) + "-D");
    p.require(b.dtype == a.dtype && out.dtype == a.dtype, "self, mat2 and out must share a dtype");
    p.require(cube >= 0 && cube <= 4, "cubeMathType " + std::to_string(cube) + " is not 0..4");
    p.require(!(cube == 2 && a.dtype == DT_BF16), "cubeMathType 2 (USE_FP16) is not allowed with BFLOAT16");
    if (!p.ok()) return g;
    const int o = nd - 2;
    g.batch = nd == 3 ? a.dims[0] : 1;
    g.m = a.dims[o];
    g.k = a.dims[o + 1];
    g.n = b.dims[o + 1];
    p.require(b.dims[o] == g.k, "mat2's rows " + std::to_string(b.dims[o]) + " differ from self's columns " +
                                     std::to_string(g.k));
    if (nd == 3) p.require(b.dims[0] == g.batch, "self and mat2 have different batches (expand the batch of 1)");
    p.shape_is(out, "out", nd == 3 ? std::vector<int64_t>{g.batch, g.m, g.n} : std::vector<int64_t>{g.m, g.n});
    return g;
}

std::vector<double> product(const T& a, const T& b, const Gemm& g, int8_t cube) {
    std::vector<double> av = read(a), bv = read(b), c(static_cast<size_t>(g.batch * g.m * g.n), 0.0);
    for (double& v : av) v = operand(v, a.dtype, cube);
    for (double& v : bv) v = operand(v, b.dtype, cube);
    for (int64_t p = 0; p < g.batch; ++p)
        for (int64_t i = 0; i < g.m; ++i)
            for (int64_t j = 0; j < g.n; ++j) {
                double s = 0;
                for (int64_t k = 0; k < g.k; ++k)
                    s += av[size_t((p * g.m + i) * g.k + k)] * bv[size_t((p * g.k + k) * g.n + j)];
                c[size_t((p * g.m + i) * g.n + j)] = s;
            }
    return c;
}

aclnnStatus plain(emu::Phase1& p, const aclTensor* self, const aclTensor* mat2, aclTensor* out, int8_t cube, int nd,
                  uint64_t* workspaceSize, aclOpExecutor** executor) {
    const T a = p.tensor(self, "self"), b = p.tensor(mat2, "mat2"), c = p.tensor(out, "out");
    const Gemm g = check(p, a, b, c, cube, nd);
    return p.done(workspace_for(p.op(), c.numel()), workspaceSize, executor, [=] {
        write(c, product(a, b, g, cube));
        return std::string();
    });
}

aclnnStatus scaled(emu::Phase1& p, const aclTensor* self, const aclTensor* mat1, const aclTensor* mat2,
                   const aclScalar* beta, const aclScalar* alpha, aclTensor* out, int8_t cube, int nd,
                   uint64_t* workspaceSize, aclOpExecutor** executor) {
    const T s = p.tensor(self, "self"), a = p.tensor(mat1, nd == 3 ? "batch1" : "mat1"),
            b = p.tensor(mat2, nd == 3 ? "batch2" : "mat2"), c = p.tensor(out, "out");
    const double be = p.scalar(beta, "beta"), al = p.scalar(alpha, "alpha");
    const Gemm g = check(p, a, b, c, cube, nd);
    p.require(s.dtype == c.dtype, "self must have out's dtype");
    p.require(broadcastable(s.shape(), c.shape()), "self " + shape_text(s.shape()) + " does not broadcast to out " +
                                                       shape_text(c.shape()));
    return p.done(workspace_for(p.op(), c.numel()), workspaceSize, executor, [=] {
        std::vector<double> r = product(a, b, g, cube);
        const std::vector<double> sv = be != 0 ? read(s) : std::vector<double>();  // beta 0: self is not read
        for (size_t i = 0; i < r.size(); ++i)
            r[i] = al * r[i] + (be != 0 ? be * sv[size_t(broadcast_index(int64_t(i), c.shape(), s.shape()))] : 0.0);
        write(c, r);
        return std::string();
    });
}

}  // namespace

EMU_EXPORT aclnnStatus aclnnMmGetWorkspaceSize(const aclTensor* self, const aclTensor* mat2, aclTensor* out,
                                               int8_t cubeMathType, uint64_t* workspaceSize, aclOpExecutor** executor) {
    EMU_PHASE1(Mm);
    return plain(p, self, mat2, out, cubeMathType, 2, workspaceSize, executor);
}
EMU_PHASE2(Mm)

EMU_EXPORT aclnnStatus aclnnBatchMatMulGetWorkspaceSize(const aclTensor* self, const aclTensor* mat2, aclTensor* out,
                                                        int8_t cubeMathType, uint64_t* workspaceSize,
                                                        aclOpExecutor** executor) {
    EMU_PHASE1(BatchMatMul);
    return plain(p, self, mat2, out, cubeMathType, 3, workspaceSize, executor);
}
EMU_PHASE2(BatchMatMul)

EMU_EXPORT aclnnStatus aclnnAddmmGetWorkspaceSize(const aclTensor* self, const aclTensor* mat1, const aclTensor* mat2,
                                                  const aclScalar* beta, const aclScalar* alpha, aclTensor* out,
                                                  int8_t cubeMathType, uint64_t* workspaceSize,
                                                  aclOpExecutor** executor) {
    EMU_PHASE1(Addmm);
    return scaled(p, self, mat1, mat2, beta, alpha, out, cubeMathType, 2, workspaceSize, executor);
}
EMU_PHASE2(Addmm)

EMU_EXPORT aclnnStatus aclnnBaddbmmGetWorkspaceSize(const aclTensor* self, const aclTensor* batch1,
                                                    const aclTensor* batch2, const aclScalar* beta,
                                                    const aclScalar* alpha, aclTensor* out, int8_t cubeMathType,
                                                    uint64_t* workspaceSize, aclOpExecutor** executor) {
    EMU_PHASE1(Baddbmm);
    return scaled(p, self, batch1, batch2, beta, alpha, out, cubeMathType, 3, workspaceSize, executor);
}
EMU_PHASE2(Baddbmm)
