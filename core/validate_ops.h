// Each op's validation rule: validate_op(args, &device) checks every argument of a call
// (NULLs, ndim, shapes, dtypes, strides, aliasing, one device) before any implementation
// runs, and on success sets the device the call runs on. One overload per op of the spec
// (defined in validate_norms.cpp, validate_elementwise.cpp, validate_losses.cpp,
// validate_matmul.cpp); a spec op without one fails to link.
#pragma once

#include "op_spec.hpp"
#include "error.h"
#include "runtime.h"
#include "validate.h"

namespace opkit {

#define OPKIT_DECLARE_VALIDATE(name) opkit_status validate_op(const args::name& a, opkit_device* device);
OPKIT_FOR_EACH_OP(OPKIT_DECLARE_VALIDATE)
#undef OPKIT_DECLARE_VALIDATE

namespace validate {

// The tensors of a call, named as in the spec, in parameter order (NULLs included).
template <class Args>
struct CallTensors {
    Named items[16];
    int count = 0;
};

template <class Args>
CallTensors<Args> tensors_of(const Args& a) {
    CallTensors<Args> out;
    OpTraits<OpIdOf<Args>::value>::for_each(a, [&](ParamKind, const char* name, const auto& value) {
        using T = std::decay_t<decltype(value)>;
        if constexpr (std::is_same_v<T, const opkit_tensor*> || std::is_same_v<T, opkit_tensor*>)
            out.items[out.count++] = {value, name};
    });
    return out;
}

// Every non-NULL tensor of the call is on one device, and that device is usable.
template <class Args>
opkit_status same_device(const char* op, const Args& a, opkit_device* device) {
    const CallTensors<Args> t = tensors_of(a);
    return one_device(op, t.items, t.count, device);
}

// No output of the call overlaps another tensor of it, except as the identical view of an
// input listed in in_place. Outputs and inputs come from the spec's kinds (out, opt_out
// and inout are written; the rest are read), in parameter order.
template <class Args>
opkit_status no_overlap(const char* op, const Args& a, std::initializer_list<Alias> in_place = {}) {
    Named outputs[16], inputs[16];
    int n_outputs = 0, n_inputs = 0;
    OpTraits<OpIdOf<Args>::value>::for_each(a, [&](ParamKind kind, const char* name, const auto& value) {
        using T = std::decay_t<decltype(value)>;
        if constexpr (std::is_same_v<T, const opkit_tensor*> || std::is_same_v<T, opkit_tensor*>) {
            if (is_written(kind))
                outputs[n_outputs++] = {value, name};
            else
                inputs[n_inputs++] = {value, name};
        }
    });
    return no_overlap(op, outputs, n_outputs, inputs, n_inputs, in_place);
}

}  // namespace validate
}  // namespace opkit
