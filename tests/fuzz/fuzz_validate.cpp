// libFuzzer target: arbitrary tensor descriptors and scalars for every op of the spec.
//
// The input picks an op (spec/ops.h) and, for each of its parameters in order, either
// NULL or a descriptor with any ndim (negative and huge too), shape, strides (negative,
// overflowing), dtype (any code/bits/lanes), device, byte offset and data pointer, plus
// arbitrary scalars (NaN eps, bad enums) and a stream. Data pointers point into ONE
// backing buffer (so views overlap, alias and interleave), or are NULL, or are raw
// values. The rest of the input is the buffer's contents (so index tensors hold
// arbitrary ids and float tensors NaNs, infinities and denormals).
//
// Validation cannot know how large the caller's buffer is, so the harness decides, with
// its own overflow-free (128-bit) arithmetic, what the call would touch:
//  - every present tensor's view lies inside the backing buffer (or has no elements),
//    and has at most kMaxElements elements: the full public call runs (validation, then
//    dispatch and the CPU kernel). The buffer comes from malloc, so ASan's redzones turn
//    any byte touched outside it into a finding;
//  - some tensor is malformed by the public contract alone (ndim < 0 or > 8, shape NULL
//    with ndim > 0, a negative dimension, vector lanes, NULL data with elements): the
//    full public call runs too: validation must refuse it, and a kernel reached anyway
//    would crash on it (a finding);
//  - otherwise (a well-formed view that reaches outside the buffer, or is too large to
//    compute quickly): only the op's validation rule runs (opkit::validate_op, the code
//    every public call runs first). Accepting such a view is correct: validation cannot
//    know the caller's allocation.
// Invariants checked on every call (a violation aborts, which libFuzzer reports):
//  - the status is one of the pinned values (0..7);
//  - a failing call sets a non-empty opkit_last_error_message() and leaves every byte
//    of the backing buffer as it was (outputs untouched);
//  - the public call fails with exactly the status of its validation rule when that
//    rule refuses the call;
//  - differential: a call whose tensors are all on the CPU runs a second time with every
//    tensor on the fake accelerator (tests/fake_vendor, device type 16, host memory)
//    with host fallback on, in a second copy of the buffer; status and every byte of
//    the buffer must match the CPU run (ops the fake vendor serves itself excepted).
//    OPKIT_FUZZ_NO_DIFFERENTIAL=1 turns this comparison off, to triage other findings
//    while a known fallback bug is open; CI never sets it.
//
// OPKIT_FUZZ_WRITE_SEEDS=<dir> makes the binary write its seed corpus (valid calls of
// every op, in-place and interleaved layouts, on both devices) into <dir> and exit;
// tests/fuzz/corpus/fuzz_validate holds its output. docs/fuzzing.md has the details.
#include "error.h"
#include "op_spec.hpp"
#include "validate_ops.h"

#include <sys/stat.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using opkit::OpId;
using opkit::ParamKind;

constexpr size_t kBufBytes = 8192;
constexpr int kMaxStored = 16;           // shape/stride entries the harness materializes
constexpr __int128 kMaxElements = 1 << 14;  // bigger (broadcast) views are validated only
constexpr int32_t kAccelType = 16;       // the fake accelerator (tests/fake_vendor)

bool g_accel_ready = false;
bool g_accel_serves[opkit::kOpCount] = {};
bool g_differential = true;  // OPKIT_FUZZ_NO_DIFFERENTIAL=1 turns it off (triage only)

[[noreturn]] void die(const char* what, const std::string& detail) {
    std::fprintf(stderr, "fuzz_validate: INVARIANT VIOLATED: %s\n  %s\n", what, detail.c_str());
    std::abort();
}

// ------------------------------------------------------------------ input format ----
// Integers: one selector byte s; s < 0xF8 is the small value s - 8 (-8..239), else the
// next 8 bytes are the raw little-endian value. Past the end every byte reads as 0.
class Reader {
public:
    Reader(const uint8_t* d, size_t n) : d_(d), n_(n) {}
    uint8_t u8() { return pos_ < n_ ? d_[pos_++] : 0; }
    uint64_t raw(int bytes) {
        uint64_t v = 0;
        for (int i = 0; i < bytes; ++i) v |= uint64_t(u8()) << (8 * i);
        return v;
    }
    int64_t integer() {
        const uint8_t s = u8();
        return s < 0xF8 ? int64_t(s) - 8 : int64_t(raw(8));
    }
    const uint8_t* rest(size_t* n) const {
        *n = pos_ < n_ ? n_ - pos_ : 0;
        return d_ + (pos_ < n_ ? pos_ : n_);
    }

private:
    const uint8_t* d_;
    size_t n_, pos_ = 0;
};

class Writer {
public:
    void u8(uint8_t v) { out.push_back(v); }
    void raw(uint64_t v, int bytes) {
        for (int i = 0; i < bytes; ++i) u8(uint8_t(v >> (8 * i)));
    }
    void integer(int64_t v) {
        if (v >= -8 && v < 0xF8 - 8) {
            u8(uint8_t(v + 8));
        } else {
            u8(0xF8);
            raw(uint64_t(v), 8);
        }
    }
    std::vector<uint8_t> out;
};

constexpr opkit_dtype kDtypes[] = {{2, 32, 1}, {2, 16, 1}, {4, 16, 1}, {0, 32, 1},
                                   {0, 64, 1}, {2, 64, 1}, {1, 8, 1},  {2, 32, 4}};
constexpr opkit_device kDevices[] = {{OPKIT_DEVICE_CPU, 0}, {OPKIT_DEVICE_CPU, 0},
                                     {OPKIT_DEVICE_CPU, 5}, {kAccelType, 0},
                                     {OPKIT_DEVICE_CUDA, 0}, {12, 0}};
const float kFloats[] = {0.0f, 1e-5f, 1e-6f, 0.5f, 1.0f, -1.0f, 2.0f,
                         std::numeric_limits<float>::quiet_NaN(),
                         std::numeric_limits<float>::infinity(),
                         -std::numeric_limits<float>::infinity(), -0.0f, 1e-45f};

enum DataMode : uint8_t { kDataNull = 0, kDataBuffer = 1, kDataRaw = 3 };

// One tensor argument as the input describes it.
struct TensorDesc {
    bool present = false;
    bool shape_null = false;
    bool explicit_strides = false;
    int32_t ndim = 0;
    opkit_dtype dtype{2, 32, 1};
    bool raw_dtype = false;
    uint8_t dtype_index = 0;
    opkit_device device{OPKIT_DEVICE_CPU, 0};
    bool raw_device = false;
    uint8_t device_index = 0;
    int64_t shape[kMaxStored] = {};
    int64_t strides[kMaxStored] = {};
    uint64_t byte_offset = 0;
    uint8_t data_mode = kDataBuffer;
    uint64_t data = 0;  // offset into the buffer (mod its size), or the raw pointer value
};

int stored_dims(int32_t ndim) { return ndim <= 0 ? 0 : ndim > kMaxStored ? kMaxStored : ndim; }

void decode_tensor(Reader& in, TensorDesc* t) {
    const uint8_t tag = in.u8();
    t->present = (tag & 3) != 0;
    if (!t->present) return;
    t->shape_null = (tag & 4) != 0;
    t->explicit_strides = (tag & 8) != 0;
    t->ndim = int32_t(in.integer());
    const uint8_t d = in.u8();
    if (d >= 0xF0) {
        t->raw_dtype = true;
        t->dtype.code = in.u8();
        t->dtype.bits = in.u8();
        t->dtype.lanes = uint16_t(in.raw(2));
    } else {
        t->dtype = kDtypes[d % (sizeof kDtypes / sizeof kDtypes[0])];
    }
    const uint8_t dv = in.u8();
    if (dv >= 0xF0) {
        t->raw_device = true;
        t->device.device_type = int32_t(in.integer());
        t->device.device_id = int32_t(in.integer());
    } else {
        t->device = kDevices[dv % (sizeof kDevices / sizeof kDevices[0])];
    }
    const int n = stored_dims(t->ndim);
    for (int i = 0; i < n; ++i) t->shape[i] = in.integer();
    if (t->explicit_strides)
        for (int i = 0; i < n; ++i) t->strides[i] = in.integer();
    t->byte_offset = uint64_t(in.integer());
    t->data_mode = in.u8() & 3;
    if (t->data_mode == 2) t->data_mode = kDataBuffer;
    t->data = uint64_t(in.integer());
}

void encode_tensor(Writer& w, const TensorDesc& t) {
    if (!t.present) {
        w.u8(0);
        return;
    }
    w.u8(uint8_t(1 | (t.shape_null ? 4 : 0) | (t.explicit_strides ? 8 : 0)));
    w.integer(t.ndim);
    if (t.raw_dtype) {
        w.u8(0xF0);
        w.u8(t.dtype.code);
        w.u8(t.dtype.bits);
        w.raw(t.dtype.lanes, 2);
    } else {
        w.u8(t.dtype_index);
    }
    if (t.raw_device) {
        w.u8(0xF0);
        w.integer(t.device.device_type);
        w.integer(t.device.device_id);
    } else {
        w.u8(t.device_index);
    }
    const int n = stored_dims(t.ndim);
    for (int i = 0; i < n; ++i) w.integer(t.shape[i]);
    if (t.explicit_strides)
        for (int i = 0; i < n; ++i) w.integer(t.strides[i]);
    w.integer(int64_t(t.byte_offset));
    w.u8(t.data_mode);
    w.integer(int64_t(t.data));
}

float decode_f32(Reader& in) {
    const uint8_t s = in.u8();
    if (s < 0xF0) return kFloats[s % (sizeof kFloats / sizeof kFloats[0])];
    const uint32_t bits = uint32_t(in.raw(4));
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}


void encode_f32(Writer& w, float f) {
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    w.u8(0xF0);
    w.raw(bits, 4);
}

// ------------------------------------------------------------------ one call -------
// The public entry point of each op, by id.
template <OpId Id> struct PublicFn;
#define OPKIT_FUZZ_PUBLIC_(name) \
    template <> struct PublicFn<OpId::name> { static constexpr auto fn = &::opkit_##name; };
OPKIT_FOR_EACH_OP(OPKIT_FUZZ_PUBLIC_)
#undef OPKIT_FUZZ_PUBLIC_

template <class T>
constexpr bool is_tensor_v = std::is_same_v<T, const opkit_tensor*> || std::is_same_v<T, opkit_tensor*>;

// A descriptor made concrete: the opkit_tensor plus heap arrays of exactly ndim entries
// (up to 16), so a read past them is an ASan finding.
struct Materialized {
    opkit_tensor t{};
    std::vector<int64_t> shape, strides;
};

void materialize(const TensorDesc& d, char* buf, Materialized* m) {
    const int n = stored_dims(d.ndim);
    m->shape.assign(d.shape, d.shape + n);
    m->strides.assign(d.strides, d.strides + n);
    m->shape.reserve(1);  // ndim 0 still gets a real (empty) array
    m->strides.reserve(1);
    m->t.ndim = d.ndim;
    m->t.dtype = d.dtype;
    m->t.device = d.device;
    m->t.byte_offset = d.byte_offset;
    m->t.shape = d.shape_null ? nullptr : m->shape.data();
    m->t.strides = d.explicit_strides ? m->strides.data() : nullptr;
    switch (d.data_mode) {
    case kDataNull: m->t.data = nullptr; break;
    case kDataRaw: m->t.data = reinterpret_cast<void*>(uintptr_t(d.data)); break;
    default: m->t.data = buf + d.data % kBufBytes; break;
    }
}

enum class Reach { inside, malformed, outside };

// What the view can touch, computed independently of libopkit in 128-bit arithmetic.
Reach reach_of(const opkit_tensor& t, const char* buf) {
    if (t.ndim < 0 || t.ndim > opkit::kMaxDims) return Reach::malformed;
    if (t.ndim > 0 && !t.shape) return Reach::malformed;
    if (t.dtype.lanes != 1) return Reach::malformed;
    __int128 count = 1;
    for (int32_t i = 0; i < t.ndim; ++i)
        if (t.shape[i] < 0) return Reach::malformed;
    for (int32_t i = 0; i < t.ndim; ++i) {
        count *= t.shape[i];
        if (count > kMaxElements) count = kMaxElements + 1;  // no 128-bit overflow either
    }
    if (count == 0) return Reach::inside;  // no elements: touches no memory
    if (!t.data) return Reach::malformed;
    if (count > kMaxElements) return Reach::outside;
    const __int128 elem = t.dtype.bits >= 8 ? t.dtype.bits / 8 : 1;
    __int128 lo = 0, hi = 0, contiguous = 1;
    for (int32_t i = t.ndim - 1; i >= 0; --i) {
        const __int128 st = t.strides ? __int128(t.strides[i]) : contiguous;
        const __int128 span = __int128(t.shape[i] - 1) * st;
        (span < 0 ? lo : hi) += span;
        contiguous *= t.shape[i];
    }
    const __int128 base = __int128(uintptr_t(t.data)) + __int128(t.byte_offset);
    const __int128 first = base + lo * elem, end = base + (hi + 1) * elem;
    const __int128 b = __int128(uintptr_t(buf));
    return first >= b && end <= b + __int128(kBufBytes) ? Reach::inside : Reach::outside;
}

bool pinned(opkit_status s) { return s >= OPKIT_OK && s <= OPKIT_ERROR_INTERNAL; }

template <OpId Id>
struct Call {
    using Args = opkit::OpArgs<Id>;
    static constexpr const char* kName = opkit::OpTraits<Id>::kName;

    TensorDesc tensors[16];
    int count = 0;
    float f32s[8] = {};  // scalars and the stream, in parameter order
    int64_t ints[8] = {};
    uintptr_t stream = 0;

    void decode(Reader& in) {
        Args a{};
        int nf = 0, ni = 0;
        opkit::OpTraits<Id>::for_each(a, [&](ParamKind, const char*, auto& v) {
            using T = std::decay_t<decltype(v)>;
            if constexpr (is_tensor_v<T>) {
                decode_tensor(in, &tensors[count++]);
            } else if constexpr (std::is_same_v<T, float>) {
                f32s[nf++] = decode_f32(in);
            } else if constexpr (std::is_integral_v<T>) {
                ints[ni++] = in.integer();
            } else {
                stream = in.u8() ? uintptr_t(in.integer()) : 0;
            }
        });
    }

    void encode(Writer& w) const {
        Args a{};
        int nt = 0, nf = 0, ni = 0;
        opkit::OpTraits<Id>::for_each(a, [&](ParamKind, const char*, auto& v) {
            using T = std::decay_t<decltype(v)>;
            if constexpr (is_tensor_v<T>) {
                encode_tensor(w, tensors[nt++]);
            } else if constexpr (std::is_same_v<T, float>) {
                encode_f32(w, f32s[nf++]);
            } else if constexpr (std::is_integral_v<T>) {
                w.integer(ints[ni++]);
            } else {
                w.u8(0);
            }
        });
    }

    // The argument struct over materialized tensors (every device replaced by
    // *force_device when given).
    Args args(Materialized* m, char* buf, const opkit_device* force_device) const {
        Args a{};
        int nt = 0, nf = 0, ni = 0;
        opkit::OpTraits<Id>::for_each(a, [&](ParamKind, const char*, auto& v) {
            using T = std::decay_t<decltype(v)>;
            if constexpr (is_tensor_v<T>) {
                const int i = nt++;
                if (!tensors[i].present) {
                    v = nullptr;
                    return;
                }
                materialize(tensors[i], buf, &m[i]);
                if (force_device) m[i].t.device = *force_device;
                v = &m[i].t;
            } else if constexpr (std::is_same_v<T, float>) {
                v = f32s[nf++];
            } else if constexpr (std::is_integral_v<T>) {
                v = T(ints[ni++]);
            } else {
                v = reinterpret_cast<opkit_stream>(stream);
            }
        });
        return a;
    }

    static std::string describe(const Args& a, const char* buf) {
        std::string s = std::string(kName) + "(";
        opkit::OpTraits<Id>::for_each(a, [&](ParamKind, const char* name, const auto& v) {
            using T = std::decay_t<decltype(v)>;
            char b[600];
            if constexpr (is_tensor_v<T>) {
                if (!v) {
                    std::snprintf(b, sizeof b, "%s=NULL, ", name);
                } else {
                    std::string dims;
                    for (int32_t i = 0; v->shape && i < v->ndim && i < kMaxStored; ++i)
                        dims += (i ? "," : "") + std::to_string(v->shape[i]) +
                                (v->strides ? ":" + std::to_string(v->strides[i]) : "");
                    const long long at = (long long)(uintptr_t(v->data) - uintptr_t(buf));
                    std::snprintf(b, sizeof b,
                                  "%s={ndim %d [%s] dtype %u/%u/%u dev %d:%d byte_offset %llu data "
                                  "buf%+lld}, ",
                                  name, int(v->ndim), dims.c_str(), unsigned(v->dtype.code),
                                  unsigned(v->dtype.bits), unsigned(v->dtype.lanes),
                                  int(v->device.device_type), int(v->device.device_id),
                                  (unsigned long long)v->byte_offset, at);
                }
            } else if constexpr (std::is_same_v<T, float>) {
                std::snprintf(b, sizeof b, "%s=%g, ", name, double(v));
            } else if constexpr (std::is_integral_v<T>) {
                std::snprintf(b, sizeof b, "%s=%lld, ", name, (long long)v);
            } else {
                std::snprintf(b, sizeof b, "%s=%p", name, v);
            }
            s += b;
        });
        return s + ")";
    }

    // Runs the call on `buf` and checks the invariants. Returns its status, or -1 when
    // only the validation rule ran (a view reaches outside the buffer).
    int run(char* buf, const opkit_device* force_device) const {
        Materialized m[16];
        const Args a = args(m, buf, force_device);
        bool public_call = true;
        for (int i = 0; i < count; ++i)
            if (tensors[i].present && reach_of(m[i].t, buf) == Reach::outside) public_call = false;

        opkit::clear_error();
        opkit_device dev{};
        const opkit_status rule = opkit::guard("fuzz", [&] { return opkit::validate_op(a, &dev); });
        if (!pinned(rule)) die("validation returned an unpinned status", describe(a, buf));
        if (rule != OPKIT_OK && !*opkit_last_error_message())
            die("validation failed without a message", describe(a, buf));
        if (!public_call) return -1;

        std::vector<char> before(buf, buf + kBufBytes);
        const opkit_status s = opkit::OpTraits<Id>::call(PublicFn<Id>::fn, a);
        if (!pinned(s)) die("unpinned status", describe(a, buf) + " -> " + std::to_string(s));
        if (rule != OPKIT_OK && s != rule)
            die("the public call's status differs from its validation rule's",
                describe(a, buf) + ": rule " + std::to_string(rule) + ", call " + std::to_string(s));
        if (s != OPKIT_OK) {
            if (!*opkit_last_error_message()) die("failed without a message", describe(a, buf));
            if (std::memcmp(before.data(), buf, kBufBytes) != 0)
                die("a failing call changed memory",
                    describe(a, buf) + " -> " + opkit_last_error_message());
        }
        return s;
    }
};

// Fills the buffer with the input's tail, repeated (a fixed non-zero pattern if none).
void fill(char* buf, const uint8_t* content, size_t n) {
    for (size_t i = 0; i < kBufBytes; ++i)
        buf[i] = n ? char(content[i % n]) : char(0x3c + (i * 37) % 5);
}

template <OpId Id>
void fuzz_one(Reader& in) {
    Call<Id> call;
    call.decode(in);
    size_t n = 0;
    const uint8_t* content = in.rest(&n);

    // malloc'd for each input: ASan's redzones sit right before and after it.
    char* buf = static_cast<char*>(std::malloc(kBufBytes));
    fill(buf, content, n);
    const int s = call.run(buf, nullptr);

    bool all_cpu = true;
    for (int i = 0; i < call.count; ++i)
        if (call.tensors[i].present &&
            opkit::canonical_device_type(call.tensors[i].device.device_type) != OPKIT_DEVICE_CPU)
            all_cpu = false;
    if (s >= 0 && all_cpu && g_differential) {
        // The same call with every tensor on the fake accelerator, through host fallback
        // (or the fake vendor's own op), on a fresh copy of the original contents.
        char* buf2 = static_cast<char*>(std::malloc(kBufBytes));
        fill(buf2, content, n);
        const opkit_device accel{kAccelType, 0};
        const int s2 = call.run(buf2, &accel);
        if (s2 >= 0 && !g_accel_serves[int32_t(Id)]) {
            Materialized m[16];
            const auto a = call.args(m, buf2, &accel);
            if (s2 != s)
                die("host fallback returned another status than the CPU",
                    Call<Id>::describe(a, buf2) + ": cpu " + std::to_string(s) + ", accel " +
                        std::to_string(s2) + ": " + opkit_last_error_message());
            // Compare only what the CPU run left in memory against the fallback's.
            std::vector<char> cpu_result(buf, buf + kBufBytes);
            for (size_t i = 0; i < kBufBytes; ++i)
                if (cpu_result[i] != buf2[i])
                    die("host fallback wrote other bytes than the CPU",
                        Call<Id>::describe(a, buf2) + ": first difference at buffer byte " + std::to_string(i));
        }
        std::free(buf2);
    }
    std::free(buf);
}

using FuzzFn = void (*)(Reader&);
constexpr FuzzFn kFuzzFns[] = {
#define OPKIT_FUZZ_FN_(name) &fuzz_one<OpId::name>,
    OPKIT_FOR_EACH_OP(OPKIT_FUZZ_FN_)
#undef OPKIT_FUZZ_FN_
};

// ------------------------------------------------------------------ seeds ----------
// Valid calls of every op (and some invalid ones), written in the input format above.
class Seeder {
public:
    // A contiguous tensor with its own region of the buffer, filled with values in [-2, 2]
    // (or with `ids` for index tensors).
    TensorDesc tensor(uint8_t dtype_index, std::vector<int64_t> shape, const std::vector<int64_t>& ids = {}) {
        TensorDesc t;
        t.present = true;
        t.ndim = int32_t(shape.size());
        t.dtype_index = dtype_index;
        t.dtype = kDtypes[dtype_index];
        t.device_index = device_index;
        t.device = kDevices[device_index];
        int64_t count = 1;
        for (size_t i = 0; i < shape.size(); ++i) {
            t.shape[i] = shape[i];
            count *= shape[i];
        }
        const size_t elem = t.dtype.bits / 8;
        t.data = alloc(size_t(count) * elem);
        t.data_mode = kDataBuffer;
        for (int64_t k = 0; k < count; ++k) put(t.data + size_t(k) * elem, t.dtype_index,
                                                ids.empty() ? value() : double(ids[size_t(k) % ids.size()]));
        return t;
    }
    // Two halves of one [rows, 2n] tensor (the fused layout of gated MLPs).
    std::pair<TensorDesc, TensorDesc> halves(uint8_t dtype_index, int64_t rows, int64_t n) {
        TensorDesc whole = tensor(dtype_index, {rows, 2 * n});
        TensorDesc a = whole, b = whole;
        for (TensorDesc* h : {&a, &b}) {
            h->explicit_strides = true;
            h->shape[1] = n;
            h->strides[0] = 2 * n;
            h->strides[1] = 1;
        }
        b.byte_offset = uint64_t(n) * (whole.dtype.bits / 8);
        return {a, b};
    }
    uint8_t device_index = 0;
    std::vector<uint8_t> content;

private:
    uint64_t alloc(size_t bytes) {
        const size_t at = (content.size() + 63) & ~size_t(63);
        content.resize(at + bytes);
        return at;
    }
    double value() {
        state_ = state_ * 1103515245u + 12345u;
        return double((state_ >> 8) % 4001) / 1000.0 - 2.0;
    }
    void put(uint64_t at, uint8_t dtype_index, double v) {
        uint8_t* p = content.data() + at;
        const float f = float(v);
        uint32_t bits;
        std::memcpy(&bits, &f, 4);
        switch (dtype_index) {
        case 0: std::memcpy(p, &f, 4); break;
        case 1: {  // f16 of a normal value in [-2, 2] (or 0)
            const uint32_t sign = (bits >> 16) & 0x8000u;
            const int32_t e = int32_t((bits >> 23) & 0xff) - 127 + 15;
            const uint16_t h = f == 0.0f || e <= 0 ? uint16_t(sign)
                                                   : uint16_t(sign | (uint32_t(e) << 10) | ((bits >> 13) & 0x3ff));
            std::memcpy(p, &h, 2);
            break;
        }
        case 2: {
            const uint16_t h = uint16_t(bits >> 16);
            std::memcpy(p, &h, 2);
            break;
        }
        case 3: {
            const int32_t i = int32_t(v);
            std::memcpy(p, &i, 4);
            break;
        }
        default: {
            const int64_t i = int64_t(v);
            std::memcpy(p, &i, 8);
            break;
        }
        }
    }
    uint32_t state_ = 12345;
};

// A seed: the op and its arguments by parameter name (absent tensors are NULL, absent
// scalars 0).
struct SeedArgs {
    std::vector<std::pair<std::string, TensorDesc>> tensors;
    std::vector<std::pair<std::string, float>> floats;
    std::vector<std::pair<std::string, int64_t>> ints;
};

template <OpId Id>
std::vector<uint8_t> encode_seed(const SeedArgs& s, const std::vector<uint8_t>& content) {
    Call<Id> call;
    opkit::OpArgs<Id> a{};
    int nf = 0, ni = 0;
    opkit::OpTraits<Id>::for_each(a, [&](ParamKind, const char* name, auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (is_tensor_v<T>) {
            TensorDesc& t = call.tensors[call.count++];
            for (const auto& [n, d] : s.tensors)
                if (n == name) t = d;
        } else if constexpr (std::is_same_v<T, float>) {
            float& f = call.f32s[nf++];
            for (const auto& [n, x] : s.floats)
                if (n == name) f = x;
        } else if constexpr (std::is_integral_v<T>) {
            int64_t& i = call.ints[ni++];
            for (const auto& [n, x] : s.ints)
                if (n == name) i = x;
        }
    });
    Writer w;
    w.u8(uint8_t(Id));
    call.encode(w);
    w.out.insert(w.out.end(), content.begin(), content.end());
    return w.out;
}

void write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f || std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size()) {
        std::fprintf(stderr, "fuzz_validate: cannot write %s\n", path.c_str());
        std::exit(1);
    }
    std::fclose(f);
}

void write_seeds(const std::string& dir) {
    int written = 0;
    auto emit = [&](const char* tag, std::vector<uint8_t> bytes) {
        write_file(dir + "/" + tag, bytes);
        ++written;
    };
    const char* devs[] = {"cpu", "accel"};
    const uint8_t dev_index[] = {0, 3};
    const char* dts[] = {"f32", "f16", "bf16"};
    for (int dv = 0; dv < 2; ++dv)
        for (uint8_t dt = 0; dt < 3; ++dt) {
            if (dv == 1 && dt == 1) continue;
            const std::string sfx = std::string("-") + dts[dt] + "-" + devs[dv];
            auto name = [&](const char* op, const char* variant = "") {
                return std::string(op) + variant + sfx;
            };
            const int64_t R = 3, N = 5;
            {  // norms
                Seeder S;
                S.device_index = dev_index[dv];
                SeedArgs a;
                a.tensors = {{"x", S.tensor(dt, {R, N})}, {"weight", S.tensor(dt, {N})},
                             {"y", S.tensor(dt, {R, N})}, {"rstd", S.tensor(0, {R})}};
                a.floats = {{"eps", 1e-5f}, {"weight_offset", 1.0f}};
                emit(name("rms_norm_forward").c_str(), encode_seed<OpId::rms_norm_forward>(a, S.content));
                a.tensors[2].second = a.tensors[0].second;  // y = x, in place
                emit(name("rms_norm_forward", "-inplace").c_str(), encode_seed<OpId::rms_norm_forward>(a, S.content));
                a.tensors.push_back({"bias", S.tensor(dt, {N})});
                a.tensors.push_back({"mean", S.tensor(0, {R})});
                a.tensors[2].second = S.tensor(dt, {R, N});
                emit(name("layer_norm_forward").c_str(), encode_seed<OpId::layer_norm_forward>(a, S.content));
            }
            {
                Seeder S;
                S.device_index = dev_index[dv];
                SeedArgs a;
                a.tensors = {{"dy", S.tensor(dt, {2, R, N})}, {"x", S.tensor(dt, {2, R, N})},
                             {"weight", S.tensor(dt, {N})}, {"rstd", S.tensor(0, {2 * R})},
                             {"mean", S.tensor(0, {2 * R})}, {"dx", S.tensor(dt, {2, R, N})},
                             {"dweight", S.tensor(dt, {N})}, {"dbias", S.tensor(dt, {N})}};
                emit(name("rms_norm_backward").c_str(), encode_seed<OpId::rms_norm_backward>(a, S.content));
                emit(name("layer_norm_backward").c_str(), encode_seed<OpId::layer_norm_backward>(a, S.content));
                a.tensors[5].second = a.tensors[0].second;  // dx = dy
                emit(name("layer_norm_backward", "-inplace").c_str(), encode_seed<OpId::layer_norm_backward>(a, S.content));
            }
            {  // softmax, with a padded (strided) x
                Seeder S;
                S.device_index = dev_index[dv];
                SeedArgs a;
                TensorDesc x = S.tensor(dt, {R, 2 * N});
                x.explicit_strides = true;
                x.shape[1] = N;
                x.strides[0] = 2 * N;
                x.strides[1] = 1;
                a.tensors = {{"x", x}, {"y", S.tensor(dt, {R, N})}, {"dy", S.tensor(dt, {R, N})},
                             {"dx", S.tensor(dt, {R, N})}};
                emit(name("softmax_forward", "-strided").c_str(), encode_seed<OpId::softmax_forward>(a, S.content));
                a.tensors[0].second = S.tensor(dt, {R, N});
                emit(name("softmax_forward").c_str(), encode_seed<OpId::softmax_forward>(a, S.content));
                emit(name("softmax_backward").c_str(), encode_seed<OpId::softmax_backward>(a, S.content));
            }
            {  // gated activations: separate and fused (interleaved halves)
                Seeder S;
                S.device_index = dev_index[dv];
                SeedArgs a;
                a.tensors = {{"a", S.tensor(dt, {R, N})}, {"b", S.tensor(dt, {R, N})}, {"y", S.tensor(dt, {R, N})},
                             {"dy", S.tensor(dt, {R, N})}, {"da", S.tensor(dt, {R, N})}, {"db", S.tensor(dt, {R, N})}};
                a.ints = {{"approximate", 1}};
                emit(name("swiglu_forward").c_str(), encode_seed<OpId::swiglu_forward>(a, S.content));
                emit(name("swiglu_backward").c_str(), encode_seed<OpId::swiglu_backward>(a, S.content));
                emit(name("geglu_forward").c_str(), encode_seed<OpId::geglu_forward>(a, S.content));
                emit(name("geglu_backward").c_str(), encode_seed<OpId::geglu_backward>(a, S.content));
                const auto [ha, hb] = S.halves(dt, R, N);
                const auto [hda, hdb] = S.halves(dt, R, N);
                a.tensors = {{"a", ha}, {"b", hb}, {"y", S.tensor(dt, {R, N})}, {"dy", S.tensor(dt, {R, N})},
                             {"da", hda}, {"db", hdb}};
                emit(name("swiglu_forward", "-fused").c_str(), encode_seed<OpId::swiglu_forward>(a, S.content));
                emit(name("swiglu_backward", "-fused").c_str(), encode_seed<OpId::swiglu_backward>(a, S.content));
                a.ints = {{"approximate", 0}};
                emit(name("geglu_backward", "-fused").c_str(), encode_seed<OpId::geglu_backward>(a, S.content));
                a.tensors[4].second = ha;  // da = a, db = b: in place over the inputs
                a.tensors[5].second = hb;
                emit(name("swiglu_backward", "-inplace").c_str(), encode_seed<OpId::swiglu_backward>(a, S.content));
            }
            {  // rope
                Seeder S;
                S.device_index = dev_index[dv];
                SeedArgs a;
                a.tensors = {{"x", S.tensor(dt, {2, 3, 2, 4})}, {"cos", S.tensor(dt, {3, 4})},
                             {"sin", S.tensor(dt, {3, 4})}, {"y", S.tensor(dt, {2, 3, 2, 4})},
                             {"dy", S.tensor(dt, {2, 3, 2, 4})}, {"dx", S.tensor(dt, {2, 3, 2, 4})}};
                emit(name("rope_forward").c_str(), encode_seed<OpId::rope_forward>(a, S.content));
                emit(name("rope_backward").c_str(), encode_seed<OpId::rope_backward>(a, S.content));
                a.tensors[1].second = S.tensor(dt, {2, 3, 4});
                a.tensors[2].second = S.tensor(dt, {2, 3, 4});
                a.tensors[3].second = a.tensors[0].second;  // y = x
                emit(name("rope_forward", "-batched-inplace").c_str(), encode_seed<OpId::rope_forward>(a, S.content));
            }
            {  // rope_qk: q and k (Hq 3, Hk 1) apart, then as views into one fused qkv buffer, in place
                Seeder S;
                S.device_index = dev_index[dv];
                SeedArgs a;
                a.tensors = {{"q", S.tensor(dt, {2, 3, 3, 4})}, {"k", S.tensor(dt, {2, 3, 1, 4})},
                             {"cos", S.tensor(dt, {3, 4})}, {"sin", S.tensor(dt, {3, 4})},
                             {"q_out", S.tensor(dt, {2, 3, 3, 4})}, {"k_out", S.tensor(dt, {2, 3, 1, 4})}};
                emit(name("rope_qk_forward").c_str(), encode_seed<OpId::rope_qk_forward>(a, S.content));
                const TensorDesc qkv = S.tensor(dt, {2, 3, 5, 4});  // [B,T,Hq+Hk+Hv,D]
                auto heads = [&](int64_t h0, int64_t n) {
                    TensorDesc v = qkv;
                    v.explicit_strides = true;
                    v.shape[2] = n;
                    const int64_t st[4] = {3 * 5 * 4, 5 * 4, 4, 1};
                    for (int i = 0; i < 4; ++i) v.strides[i] = st[i];
                    v.byte_offset = uint64_t(h0 * 4) * (qkv.dtype.bits / 8);
                    return v;
                };
                SeedArgs b;
                b.tensors = {{"dq_out", heads(0, 3)}, {"dk_out", heads(3, 1)}, {"cos", S.tensor(dt, {2, 3, 4})},
                             {"sin", S.tensor(dt, {2, 3, 4})}, {"dq", heads(0, 3)}, {"dk", heads(3, 1)}};
                emit(name("rope_qk_backward", "-fused-inplace").c_str(),
                     encode_seed<OpId::rope_qk_backward>(b, S.content));
            }
            {  // cross-entropy: every reduction; int32 and int64 targets, one ignored
                Seeder S;
                S.device_index = dev_index[dv];
                for (int32_t reduction = 0; reduction < 3; ++reduction) {
                    SeedArgs a;
                    const uint8_t it = reduction == 1 ? 3 : 4;
                    a.tensors = {{"logits", S.tensor(dt, {R, N})}, {"target", S.tensor(it, {R}, {4, -100, 0})},
                                 {"loss", reduction == 0 ? S.tensor(0, {R}) : S.tensor(0, {})},
                                 {"lse", S.tensor(0, {R})}, {"dlogits", S.tensor(dt, {R, N})}};
                    a.ints = {{"ignore_index", -100}, {"reduction", reduction}};
                    a.floats = {{"label_smoothing", reduction == 2 ? 0.1f : 0.0f}};
                    const std::string r = "-reduction" + std::to_string(reduction);
                    emit(name("cross_entropy_forward", r.c_str()).c_str(),
                         encode_seed<OpId::cross_entropy_forward>(a, S.content));
                    a.tensors.push_back({"dloss", reduction == 0 ? S.tensor(0, {R}) : S.tensor(0, {})});
                    emit(name("cross_entropy_backward", r.c_str()).c_str(),
                         encode_seed<OpId::cross_entropy_backward>(a, S.content));
                }
            }
            {  // embedding
                Seeder S;
                S.device_index = dev_index[dv];
                SeedArgs a;
                a.tensors = {{"weight", S.tensor(dt, {6, 4})}, {"ids", S.tensor(3, {2, 3}, {0, 5, 2, 2, 1, 3})},
                             {"y", S.tensor(dt, {2, 3, 4})}, {"dy", S.tensor(dt, {2, 3, 4})},
                             {"dweight", S.tensor(dt, {6, 4})}};
                a.ints = {{"padding_idx", 2}};
                emit(name("embedding_forward").c_str(), encode_seed<OpId::embedding_forward>(a, S.content));
                emit(name("embedding_backward").c_str(), encode_seed<OpId::embedding_backward>(a, S.content));
            }
            {  // matmul: plain, transposed, batched with a broadcast batch; axpy
                Seeder S;
                S.device_index = dev_index[dv];
                SeedArgs a;
                a.tensors = {{"a", S.tensor(dt, {2, 3})}, {"b", S.tensor(dt, {3, 4})}, {"c", S.tensor(dt, {2, 4})}};
                a.floats = {{"alpha", 1.0f}, {"beta", 0.5f}};
                emit(name("matmul").c_str(), encode_seed<OpId::matmul>(a, S.content));
                a.tensors = {{"a", S.tensor(dt, {3, 2})}, {"b", S.tensor(dt, {4, 3})}, {"c", S.tensor(dt, {2, 4})}};
                a.ints = {{"trans_a", 1}, {"trans_b", 1}};
                emit(name("matmul", "-trans").c_str(), encode_seed<OpId::matmul>(a, S.content));
                a.tensors = {{"a", S.tensor(dt, {2, 2, 3})}, {"b", S.tensor(dt, {1, 3, 4})}, {"c", S.tensor(dt, {2, 2, 4})}};
                a.ints = {};
                emit(name("matmul", "-batched").c_str(), encode_seed<OpId::matmul>(a, S.content));
                a.tensors = {{"x", S.tensor(dt, {7})}, {"y", S.tensor(dt, {7})}};
                a.floats = {{"alpha", -0.5f}};
                emit(name("axpy").c_str(), encode_seed<OpId::axpy>(a, S.content));
            }
        }
    std::fprintf(stderr, "fuzz_validate: wrote %d seeds to %s\n", written, dir.c_str());
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    if (const char* dir = std::getenv("OPKIT_FUZZ_WRITE_SEEDS")) {
        mkdir(dir, 0755);
        write_seeds(dir);
        std::exit(0);
    }
    // One CPU thread: the kernels are deterministic and the differential comparison
    // bitwise. The fake accelerator (device type 16) is loaded with host fallback on.
    setenv("OPKIT_NUM_THREADS", "1", 1);
    opkit_init_options o{};
    o.struct_size = sizeof o;
    o.vendor_path = OPKIT_FUZZ_ACCEL_DIR;
    o.host_fallback = 1;
    o.log_level = OPKIT_LOG_OFF;
    if (opkit_init(&o) != OPKIT_OK) {
        std::fprintf(stderr, "fuzz_validate: opkit_init failed: %s\n", opkit_last_error_message());
        std::exit(1);
    }
    for (int32_t i = 0; i < opkit_vendor_count(); ++i) {
        opkit_vendor_info info{};
        info.struct_size = sizeof info;
        if (opkit_vendor_get_info(i, &info) == OPKIT_OK && std::string(info.name) == "accel")
            g_accel_ready = info.state == OPKIT_VENDOR_READY;
    }
    if (!g_accel_ready) {
        // Without it the device paths (dispatch to a vendor, host fallback) go untested.
        std::fprintf(stderr, "fuzz_validate: the fake accelerator in %s is not ready\n", OPKIT_FUZZ_ACCEL_DIR);
        std::exit(1);
    }
    if (const char* v = std::getenv("OPKIT_FUZZ_NO_DIFFERENTIAL")) g_differential = *v != '1';
    for (int32_t op = 0; op < opkit::kOpCount; ++op) {
        const char* who = nullptr;
        g_accel_serves[op] = opkit_op_resolve(opkit::kOpNames[op], kAccelType, &who) == OPKIT_OK && who &&
                             std::string(who) == "accel";
    }
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    Reader in(data, size);
    kFuzzFns[in.u8() % opkit::kOpCount](in);
    return 0;
}
