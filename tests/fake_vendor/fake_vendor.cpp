// One fake vendor compiled into many .so variants (Vulkan-loader style): each variant
// differs only in compile definitions, so every loader path is exercised with a real
// dlopen of a real file.
//
//   FAKE_NAME            the name it reports (string)
//   FAKE_ABI             its opkit_vendor_abi_version (default: the current one)
//   FAKE_NO_INIT         does not export opkit_vendor_init
//   FAKE_INIT_FAILS      init returns OPKIT_ERROR_DEVICE
//   FAKE_INIT_THROWS     init throws std::runtime_error("boom")
//   FAKE_UNRESOLVED      references a symbol nobody defines (dlopen RTLD_NOW fails)
//   FAKE_DEVICE          device type served (default OPKIT_DEVICE_CPU)
//   FAKE_DECLINE_ODD     softmax_forward declines rows of odd length (and misbehaves
//                        for rows of 14 and 16, see there)
//   FAKE_WRONG           softmax_forward computes a wrong result (conformance must fail)
//   FAKE_DECLINE_ALL     softmax_forward and axpy decline every call (conformance must
//                        fail unless told --allow-decline)
//   FAKE_DECLINE_SHORT   softmax_forward declines rows shorter than 8 and serves the rest
//                        (correctly: conformance must pass with cases of both kinds)
//   FAKE_ACCEL           pretend accelerator on host memory: exports the memory functions
//   FAKE_ROPE            also exports rope_forward and rope_backward (f32 only: other
//                        dtypes are declined; so is x with 5 heads, to decline the second
//                        of two calls), but not rope_qk_*, as a vendor built against
//                        vendor ABI 1.0: libopkit's composite default must serve rope_qk_*
//                        through them (composite.h)
//   (any variant)        records the stream of its last softmax_forward call, readable
//                        through the exported fake_vendor_last_stream() (the Python
//                        binding's stream choice is tested with it)
//
// Every variant that initializes writes "<name> init" to $FAKE_VENDOR_MARKER (when set),
// so a test can prove that a vendor's code never ran. Each op call is counted per op and
// readable through the exported fake_vendor_calls().
#include "op_spec.hpp"
#include "opkit_vendor.h"

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#ifndef FAKE_NAME
#define FAKE_NAME "fake"
#endif
#ifndef FAKE_ABI
#define FAKE_ABI OPKIT_VENDOR_ABI_VERSION
#endif
#ifndef FAKE_DEVICE
#define FAKE_DEVICE OPKIT_DEVICE_CPU
#endif

namespace {

std::atomic<int> g_calls{0};
std::atomic<opkit_stream> g_last_stream{nullptr};

void mark(const char* what) {
    const char* path = getenv("FAKE_VENDOR_MARKER");
    if (!path) return;
    if (FILE* f = fopen(path, "a")) {
        fprintf(f, "%s %s\n", FAKE_NAME, what);
        fclose(f);
    }
}

#ifdef FAKE_UNRESOLVED
extern "C" int fake_vendor_symbol_nobody_defines(void);
#endif

// softmax of contiguous-innermost rows (the only layout validation lets through),
// f32 only: other dtypes are declined, which is also part of the contract.
opkit_status softmax_rows(const opkit_tensor* x, opkit_tensor* y) {
    if (x->dtype.code != OPKIT_DTYPE_FLOAT || x->dtype.bits != 32) return OPKIT_ERROR_UNSUPPORTED;
    const int64_t n = x->shape[x->ndim - 1];
    int64_t rows = 1;
    for (int32_t i = 0; i + 1 < x->ndim; ++i) rows *= x->shape[i];
    for (int64_t r = 0; r < rows; ++r) {
        // row address from the outer strides
        int64_t rem = r, xo = 0, yo = 0;
        for (int32_t i = x->ndim - 2; i >= 0; --i) {
            int64_t cs = 1;
            for (int32_t j = i + 1; j < x->ndim; ++j) cs *= x->shape[j];
            const int64_t idx = rem % x->shape[i];
            rem /= x->shape[i];
            xo += idx * (x->strides ? x->strides[i] : cs);
            yo += idx * (y->strides ? y->strides[i] : cs);
        }
        const float* a = reinterpret_cast<const float*>(static_cast<const char*>(x->data) + x->byte_offset) + xo;
        float* b = reinterpret_cast<float*>(static_cast<char*>(y->data) + y->byte_offset) + yo;
        float m = -INFINITY, s = 0;
        for (int64_t i = 0; i < n; ++i) m = a[i] > m ? a[i] : m;
        for (int64_t i = 0; i < n; ++i) s += std::exp(a[i] - m);
#ifdef FAKE_WRONG
        (void)s;  // forgets to normalize: opkit-conformance must catch it
        for (int64_t i = 0; i < n; ++i) b[i] = std::exp(a[i] - m);
#else
        for (int64_t i = 0; i < n; ++i) b[i] = std::exp(a[i] - m) / s;
#endif
    }
    return OPKIT_OK;
}

}  // namespace

extern "C" {

// Exported through its declaration in opkit_vendor.h.
const uint32_t opkit_vendor_abi_version = FAKE_ABI;

OPKIT_VENDOR_EXPORT int fake_vendor_calls(void) { return g_calls.load(); }
OPKIT_VENDOR_EXPORT opkit_stream fake_vendor_last_stream(void) { return g_last_stream.load(); }

#ifndef FAKE_NO_INIT
OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_init(const opkit_vendor_host* host, opkit_vendor_desc* desc) {
    mark("init");
#ifdef FAKE_UNRESOLVED
    fake_vendor_symbol_nobody_defines();
#endif
#ifdef FAKE_INIT_THROWS
    throw std::runtime_error("boom");
#endif
    if (!host || host->struct_size < sizeof(opkit_vendor_host)) return OPKIT_ERROR_INVALID_ARGUMENT;
    desc->name = FAKE_NAME;
    desc->version = "0.1-test";
    desc->device_type = FAKE_DEVICE;
    desc->priority = 10;
    desc->device_count = 1;
#ifdef FAKE_INIT_FAILS
    desc->detail = "the fake device is on fire";
    return OPKIT_ERROR_DEVICE;
#endif
    return OPKIT_OK;
}
#endif

OPKIT_VENDOR_EXPORT void opkit_vendor_shutdown(void) { mark("shutdown"); }

OPKIT_VENDOR_EXPORT const char* opkit_vendor_last_error(void) { return "fake vendor: declined on purpose"; }

#ifdef FAKE_ACCEL
// A pretend accelerator whose "device memory" is host memory.
OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_malloc(opkit_device, size_t bytes, void** ptr) {
    // Misbehaviour on request: "succeeds" with NULL for 13 bytes (libopkit must refuse it).
    if (bytes == 13) {
        *ptr = nullptr;
        return OPKIT_OK;
    }
    *ptr = malloc(bytes ? bytes : 1);
    return *ptr ? OPKIT_OK : OPKIT_ERROR_OUT_OF_MEMORY;
}
OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_free(opkit_device, void* ptr) {
    free(ptr);
    return OPKIT_OK;
}
OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_memcpy(void* dst, opkit_device, const void* src, opkit_device,
                                                     size_t bytes, opkit_stream) {
    memmove(dst, src, bytes);
    return OPKIT_OK;
}
OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_stream_create(opkit_device, opkit_stream* s) {
    *s = reinterpret_cast<opkit_stream>(0x5);
    return OPKIT_OK;
}
OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_stream_destroy(opkit_device, opkit_stream) { return OPKIT_OK; }
OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_synchronize(opkit_device, opkit_stream) { return OPKIT_OK; }
#endif

}  // extern "C"

// The ops, taking the spec's argument structs; their exported opkit_vendor_<op> symbols
// are expanded from the op spec below, as the in-tree GPU vendors do.
namespace {

opkit_status softmax_forward(const opkit::args::softmax_forward& a) {
#ifdef FAKE_DECLINE_ALL
    (void)a;
    return OPKIT_ERROR_UNSUPPORTED;
#endif
#ifdef FAKE_DECLINE_SHORT
    if (a.x->shape[a.x->ndim - 1] < 8) return OPKIT_ERROR_UNSUPPORTED;
#endif
#ifdef FAKE_DECLINE_ODD
    // Misbehaviour on request, to prove libopkit contains it: rows of 14 throw a C++
    // exception across the C ABI, rows of 16 return a status that does not exist.
    if (a.x->shape[a.x->ndim - 1] == 14) throw std::runtime_error("vendor bug");
    if (a.x->shape[a.x->ndim - 1] == 16) return 42;
    if (a.x->shape[a.x->ndim - 1] % 2) return OPKIT_ERROR_UNSUPPORTED;
#endif
    ++g_calls;
    g_last_stream = a.stream;
    return softmax_rows(a.x, a.y);
}

#ifdef FAKE_ROPE
// Rotate-half rope, f32 only, on [B,T,H,D] with any outer strides (innermost contiguous,
// as validation guarantees); cos/sin [T,D] or [B,T,D].
opkit_status rope(const opkit_tensor* x, const opkit_tensor* cos, const opkit_tensor* sin, opkit_tensor* y,
                  bool backward) {
    if (x->dtype.code != OPKIT_DTYPE_FLOAT || x->dtype.bits != 32 || x->shape[2] == 5) return OPKIT_ERROR_UNSUPPORTED;
    ++g_calls;
    auto at = [](const opkit_tensor* t, std::initializer_list<int64_t> idx) {
        int64_t off = 0, dense = 1, i = int64_t(idx.size()) - 1;
        for (auto it = idx.end(); it != idx.begin(); --i) {
            --it;
            off += *it * (t->strides ? t->strides[i] : dense);
            dense *= t->shape[i];
        }
        return reinterpret_cast<float*>(static_cast<char*>(t->data) + t->byte_offset) + off;
    };
    const int64_t B = x->shape[0], T = x->shape[1], H = x->shape[2], D = x->shape[3], h = D / 2;
    float tmp[1024];
    if (D > 1024) return OPKIT_ERROR_UNSUPPORTED;
    for (int64_t b = 0; b < B; ++b)
        for (int64_t t = 0; t < T; ++t)
            for (int64_t hh = 0; hh < H; ++hh) {
                const float* c = cos->ndim == 3 ? at(cos, {b, t, 0}) : at(cos, {t, 0});
                const float* s = sin->ndim == 3 ? at(sin, {b, t, 0}) : at(sin, {t, 0});
                const float* xi = at(x, {b, t, hh, 0});
                for (int64_t i = 0; i < D; ++i)
                    tmp[i] = !backward ? xi[i] * c[i] + (i < h ? -xi[i + h] : xi[i - h]) * s[i]
                                       : xi[i] * c[i] + (i < h ? xi[i + h] * s[i + h] : -xi[i - h] * s[i - h]);
                std::memcpy(at(y, {b, t, hh, 0}), tmp, size_t(D) * sizeof(float));
            }
    return OPKIT_OK;
}
opkit_status rope_forward(const opkit::args::rope_forward& a) { return rope(a.x, a.cos, a.sin, a.y, false); }
opkit_status rope_backward(const opkit::args::rope_backward& a) { return rope(a.dy, a.cos, a.sin, a.dx, true); }
#endif

#ifndef FAKE_ACCEL
// Serving the CPU: one more op so that "a subset" is more than one.
opkit_status axpy(const opkit::args::axpy& a) {
#ifdef FAKE_DECLINE_ALL
    return OPKIT_ERROR_UNSUPPORTED;
#endif
    ++g_calls;
    // f32 and dense (row-major, no padding) only: the rest is declined.
    auto dense = [](const opkit_tensor* t) {
        int64_t expect = 1;
        for (int32_t i = t->ndim - 1; i >= 0; --i) {
            if (t->strides && t->shape[i] != 1 && t->strides[i] != expect) return false;
            expect *= t->shape[i];
        }
        return true;
    };
    if (a.x->dtype.code != OPKIT_DTYPE_FLOAT || a.x->dtype.bits != 32 || !dense(a.x) || !dense(a.y))
        return OPKIT_ERROR_UNSUPPORTED;
    int64_t n = 1;
    for (int32_t i = 0; i < a.x->ndim; ++i) n *= a.x->shape[i];
    const float* src = reinterpret_cast<const float*>(static_cast<const char*>(a.x->data) + a.x->byte_offset);
    float* dst = reinterpret_cast<float*>(static_cast<char*>(a.y->data) + a.y->byte_offset);
    for (int64_t i = 0; i < n; ++i) dst[i] += a.alpha * src[i];
    return OPKIT_OK;
}
#endif

}  // namespace

OPKIT_SPEC_DEFINE_ENTRY(OPKIT_VENDOR_EXPORT, opkit_vendor_, softmax_forward, softmax_forward)
#ifdef FAKE_ROPE
OPKIT_SPEC_DEFINE_ENTRY(OPKIT_VENDOR_EXPORT, opkit_vendor_, rope_forward, rope_forward)
OPKIT_SPEC_DEFINE_ENTRY(OPKIT_VENDOR_EXPORT, opkit_vendor_, rope_backward, rope_backward)
#endif
#ifndef FAKE_ACCEL
OPKIT_SPEC_DEFINE_ENTRY(OPKIT_VENDOR_EXPORT, opkit_vendor_, axpy, axpy)
#endif
