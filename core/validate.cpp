#include "validate.h"

#include "error.h"
#include "runtime.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <vector>

namespace opkit::validate {
namespace {

bool mul_overflows(int64_t a, int64_t b, int64_t* out) { return __builtin_mul_overflow(a, b, out); }

struct Span {
    uintptr_t lo = 0, hi = 0;  // [lo, hi) bytes; empty when lo == hi
};

Span span_of(const opkit_tensor* t) {
    Span s;
    const int64_t elem = int64_t(dtype_size(dtype_of(t)));
    int64_t last = 0, contiguous = 1;
    for (int32_t i = t->ndim - 1; i >= 0; --i) {
        const int64_t n = t->shape[i];
        if (n == 0) return s;  // no elements: touches no memory
        const int64_t st = t->strides ? t->strides[i] : contiguous;
        last += (n - 1) * st;
        contiguous *= n;
    }
    s.lo = reinterpret_cast<uintptr_t>(base_ptr(t));
    s.hi = s.lo + uintptr_t((last + 1) * elem);
    return s;
}

bool identical_view(const opkit_tensor* a, const opkit_tensor* b) {
    if (base_ptr(a) != base_ptr(b) || a->ndim != b->ndim) return false;
    if (dtype_of(a) != dtype_of(b)) return false;
    int64_t sa[kMaxDims], sb[kMaxDims];
    strides_of(a, sa);
    strides_of(b, sb);
    for (int32_t i = 0; i < a->ndim; ++i) {
        if (a->shape[i] != b->shape[i]) return false;
        if (a->shape[i] > 1 && sa[i] != sb[i]) return false;
    }
    return true;
}

// Byte ranges of every contiguous row of t.
void row_ranges(const opkit_tensor* t, std::vector<std::pair<uintptr_t, uintptr_t>>* out, int tag) {
    RowView v(t);
    const uintptr_t len = uintptr_t(v.n()) * dtype_size(v.dtype());
    for (int64_t r = 0; r < v.rows(); ++r) {
        const uintptr_t lo = reinterpret_cast<uintptr_t>(v.row(r));
        // the tag rides in the low bit of the doubled start so sorting keeps it stable
        out->push_back({lo, (lo + len) * 2 + uintptr_t(tag)});
    }
}

// Exact test for two strided tensors whose overall spans intersect: compare their rows.
// Only reached for interleaved layouts (e.g. the two halves of a fused [rows, 2N]
// tensor), so the cost is off the common path; very large cases are refused.
bool rows_overlap(const opkit_tensor* a, const opkit_tensor* b, bool* too_big) {
    const int64_t ra = row_count(a), rb = row_count(b);
    if (ra + rb > (int64_t(1) << 22)) {
        *too_big = true;
        return true;
    }
    std::vector<std::pair<uintptr_t, uintptr_t>> rows;
    rows.reserve(size_t(ra + rb));
    row_ranges(a, &rows, 0);
    row_ranges(b, &rows, 1);
    std::sort(rows.begin(), rows.end());
    // Sweep: track the furthest end seen for each tensor.
    uintptr_t end_of[2] = {0, 0};
    for (const auto& r : rows) {
        const int tag = int(r.second & 1);
        const uintptr_t hi = r.second / 2;
        if (end_of[1 - tag] > r.first) return true;
        end_of[tag] = std::max(end_of[tag], hi);
    }
    return false;
}

// No two elements of t share an address (needed for outputs: a broadcast stride of 0
// would make threads race on one element).
bool self_overlapping(const opkit_tensor* t) {
    if (!t->strides) return false;  // contiguous
    for (int32_t i = 0; i < t->ndim; ++i)
        if (t->shape[i] == 0) return false;  // no element (the other strides may be anything)
    std::pair<int64_t, int64_t> dims[kMaxDims];  // {stride, shape}
    int32_t n = 0;
    for (int32_t i = 0; i < t->ndim; ++i)
        if (t->shape[i] > 1) dims[n++] = {t->strides[i], t->shape[i]};
    std::sort(dims, dims + n);
    int64_t extent = 0;  // highest offset reachable by the dimensions seen so far
    for (int32_t i = 0; i < n; ++i) {
        if (dims[i].first <= extent) return true;
        extent += (dims[i].second - 1) * dims[i].first;
    }
    return false;
}

}  // namespace

const char* shape_string(const opkit_tensor* t) {
    static thread_local char bufs[4][160];
    static thread_local int next = 0;
    char* b = bufs[next++ & 3];
    size_t off = 0;
    off += snprintf(b + off, 160 - off, "[");
    for (int32_t i = 0; i < t->ndim && i < kMaxDims && off < 140; ++i)
        off += snprintf(b + off, 160 - off, i ? ", %" PRId64 : "%" PRId64, t->shape[i]);
    snprintf(b + off, 160 - off, "]");
    return b;
}

opkit_status required_checked(const char* op, const opkit_tensor* t, const char* name) {
    if (!t) return fail(OPKIT_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", op, name);
    return well_formed_checked(op, t, name);
}

opkit_status well_formed_checked(const char* op, const opkit_tensor* t, const char* name) {
    if (t->ndim < 0)
        return fail(OPKIT_ERROR_INVALID_ARGUMENT, "%s: %s has negative ndim %d", op, name, int(t->ndim));
    if (t->ndim > kMaxDims)
        return fail(OPKIT_ERROR_UNSUPPORTED, "%s: %s has %d dimensions; at most %d are supported",
                    op, name, int(t->ndim), int(kMaxDims));
    if (t->ndim > 0 && !t->shape)
        return fail(OPKIT_ERROR_INVALID_ARGUMENT, "%s: %s has ndim %d but shape is NULL", op,
                    name, int(t->ndim));
    if (t->dtype.lanes != 1)
        return fail(OPKIT_ERROR_UNSUPPORTED, "%s: %s has dtype %s; vector lanes are not supported",
                    op, name, dtype_name(t->dtype));
    // One pass from the innermost dimension: element count, the last element's offset
    // (both overflow-checked) and the implied contiguous strides.
    int64_t count = 1, last = 0, contiguous = 1, term = 0;
    bool overflow = false;
    for (int32_t i = t->ndim - 1; i >= 0; --i) {
        const int64_t n = t->shape[i];
        if (n < 0)
            return fail(OPKIT_ERROR_INVALID_ARGUMENT, "%s: %s has negative dimension %d (%" PRId64 ")",
                        op, name, int(i), n);
        overflow = overflow || mul_overflows(count, n, &count);
        const int64_t st = t->strides ? t->strides[i] : contiguous;
        if (st < 0)
            return fail(OPKIT_ERROR_UNSUPPORTED, "%s: %s has negative stride %" PRId64
                        " in dimension %d; only non-negative strides are supported", op, name, st, int(i));
        if (n > 0) overflow = overflow || mul_overflows(n - 1, st, &term) || __builtin_add_overflow(last, term, &last);
        if (!overflow) contiguous *= n;
    }
    if (overflow) {
        // Tell apart the two ways to overflow for the message.
        int64_t c = 1;
        bool elements = false;
        for (int32_t i = 0; i < t->ndim; ++i) elements = elements || mul_overflows(c, t->shape[i], &c);
        return fail(OPKIT_ERROR_INVALID_ARGUMENT, elements
                        ? "%s: %s shape %s has more elements than fit in 64 bits"
                        : "%s: %s shape %s with its strides reaches past 64-bit offsets",
                    op, name, shape_string(t));
    }
    const int64_t elem = int64_t(dtype_size(dtype_of(t)));
    if (t->byte_offset > uint64_t(INT64_MAX))
        return fail(OPKIT_ERROR_INVALID_ARGUMENT, "%s: %s has byte_offset %" PRIu64 ", beyond 2^63 - 1",
                    op, name, t->byte_offset);
    int64_t bytes = 0;
    if (count > 0 && elem > 0 &&
        (mul_overflows(last + 1, elem, &bytes) || __builtin_add_overflow(bytes, int64_t(t->byte_offset), &bytes)))
        return fail(OPKIT_ERROR_INVALID_ARGUMENT, "%s: %s byte size overflows 64 bits", op, name);
    if (count > 0 && !t->data)
        return fail(OPKIT_ERROR_INVALID_ARGUMENT, "%s: %s has %" PRId64 " elements but data is NULL",
                    op, name, count);
    uintptr_t end = 0;  // one past the view's last byte
    if (count > 0 && __builtin_add_overflow(reinterpret_cast<uintptr_t>(t->data), uintptr_t(bytes), &end))
        return fail(OPKIT_ERROR_INVALID_ARGUMENT,
                    "%s: %s at data %p with byte_offset %" PRIu64 " and shape %s reaches past the "
                    "end of the address space", op, name, t->data, t->byte_offset, shape_string(t));
    // Elements must sit at multiples of their size (as DLPack producers guarantee): the
    // CPU kernels load them as typed values and devices cannot load misaligned ones.
    const uintptr_t first = reinterpret_cast<uintptr_t>(t->data) + uintptr_t(t->byte_offset);
    if (count > 0 && elem > 1 && first % uintptr_t(elem) != 0)
        return fail(OPKIT_ERROR_UNSUPPORTED,
                    "%s: %s starts at address %p (data + byte_offset), which is not a multiple "
                    "of its %d-byte element size; tensors must be element-aligned",
                    op, name, reinterpret_cast<void*>(first), int(elem));
    if (t->ndim > 0 && t->strides && t->shape[t->ndim - 1] > 1 && t->strides[t->ndim - 1] != 1)
        return fail(OPKIT_ERROR_UNSUPPORTED,
                    "%s: %s has innermost stride %" PRId64 "; the innermost dimension must be "
                    "contiguous (stride 1)",
                    op, name, t->strides[t->ndim - 1]);
    return OPKIT_OK;
}

opkit_status float_dtype_checked(const char* op, const opkit_tensor* t, const char* name, DType* out) {
    const DType d = dtype_of(t);
    if (!is_float(d))
        return fail(OPKIT_ERROR_UNSUPPORTED, "%s: %s has dtype %s; supported: f32, f16, bf16", op,
                    name, dtype_name(t->dtype));
    *out = d;
    return OPKIT_OK;
}

opkit_status same_dtype_checked(const char* op, const opkit_tensor* t, const char* name, DType want,
                        const char* ref_name) {
    const DType d = dtype_of(t);
    if (d == want) return OPKIT_OK;
    if (!is_float(d))
        return fail(OPKIT_ERROR_UNSUPPORTED, "%s: %s has dtype %s; supported: f32, f16, bf16", op,
                    name, dtype_name(t->dtype));
    return fail(OPKIT_ERROR_INVALID_ARGUMENT, "%s: %s has dtype %s but %s has %s; they must match",
                op, name, dtype_name(t->dtype), ref_name,
                want == DType::f32 ? "f32" : want == DType::f16 ? "f16" : "bf16");
}

opkit_status fp32(const char* op, const opkit_tensor* t, const char* name) {
    if (dtype_of(t) == DType::f32) return OPKIT_OK;
    const DType d = dtype_of(t);
    return fail(is_float(d) ? OPKIT_ERROR_INVALID_ARGUMENT : OPKIT_ERROR_UNSUPPORTED,
                "%s: %s has dtype %s; it must be f32", op, name, dtype_name(t->dtype));
}

opkit_status index_dtype(const char* op, const opkit_tensor* t, const char* name) {
    const DType d = dtype_of(t);
    if (d == DType::i32 || d == DType::i64) return OPKIT_OK;
    return fail(OPKIT_ERROR_UNSUPPORTED, "%s: %s has dtype %s; supported: int32, int64", op, name,
                dtype_name(t->dtype));
}

opkit_status ndim_checked(const char* op, const opkit_tensor* t, const char* name, int32_t want) {
    if (t->ndim == want) return OPKIT_OK;
    return fail(OPKIT_ERROR_INVALID_ARGUMENT, "%s: %s has %d dimensions %s; expected %d", op, name,
                int(t->ndim), shape_string(t), int(want));
}

opkit_status min_ndim_checked(const char* op, const opkit_tensor* t, const char* name, int32_t want) {
    if (t->ndim >= want) return OPKIT_OK;
    return fail(OPKIT_ERROR_INVALID_ARGUMENT, "%s: %s has %d dimensions; expected at least %d",
                op, name, int(t->ndim), int(want));
}

opkit_status shape_checked(const char* op, const opkit_tensor* t, const char* name,
                   std::initializer_list<int64_t> expect) {
    bool ok = t->ndim == int32_t(expect.size());
    int32_t i = 0;
    for (int64_t e : expect) ok = ok && t->shape[i++] == e;
    if (ok) return OPKIT_OK;
    char want[160];
    size_t off = snprintf(want, sizeof want, "[");
    i = 0;
    for (int64_t e : expect)
        if (off < 140) off += snprintf(want + off, sizeof want - off, i++ ? ", %" PRId64 : "%" PRId64, e);
    snprintf(want + off, sizeof want - off, "]");
    return fail(OPKIT_ERROR_INVALID_ARGUMENT, "%s: %s has shape %s; expected %s", op, name,
                shape_string(t), want);
}

opkit_status same_shape_checked(const char* op, const opkit_tensor* t, const char* name,
                        const opkit_tensor* ref, const char* ref_name) {
    bool ok = t->ndim == ref->ndim;
    for (int32_t i = 0; ok && i < t->ndim; ++i) ok = t->shape[i] == ref->shape[i];
    if (ok) return OPKIT_OK;
    return fail(OPKIT_ERROR_INVALID_ARGUMENT, "%s: %s has shape %s but %s has shape %s", op, name,
                shape_string(t), ref_name, shape_string(ref));
}

opkit_status device_usable(const char* op, opkit_device device) {
    const int32_t type = canonical_device_type(device.device_type);
    if (type == OPKIT_DEVICE_CPU) return OPKIT_OK;  // the CPU id is ignored, as in DLPack
    Runtime* rt = runtime();
    if (!rt) return OPKIT_ERROR_INTERNAL;
    const DeviceEntry* d = rt->device(type);
    if (!d || d->memory_vendor < 0) {
        // Name the vendors that could have served it and why they don't.
        std::string why;
        for (const loader::Vendor& v : rt->vendors)
            if (canonical_device_type(v.device_type) == type || v.device_type == 0)
                why += "; vendor " + v.name + ": " + (v.detail.empty() ? "not ready" : v.detail);
        return fail(OPKIT_ERROR_NOT_FOUND, "%s: no ready vendor serves %s tensors%s", op,
                    device_type_name(type), why.c_str());
    }
    if (device.device_id < 0 || device.device_id >= d->device_count)
        return fail(OPKIT_ERROR_NOT_FOUND, "%s: %s device id %d is out of range [0, %d)", op,
                    device_type_name(type), int(device.device_id), int(d->device_count));
    return OPKIT_OK;
}

opkit_status one_device(const char* op, const Named* tensors, int count, opkit_device* out) {
    const Named* first = nullptr;
    for (int i = 0; i < count; ++i) {
        const Named& n = tensors[i];
        if (!n.t) continue;
        if (!first) {
            first = &n;
            continue;
        }
        const opkit_device a = first->t->device, b = n.t->device;
        const int32_t ta = canonical_device_type(a.device_type), tb = canonical_device_type(b.device_type);
        const bool same = ta == tb && (ta == OPKIT_DEVICE_CPU || a.device_id == b.device_id);
        if (!same)
            return fail(OPKIT_ERROR_INVALID_ARGUMENT,
                        "%s: tensors are on different devices: %s is on %s:%d, %s is on %s:%d", op,
                        first->name, device_type_name(ta), int(a.device_id), n.name,
                        device_type_name(tb), int(b.device_id));
    }
    opkit_device d = first ? first->t->device : opkit_device{OPKIT_DEVICE_CPU, 0};
    d.device_type = canonical_device_type(d.device_type);
    if (d.device_type == OPKIT_DEVICE_CPU) d.device_id = 0;
    OPKIT_TRY(device_usable(op, d));
    *out = d;
    return OPKIT_OK;
}

opkit_status no_overlap(const char* op, const Named* outputs, int n_outputs, const Named* inputs, int n_inputs,
                        std::initializer_list<Alias> in_place) {
    auto allowed = [&](const opkit_tensor* out, const opkit_tensor* other) {
        for (const Alias& a : in_place)
            if (a.output == out && a.input == other) return identical_view(out, other);
        return false;
    };
    auto check_pair = [&](const Named& o, const Named& other) -> opkit_status {
        if (!other.t) return OPKIT_OK;
        const Span so = span_of(o.t), st = span_of(other.t);
        if (so.lo == so.hi || st.lo == st.hi || so.hi <= st.lo || st.hi <= so.lo) return OPKIT_OK;
        if (allowed(o.t, other.t)) return OPKIT_OK;
        bool too_big = false;
        if (!identical_view(o.t, other.t) && !rows_overlap(o.t, other.t, &too_big)) return OPKIT_OK;
        return fail(OPKIT_ERROR_INVALID_ARGUMENT,
                    "%s: output %s overlaps %s in memory%s", op, o.name, other.name,
                    too_big ? " (or interleaves with it too finely to check)"
                            : "; only the in-place aliases the op documents are allowed, and "
                              "only as the identical view");
    };
    for (const Named& o : Range{outputs, n_outputs}) {
        if (!o.t) continue;
        if (self_overlapping(o.t))
            return fail(OPKIT_ERROR_INVALID_ARGUMENT,
                        "%s: output %s has strides under which elements share memory", op, o.name);
        for (const Named& i : Range{inputs, n_inputs}) OPKIT_TRY(check_pair(o, i));
        for (const Named& p : Range{outputs, n_outputs})
            if (&p != &o) OPKIT_TRY(check_pair(o, p));
    }
    return OPKIT_OK;
}

}  // namespace opkit::validate
