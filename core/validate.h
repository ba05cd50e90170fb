// Validation building blocks. Every public op validates all of its arguments with
// these before any implementation runs, so CPU kernels and vendors see only
// well-formed calls. Each check names the op, the argument and the offending value in
// the thread's error message.
#pragma once

#include "tensor.h"

#include <initializer_list>

namespace opkit::validate {

// ndim/shape/strides/data are coherent, sizes don't overflow, the innermost dimension is
// contiguous and no stride is negative. `t` must not be NULL (use required() first).
opkit_status well_formed(const char* op, const opkit_tensor* t, const char* name);

opkit_status required(const char* op, const opkit_tensor* t, const char* name);

// Float tensor (f32/f16/bf16) -> its dtype; anything else is UNSUPPORTED.
opkit_status float_dtype(const char* op, const opkit_tensor* t, const char* name, DType* out);
// `t` has dtype `want` (the call's float dtype): INVALID_ARGUMENT otherwise.
opkit_status same_dtype(const char* op, const opkit_tensor* t, const char* name, DType want,
                        const char* ref_name);
opkit_status fp32(const char* op, const opkit_tensor* t, const char* name);
opkit_status index_dtype(const char* op, const opkit_tensor* t, const char* name);

opkit_status ndim(const char* op, const opkit_tensor* t, const char* name, int32_t want);
opkit_status min_ndim(const char* op, const opkit_tensor* t, const char* name, int32_t want);
// shape == expect (ndim entries).
opkit_status shape(const char* op, const opkit_tensor* t, const char* name,
                   std::initializer_list<int64_t> expect);
opkit_status same_shape(const char* op, const opkit_tensor* t, const char* name,
                        const opkit_tensor* ref, const char* ref_name);
// 1-D [n] statistics vector.
opkit_status vector_of(const char* op, const opkit_tensor* t, const char* name, int64_t n);

// All non-NULL tensors are on one device, and a ready vendor serves it (CPU always).
struct Named {
    const opkit_tensor* t;
    const char* name;
};
opkit_status one_device(const char* op, const Named* tensors, int count, opkit_device* out);
inline opkit_status one_device(const char* op, std::initializer_list<Named> tensors, opkit_device* out) {
    return one_device(op, tensors.begin(), int(tensors.size()), out);
}
// The device type is served and the id is in range.
opkit_status device_usable(const char* op, opkit_device device);

// Outputs may not overlap any other tensor of the call (nor themselves), except that an
// output may be the identical view of an input listed in `in_place` as {output, input}.
struct Alias {
    const opkit_tensor* output;
    const opkit_tensor* input;
};
opkit_status no_overlap(const char* op, const Named* outputs, int n_outputs, const Named* inputs, int n_inputs,
                        std::initializer_list<Alias> in_place = {});
inline opkit_status no_overlap(const char* op, std::initializer_list<Named> outputs,
                               std::initializer_list<Named> inputs, std::initializer_list<Alias> in_place = {}) {
    return no_overlap(op, outputs.begin(), int(outputs.size()), inputs.begin(), int(inputs.size()), in_place);
}

// A pointer and a count, iterable with a range for.
struct Range {
    const Named* first;
    int count;
    const Named* begin() const { return first; }
    const Named* end() const { return first + count; }
};

// "[3, 4097]"
const char* shape_string(const opkit_tensor* t);

}  // namespace opkit::validate
