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

// Every non-NULL tensor of the call is on one device, and that device is usable. The
// common case, every tensor on the CPU, is settled inline (the CPU is always usable and
// its id is ignored); anything else goes to one_device, which also writes the messages.
template <class Args>
opkit_status same_device(const char* op, const Args& a, opkit_device* device) {
    bool all_cpu = true;
    OpTraits<OpIdOf<Args>::value>::for_each(a, [&](ParamKind, const char*, const auto& value) {
        using T = std::decay_t<decltype(value)>;
        if constexpr (std::is_same_v<T, const opkit_tensor*> || std::is_same_v<T, opkit_tensor*>)
            all_cpu = all_cpu && (!value || value->device.device_type == OPKIT_DEVICE_CPU);
    });
    if (__builtin_expect(all_cpu, 1)) {
        *device = opkit_device{OPKIT_DEVICE_CPU, 0};
        return OPKIT_OK;
    }
    const CallTensors<Args> t = tensors_of(a);
    return one_device(op, t.items, t.count, device);
}

// Byte span [lo, hi) of a tensor that passed validation (empty when it has no element).
// Called on validated tensors only, so nothing here can overflow.
inline void span_of_valid(const opkit_tensor* t, uintptr_t* lo, uintptr_t* hi) {
    int64_t last = 0, contiguous = 1;
    for (int32_t i = t->ndim - 1; i >= 0; --i) {
        const int64_t n = t->shape[i];
        if (n == 0) {
            *lo = *hi = 0;
            return;
        }
        last += (n - 1) * (t->strides ? t->strides[i] : contiguous);
        contiguous *= n;
    }
    *lo = reinterpret_cast<uintptr_t>(base_ptr(t));
    *hi = *lo + uintptr_t((last + 1) * int64_t(dtype_size(dtype_of(t))));
}

// No output of the call overlaps another tensor of it, except as the identical view of an
// input listed in in_place. Outputs and inputs come from the spec's kinds (out, opt_out
// and inout are written; the rest are read), in parameter order.
//
// Inline, the common case: every output dense (strides NULL: no element shares memory)
// and no two byte spans of an output and another tensor intersecting. Anything else
// (an in-place call, a strided output, interleaved views) goes to the exact check, which
// decides it and writes the message.
template <class Args>
opkit_status no_overlap(const char* op, const Args& a, std::initializer_list<Alias> in_place = {}) {
    Named outputs[16], inputs[16];
    uintptr_t lo[16], hi[16];  // spans of outputs[0..n_outputs) then of inputs
    int n_outputs = 0, n_inputs = 0, n_spans = 0;
    bool simple = true;
    OpTraits<OpIdOf<Args>::value>::for_each(a, [&](ParamKind kind, const char* name, const auto& value) {
        using T = std::decay_t<decltype(value)>;
        if constexpr (std::is_same_v<T, const opkit_tensor*> || std::is_same_v<T, opkit_tensor*>) {
            if (is_written(kind)) {
                outputs[n_outputs++] = {value, name};
                simple = simple && (!value || !value->strides);
            } else {
                inputs[n_inputs++] = {value, name};
            }
        }
    });
    if (__builtin_expect(simple, 1)) {
        // spans in one array: the outputs first, then the inputs (NULL tensors as empty)
        for (const Named& n : Range{outputs, n_outputs}) {
            if (n.t) span_of_valid(n.t, &lo[n_spans], &hi[n_spans]);
            else lo[n_spans] = hi[n_spans] = 0;
            ++n_spans;
        }
        for (const Named& n : Range{inputs, n_inputs}) {
            if (n.t) span_of_valid(n.t, &lo[n_spans], &hi[n_spans]);
            else lo[n_spans] = hi[n_spans] = 0;
            ++n_spans;
        }
        bool disjoint = true;
        for (int o = 0; o < n_outputs; ++o)
            for (int j = 0; j < n_spans; ++j)
                if (j != o && lo[o] != hi[o] && lo[j] != hi[j] && lo[o] < hi[j] && lo[j] < hi[o]) disjoint = false;
        if (__builtin_expect(disjoint, 1)) return OPKIT_OK;
    }
    return no_overlap(op, outputs, n_outputs, inputs, n_inputs, in_place);
}

}  // namespace validate
}  // namespace opkit
