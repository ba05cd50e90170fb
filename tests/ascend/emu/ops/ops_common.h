// What the emulated aclnn ops share: the export macros, the phase-2 entry every op has,
// and small float64 helpers. Each op's GetWorkspaceSize checks its arguments the way its
// doc states (ascend-audit.md §E; ascend.md §4), builds a kernel that computes the result
// in float64 from the inputs as they are when the stream runs it, and rounds once into
// the outputs. Inputs are read in full before any output is written, so outputs that
// alias inputs behave like the op computed into a temporary.
#pragma once

#include "../core.h"

#include <cmath>
#include <string>
#include <vector>

#define EMU_EXPORT extern "C" __attribute__((visibility("default")))
// The second phase, identical for every op (audit:209-210).
#define EMU_PHASE2(Name)                                                                                   \
    EMU_EXPORT aclnnStatus aclnn##Name(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,   \
                                       aclrtStream stream) {                                               \
        return emu::phase2(#Name, workspace, workspaceSize, executor, stream,                              \
                           reinterpret_cast<const void*>(&aclnn##Name));                                   \
    }
#define EMU_PHASE1(Name) emu::Phase1 p(#Name, reinterpret_cast<const void*>(&aclnn##Name##GetWorkspaceSize))

namespace emu {

constexpr std::initializer_list<int> kFloats = {DT_FLOAT, DT_FLOAT16, DT_BF16};

inline std::string shape_text(const std::vector<int64_t>& s) {
    std::string r = "[";
    for (size_t i = 0; i < s.size(); ++i) r += (i ? "," : "") + std::to_string(s[i]);
    return r + "]";
}

inline int64_t product(const std::vector<int64_t>& s, size_t from = 0, size_t to = SIZE_MAX) {
    int64_t n = 1;
    for (size_t i = from; i < s.size() && i < to; ++i) n *= s[i];
    return n;
}

// A dimension argument in [-ndim, ndim), normalized; -1 when out of range.
inline int axis(int64_t dim, int ndim) {
    if (dim < -ndim || dim >= ndim) return -1;
    return int(dim < 0 ? dim + ndim : dim);
}

// Activations and their derivatives: 0 silu, 1 gelu erf, 2 gelu tanh.
inline void activation(int act, double a, double* v, double* d) {
    if (act == 0) {
        const double s = 1.0 / (1.0 + std::exp(-a));
        *v = a * s;
        *d = s * (1 + a * (1 - s));
    } else if (act == 1) {
        const double cdf = 0.5 * (1 + std::erf(a / std::sqrt(2.0)));
        *v = a * cdf;
        *d = cdf + a * std::exp(-0.5 * a * a) / std::sqrt(2 * M_PI);
    } else {
        const double k = std::sqrt(2 / M_PI), u = k * (a + 0.044715 * a * a * a), t = std::tanh(u);
        *v = 0.5 * a * (1 + t);
        *d = 0.5 * (1 + t) + 0.5 * a * (1 - t * t) * k * (1 + 3 * 0.044715 * a * a);
    }
}

// Index of element `flat` of `out_shape` in a tensor of `shape` broadcast to it
// (numpy rules, aligned at the last dimension).
inline int64_t broadcast_index(int64_t flat, const std::vector<int64_t>& out_shape, const std::vector<int64_t>& shape) {
    int64_t idx = 0, stride = 1;
    const size_t off = out_shape.size() - shape.size();
    for (size_t d = out_shape.size(); d-- > 0;) {
        const int64_t c = flat % out_shape[d];
        flat /= out_shape[d];
        if (d >= off) {
            const int64_t size = shape[d - off];
            idx += (size == 1 ? 0 : c) * stride;
            stride *= size;
        }
    }
    return idx;
}

inline bool broadcastable(const std::vector<int64_t>& shape, const std::vector<int64_t>& to) {
    if (shape.size() > to.size()) return false;
    const size_t off = to.size() - shape.size();
    for (size_t d = 0; d < shape.size(); ++d)
        if (shape[d] != 1 && shape[d] != to[d + off]) return false;
    return true;
}

}  // namespace emu
