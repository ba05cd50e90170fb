// Public memory and stream functions. CPU memory is the host heap; every other device
// type routes to the vendor that serves it (the first ready one in resolution order).
#include "error.h"
#include "runtime.h"
#include "validate.h"
#include "vendor_call.h"

#include <cstdlib>
#include <cstring>

using namespace opkit;

namespace {

constexpr size_t kHostAlignment = 64;  // a cache line: good for the vectorized kernels

// The vendor serving memory for `device`, after checking the device is usable.
opkit_status memory_vendor(const char* what, opkit_device device, const loader::Vendor** out) {
    OPKIT_TRY(validate::device_usable(what, device));
    const Runtime* rt = runtime_if_initialized();
    const DeviceEntry* d = rt->device(canonical_device_type(device.device_type));
    *out = &rt->vendors[size_t(d->memory_vendor)];
    return OPKIT_OK;
}

bool is_cpu(opkit_device d) { return canonical_device_type(d.device_type) == OPKIT_DEVICE_CPU; }

template <class F>
opkit_status api(const char* what, F&& f) {
    return guard(what, [&]() -> opkit_status {
        clear_error();
        if (!runtime()) return OPKIT_ERROR_INTERNAL;
        return f();
    });
}

}  // namespace

extern "C" OPKIT_API opkit_status opkit_malloc(opkit_device device, size_t bytes, void** ptr) {
    return api("opkit_malloc", [&]() -> opkit_status {
        if (!ptr) return fail(OPKIT_ERROR_INVALID_ARGUMENT, "opkit_malloc: ptr is NULL");
        if (is_cpu(device)) {
            const size_t rounded = (bytes + kHostAlignment - 1) / kHostAlignment * kHostAlignment;
            if (rounded < bytes)
                return fail(OPKIT_ERROR_OUT_OF_MEMORY, "opkit_malloc: %zu bytes is too large", bytes);
            void* p = std::aligned_alloc(kHostAlignment, rounded ? rounded : kHostAlignment);
            if (!p)
                return fail(OPKIT_ERROR_OUT_OF_MEMORY, "opkit_malloc: out of host memory (%zu bytes)",
                            bytes);
            *ptr = p;
            return OPKIT_OK;
        }
        const loader::Vendor* v;
        OPKIT_TRY(memory_vendor("opkit_malloc", device, &v));
        void* p = nullptr;
        OPKIT_TRY(call_vendor(*v, "opkit_malloc", v->memory.malloc_fn, device, bytes, &p));
        // A vendor bug caught here rather than as a NULL dereference on the device later.
        if (!p && bytes > 0)
            return fail(OPKIT_ERROR_VENDOR, "opkit_malloc: vendor '%s' reported success but returned NULL for %zu bytes",
                        v->name.c_str(), bytes);
        *ptr = p;
        return OPKIT_OK;
    });
}

extern "C" OPKIT_API opkit_status opkit_free(opkit_device device, void* ptr) {
    return api("opkit_free", [&]() -> opkit_status {
        if (!ptr) return OPKIT_OK;
        if (is_cpu(device)) {
            std::free(ptr);
            return OPKIT_OK;
        }
        const loader::Vendor* v;
        OPKIT_TRY(memory_vendor("opkit_free", device, &v));
        return call_vendor(*v, "opkit_free", v->memory.free_fn, device, ptr);
    });
}

extern "C" OPKIT_API opkit_status opkit_memcpy(void* dst, opkit_device dst_device, const void* src,
                                               opkit_device src_device, size_t bytes,
                                               opkit_stream stream) {
    return api("opkit_memcpy", [&]() -> opkit_status {
        if (bytes == 0) return OPKIT_OK;
        if (!dst || !src)
            return fail(OPKIT_ERROR_INVALID_ARGUMENT, "opkit_memcpy: %s is NULL with %zu bytes to copy",
                        dst ? "src" : "dst", bytes);
        if (is_cpu(dst_device) && is_cpu(src_device)) {
            std::memmove(dst, src, bytes);
            return OPKIT_OK;
        }
        const opkit_device dev = is_cpu(dst_device) ? src_device : dst_device;
        if (!is_cpu(dst_device) && !is_cpu(src_device) &&
            canonical_device_type(dst_device.device_type) != canonical_device_type(src_device.device_type))
            return fail(OPKIT_ERROR_UNSUPPORTED,
                        "opkit_memcpy: copies between %s and %s memory are not supported; stage "
                        "through the host",
                        device_type_name(src_device.device_type), device_type_name(dst_device.device_type));
        const loader::Vendor* v;
        OPKIT_TRY(memory_vendor("opkit_memcpy", dev, &v));
        if (!is_cpu(src_device) && !is_cpu(dst_device)) OPKIT_TRY(validate::device_usable("opkit_memcpy", src_device));
        return call_vendor(*v, "opkit_memcpy", v->memory.memcpy_fn, dst, dst_device, src, src_device,
                           bytes, stream);
    });
}

extern "C" OPKIT_API opkit_status opkit_stream_create(opkit_device device, opkit_stream* stream) {
    return api("opkit_stream_create", [&]() -> opkit_status {
        if (!stream) return fail(OPKIT_ERROR_INVALID_ARGUMENT, "opkit_stream_create: stream is NULL");
        if (is_cpu(device)) {  // CPU ops complete before returning: the NULL stream is enough
            *stream = nullptr;
            return OPKIT_OK;
        }
        const loader::Vendor* v;
        OPKIT_TRY(memory_vendor("opkit_stream_create", device, &v));
        opkit_stream s = nullptr;
        OPKIT_TRY(call_vendor(*v, "opkit_stream_create", v->memory.stream_create_fn, device, &s));
        *stream = s;
        return OPKIT_OK;
    });
}

extern "C" OPKIT_API opkit_status opkit_stream_destroy(opkit_device device, opkit_stream stream) {
    return api("opkit_stream_destroy", [&]() -> opkit_status {
        if (is_cpu(device) || !stream) return OPKIT_OK;
        const loader::Vendor* v;
        OPKIT_TRY(memory_vendor("opkit_stream_destroy", device, &v));
        return call_vendor(*v, "opkit_stream_destroy", v->memory.stream_destroy_fn, device, stream);
    });
}

extern "C" OPKIT_API opkit_status opkit_synchronize(opkit_device device, opkit_stream stream) {
    return api("opkit_synchronize", [&]() -> opkit_status {
        if (is_cpu(device)) return OPKIT_OK;
        const loader::Vendor* v;
        OPKIT_TRY(memory_vendor("opkit_synchronize", device, &v));
        return call_vendor(*v, "opkit_synchronize", v->memory.synchronize_fn, device, stream);
    });
}
