// What C++ code derives from the op spec (spec/ops.h): op ids and names, one struct per
// op holding a call's arguments by name, the function type of each op, calling an
// implementation with an argument struct, visiting the arguments with their kinds, and
// the schema strings behind opkit_op_schema(). libopkit, the GPU vendors and the tools
// include this header; nothing here is public API.
#pragma once

#include "opkit.h"
#include "ops.h"

#include <cstdint>
#include <type_traits>

namespace opkit {

enum class OpId : int32_t {
#define OPKIT_SPEC_ENUM_(name) name,
    OPKIT_FOR_EACH_OP(OPKIT_SPEC_ENUM_)
#undef OPKIT_SPEC_ENUM_
};

#define OPKIT_SPEC_COUNT_(name) +1
constexpr int32_t kOpCount = 0 OPKIT_FOR_EACH_OP(OPKIT_SPEC_COUNT_);
#undef OPKIT_SPEC_COUNT_

// "rms_norm_forward", ... indexed by OpId.
inline constexpr const char* kOpNames[kOpCount] = {
#define OPKIT_SPEC_NAME_(name) #name,
    OPKIT_FOR_EACH_OP(OPKIT_SPEC_NAME_)
#undef OPKIT_SPEC_NAME_
};

// "rms_norm_forward(in x, opt_in weight, f32 eps, ..., stream stream)": the op's
// parameters with their spec kinds, indexed by OpId.
#define OPKIT_SPEC_SCHEMA_SEP_in ", "
#define OPKIT_SPEC_SCHEMA_SEP_opt_in ", "
#define OPKIT_SPEC_SCHEMA_SEP_index ", "
#define OPKIT_SPEC_SCHEMA_SEP_out ", "
#define OPKIT_SPEC_SCHEMA_SEP_opt_out ", "
#define OPKIT_SPEC_SCHEMA_SEP_inout ", "
#define OPKIT_SPEC_SCHEMA_SEP_f32 ", "
#define OPKIT_SPEC_SCHEMA_SEP_i32 ", "
#define OPKIT_SPEC_SCHEMA_SEP_i64 ", "
#define OPKIT_SPEC_SCHEMA_SEP_stream ""
#define OPKIT_SPEC_SCHEMA_PARAM_(kind, n) #kind " " #n OPKIT_SPEC_SCHEMA_SEP_##kind
inline constexpr const char* kOpSchemas[kOpCount] = {
#define OPKIT_SPEC_SCHEMA_(name) #name "(" OPKIT_PARAMS_##name(OPKIT_SPEC_SCHEMA_PARAM_) ")",
    OPKIT_FOR_EACH_OP(OPKIT_SPEC_SCHEMA_)
#undef OPKIT_SPEC_SCHEMA_
};

enum class ParamKind : uint8_t { in, opt_in, index, out, opt_out, inout, f32, i32, i64, stream };

// Tensors the op writes (the host fallback copies these back; verification compares them).
constexpr bool is_written(ParamKind k) {
    return k == ParamKind::out || k == ParamKind::opt_out || k == ParamKind::inout;
}
constexpr bool is_tensor(ParamKind k) { return k <= ParamKind::inout; }
constexpr bool is_optional(ParamKind k) { return k == ParamKind::opt_in || k == ParamKind::opt_out; }

// The arguments of one call, by parameter name: args::softmax_forward{x, y, stream}.
namespace args {
#define OPKIT_SPEC_FIELD_(kind, n) OPKIT_KIND_TYPE_##kind n;
#define OPKIT_SPEC_STRUCT_(name) \
    struct name {                \
        OPKIT_PARAMS_##name(OPKIT_SPEC_FIELD_) \
    };
OPKIT_FOR_EACH_OP(OPKIT_SPEC_STRUCT_)
#undef OPKIT_SPEC_STRUCT_
#undef OPKIT_SPEC_FIELD_
}  // namespace args

// Per op: its argument struct, the C function type every implementation exports (the
// public entry point and each vendor's opkit_vendor_<op>), calling such a function with
// an argument struct, and visiting the arguments.
template <OpId Id> struct OpTraits;
// The op an argument struct belongs to: OpIdOf<args::matmul>::value == OpId::matmul.
template <class A> struct OpIdOf;

#define OPKIT_SPEC_TYPE_(kind, n) OPKIT_KIND_TYPE_##kind OPKIT_PARAM_SEP_##kind
#define OPKIT_SPEC_USE_(kind, n) a.n OPKIT_PARAM_SEP_##kind
#define OPKIT_SPEC_VISIT_(kind, n) f(ParamKind::kind, #n, a.n);
#define OPKIT_SPEC_TRAITS_(name)                                                        \
    template <> struct OpTraits<OpId::name> {                                           \
        using Args = args::name;                                                        \
        using Fn = opkit_status (*)(OPKIT_PARAMS_##name(OPKIT_SPEC_TYPE_));             \
        static constexpr const char* kName = #name;                                     \
        static opkit_status call(Fn fn, const Args& a) {                                \
            return fn(OPKIT_PARAMS_##name(OPKIT_SPEC_USE_));                            \
        }                                                                               \
        template <class A, class F> static void for_each(A& a, F&& f) {                 \
            OPKIT_PARAMS_##name(OPKIT_SPEC_VISIT_)                                      \
        }                                                                               \
    };                                                                                  \
    template <> struct OpIdOf<args::name> { static constexpr OpId value = OpId::name; }; \
    /* opkit.h's prototype has exactly the spec's parameter types, in order. */         \
    static_assert(std::is_same_v<OpTraits<OpId::name>::Fn, decltype(&::opkit_##name)>, \
                  "opkit_" #name " in opkit.h differs from spec/ops.h");
OPKIT_FOR_EACH_OP(OPKIT_SPEC_TRAITS_)
#undef OPKIT_SPEC_TRAITS_
#undef OPKIT_SPEC_VISIT_
#undef OPKIT_SPEC_USE_
#undef OPKIT_SPEC_TYPE_

template <OpId Id> using OpArgs = typename OpTraits<Id>::Args;
template <OpId Id> using OpFn = typename OpTraits<Id>::Fn;

}  // namespace opkit

// Defines `extern "C" opkit_status PREFIX<op>(<the op's parameters>)` forwarding to
// `BODY_FN(opkit::args::<op>{...})`: how an implementation exports an op without writing
// its parameter list (libopkit's entry points, the GPU vendors' opkit_vendor_<op>).
// ATTRS goes before the return type (visibility).
#define OPKIT_SPEC_DEFINE_ENTRY(ATTRS, PREFIX, name, BODY_FN)            \
    extern "C" ATTRS opkit_status PREFIX##name(OPKIT_PARAM_DECLS(name)) { \
        return BODY_FN(opkit::args::name{OPKIT_PARAM_NAMES(name)});      \
    }
