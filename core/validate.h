// Validation building blocks. Every public op validates all of its arguments with
// these before any implementation runs, so CPU kernels and vendors see only
// well-formed calls. Each check names the op, the argument and the offending value in
// the thread's error message.
//
// Cheap on the hot path (issue 14 item 5): each check is an inline test that accepts the
// valid case in a few instructions, and only a call it does not accept goes to the
// out-of-line *_checked function, which decides again, exactly, and writes the message.
// An inline test may say "not sure" (returns false) for a valid tensor, never "fine" for
// an invalid one, so every check and every message are the checked function's.
#pragma once

#include "tensor.h"

#include <initializer_list>

namespace opkit::validate {

// The exact checks with their messages (validate.cpp).
opkit_status well_formed_checked(const char* op, const opkit_tensor* t, const char* name);
opkit_status required_checked(const char* op, const opkit_tensor* t, const char* name);
opkit_status float_dtype_checked(const char* op, const opkit_tensor* t, const char* name, DType* out);
opkit_status same_dtype_checked(const char* op, const opkit_tensor* t, const char* name, DType want,
                                const char* ref_name);
opkit_status ndim_checked(const char* op, const opkit_tensor* t, const char* name, int32_t want);
opkit_status min_ndim_checked(const char* op, const opkit_tensor* t, const char* name, int32_t want);
opkit_status shape_checked(const char* op, const opkit_tensor* t, const char* name,
                           std::initializer_list<int64_t> expect);
opkit_status same_shape_checked(const char* op, const opkit_tensor* t, const char* name,
                                const opkit_tensor* ref, const char* ref_name);

// True only when well_formed_checked would accept t: ndim in [0, kMaxDims], a shape,
// one lane, a known element size, no negative extent or stride, no 64-bit overflow of the
// element count, the last offset or the byte size, data present and element-aligned, and
// the innermost stride 1. Also gives t's byte span [*lo, *hi) (empty when it has no
// element), which the overlap check reuses.
inline bool accepts(const opkit_tensor* t, uintptr_t* lo, uintptr_t* hi) {
    const int32_t nd = t->ndim;
    if (uint32_t(nd) > uint32_t(kMaxDims) || t->dtype.lanes != 1) return false;
    const int64_t elem = int64_t(dtype_size(dtype_of(t->dtype)));
    const int64_t* shape = t->shape;
    if (elem == 0 || (nd > 0 && !shape)) return false;
    int64_t count = 1, last = 0;
    if (!t->strides) {
        for (int32_t i = 0; i < nd; ++i)
            if (shape[i] < 0 || __builtin_mul_overflow(count, shape[i], &count)) return false;
        last = count - 1;
    } else {
        const int64_t* st = t->strides;
        if (nd > 0 && shape[nd - 1] > 1 && st[nd - 1] != 1) return false;
        for (int32_t i = 0; i < nd; ++i) {
            const int64_t n = shape[i], s = st[i];
            int64_t term;
            if (n < 0 || s < 0 || __builtin_mul_overflow(count, n, &count)) return false;
            if (n > 0 && (__builtin_mul_overflow(n - 1, s, &term) || __builtin_add_overflow(last, term, &last)))
                return false;
        }
    }
    if (t->byte_offset > uint64_t(INT64_MAX)) return false;
    if (count == 0) {
        *lo = *hi = 0;
        return true;
    }
    int64_t bytes;
    uintptr_t end;
    if (!t->data || __builtin_mul_overflow(last + 1, elem, &bytes) ||
        __builtin_add_overflow(bytes, int64_t(t->byte_offset), &bytes) ||
        __builtin_add_overflow(reinterpret_cast<uintptr_t>(t->data), uintptr_t(bytes), &end))
        return false;
    const uintptr_t first = reinterpret_cast<uintptr_t>(t->data) + uintptr_t(t->byte_offset);
    // Element sizes are 2, 4 or 8 (dtype_size): a mask, not a 64-bit division (20-40
    // cycles, the single most expensive instruction of a validated call).
    if ((first & uintptr_t(elem - 1)) != 0) return false;
    *lo = first;
    *hi = end;
    return true;
}

// ndim/shape/strides/data are coherent, sizes don't overflow, the innermost dimension is
// contiguous and no stride is negative. `t` must not be NULL (use required() first).
inline opkit_status well_formed(const char* op, const opkit_tensor* t, const char* name) {
    uintptr_t lo, hi;
    return __builtin_expect(accepts(t, &lo, &hi), 1) ? OPKIT_OK : well_formed_checked(op, t, name);
}

inline opkit_status required(const char* op, const opkit_tensor* t, const char* name) {
    uintptr_t lo, hi;
    return __builtin_expect(t && accepts(t, &lo, &hi), 1) ? OPKIT_OK : required_checked(op, t, name);
}

// Float tensor (f32/f16/bf16) -> its dtype; anything else is UNSUPPORTED.
inline opkit_status float_dtype(const char* op, const opkit_tensor* t, const char* name, DType* out) {
    const DType d = dtype_of(t);
    if (__builtin_expect(is_float(d), 1)) {
        *out = d;
        return OPKIT_OK;
    }
    return float_dtype_checked(op, t, name, out);
}
// `t` has dtype `want` (the call's float dtype): INVALID_ARGUMENT otherwise.
inline opkit_status same_dtype(const char* op, const opkit_tensor* t, const char* name, DType want,
                               const char* ref_name) {
    return __builtin_expect(dtype_of(t) == want, 1) ? OPKIT_OK : same_dtype_checked(op, t, name, want, ref_name);
}
opkit_status fp32(const char* op, const opkit_tensor* t, const char* name);
opkit_status index_dtype(const char* op, const opkit_tensor* t, const char* name);

inline opkit_status ndim(const char* op, const opkit_tensor* t, const char* name, int32_t want) {
    return __builtin_expect(t->ndim == want, 1) ? OPKIT_OK : ndim_checked(op, t, name, want);
}
inline opkit_status min_ndim(const char* op, const opkit_tensor* t, const char* name, int32_t want) {
    return __builtin_expect(t->ndim >= want, 1) ? OPKIT_OK : min_ndim_checked(op, t, name, want);
}
// shape == expect (ndim entries).
inline opkit_status shape(const char* op, const opkit_tensor* t, const char* name,
                          std::initializer_list<int64_t> expect) {
    bool ok = t->ndim == int32_t(expect.size());
    int32_t i = 0;
    for (int64_t e : expect) ok = ok && t->shape[i++] == e;
    return __builtin_expect(ok, 1) ? OPKIT_OK : shape_checked(op, t, name, expect);
}
inline opkit_status same_shape(const char* op, const opkit_tensor* t, const char* name,
                               const opkit_tensor* ref, const char* ref_name) {
    bool ok = t->ndim == ref->ndim;
    for (int32_t i = 0; ok && i < t->ndim; ++i) ok = t->shape[i] == ref->shape[i];
    return __builtin_expect(ok, 1) ? OPKIT_OK : same_shape_checked(op, t, name, ref, ref_name);
}
// 1-D [n] statistics vector.
inline opkit_status vector_of(const char* op, const opkit_tensor* t, const char* name, int64_t n) {
    return shape(op, t, name, {n});
}

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
