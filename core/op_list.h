// The v1 op catalogue in one place. Everything that must enumerate the ops (the op
// table, the loader's symbol resolution, opkit_op_name, the tools) expands this list,
// so adding an op is one line here plus its implementation.
#pragma once

#include "opkit.h"

#include <cstdint>

// X(name): the public function is opkit_<name>, the vendor symbol opkit_vendor_<name>.
#define OPKIT_FOR_EACH_OP(X) \
    X(rms_norm_forward)      \
    X(rms_norm_backward)     \
    X(layer_norm_forward)    \
    X(layer_norm_backward)   \
    X(softmax_forward)       \
    X(softmax_backward)      \
    X(swiglu_forward)        \
    X(swiglu_backward)       \
    X(geglu_forward)         \
    X(geglu_backward)        \
    X(rope_forward)          \
    X(rope_backward)         \
    X(cross_entropy_forward) \
    X(cross_entropy_backward)\
    X(embedding_forward)     \
    X(embedding_backward)    \
    X(matmul)                \
    X(axpy)

namespace opkit {

enum class OpId : int32_t {
#define OPKIT_OP_ENUM(name) name,
    OPKIT_FOR_EACH_OP(OPKIT_OP_ENUM)
#undef OPKIT_OP_ENUM
};

#define OPKIT_OP_COUNT_ONE(name) +1
constexpr int32_t kOpCount = 0 OPKIT_FOR_EACH_OP(OPKIT_OP_COUNT_ONE);
#undef OPKIT_OP_COUNT_ONE

// "rms_norm_forward", ... indexed by OpId.
extern const char* const kOpNames[kOpCount];

// The function type of each op, identical for the public entry point, the CPU default
// and a vendor's symbol: OpFn<OpId::matmul> is decltype(opkit_matmul).
template <OpId Id> struct OpSignature;
#define OPKIT_OP_SIGNATURE(name) \
    template <> struct OpSignature<OpId::name> { using type = decltype(::opkit_##name); };
OPKIT_FOR_EACH_OP(OPKIT_OP_SIGNATURE)
#undef OPKIT_OP_SIGNATURE
template <OpId Id> using OpFn = typename OpSignature<Id>::type*;

}  // namespace opkit
