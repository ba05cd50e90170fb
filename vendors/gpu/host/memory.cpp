// Memory and streams on the vendor's devices: opkit_vendor_malloc, _free, _memcpy,
// _stream_create, _stream_destroy, _synchronize, each inside a DeviceScope.
//
// opkit_vendor_memcpy: device-to-device copies are asynchronous on the stream (a copy
// between two devices goes through memcpy_peer_async). A copy with a host side is
// issued on the stream, so it is ordered after the work already queued there, and the
// stream is then synchronized: on return the host buffer may be read or reused, as
// opkit_memcpy promises for host memory.
#include "device.h"
#include "status.h"

namespace {

using namespace opkit_gpu;

bool on_device(opkit_device d) { return d.device_type == runtime().device_type(); }

opkit_status copy(void* dst, opkit_device dst_device, const void* src, opkit_device src_device,
                  size_t bytes, opkit_stream stream) {
    if (bytes == 0) return OPKIT_OK;
    const bool dst_dev = on_device(dst_device), src_dev = on_device(src_device);
    if (!dst_dev && !src_dev)
        return fail(OPKIT_ERROR_INVALID_ARGUMENT, "opkit_vendor_memcpy: neither side is a %s device",
                    runtime().name());
    if (dst_dev && src_dev && dst_device.device_id != src_device.device_id) {
        DeviceScope src_scope;  // opens the source device too
        OPKIT_GPU_TRY(src_scope.enter(src_device.device_id));
        DeviceScope scope;
        OPKIT_GPU_TRY(scope.enter(dst_device.device_id));
        return runtime().memcpy_peer_async(dst, scope.dev(), src, src_scope.dev(), bytes, stream);
    }
    DeviceScope scope;
    OPKIT_GPU_TRY(scope.enter(dst_dev ? dst_device.device_id : src_device.device_id));
    // Unified addressing: one call covers host->device, device->host and device->device.
    OPKIT_GPU_TRY(runtime().memcpy_async(dst, src, bytes, stream));
    if (!dst_dev || !src_dev) OPKIT_GPU_TRY(runtime().stream_synchronize(stream));
    return OPKIT_OK;
}

}  // namespace

extern "C" OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_malloc(opkit_device device, size_t bytes,
                                                                void** ptr) {
    return guarded("opkit_vendor_malloc", [&]() -> opkit_status {
        DeviceScope scope;
        OPKIT_GPU_TRY(scope.enter(device.device_id));
        // 0 bytes: a 1-byte allocation; a unique, freeable pointer is more useful than NULL.
        return runtime().mem_alloc(scope.dev(), bytes ? bytes : 1, ptr);
    });
}

extern "C" OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_free(opkit_device device, void* ptr) {
    return guarded("opkit_vendor_free", [&]() -> opkit_status {
        if (!ptr) return OPKIT_OK;
        DeviceScope scope;
        OPKIT_GPU_TRY(scope.enter(device.device_id));
        return runtime().mem_free(ptr);
    });
}

extern "C" OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_memcpy(void* dst, opkit_device dst_device,
                                                                const void* src, opkit_device src_device,
                                                                size_t bytes, opkit_stream stream) {
    return guarded("opkit_vendor_memcpy",
                   [&]() { return copy(dst, dst_device, src, src_device, bytes, stream); });
}

extern "C" OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_stream_create(opkit_device device,
                                                                       opkit_stream* stream) {
    return guarded("opkit_vendor_stream_create", [&]() -> opkit_status {
        DeviceScope scope;
        OPKIT_GPU_TRY(scope.enter(device.device_id));
        return runtime().stream_create(stream);
    });
}

extern "C" OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_stream_destroy(opkit_device device,
                                                                        opkit_stream stream) {
    return guarded("opkit_vendor_stream_destroy", [&]() -> opkit_status {
        if (!stream) return OPKIT_OK;
        DeviceScope scope;
        OPKIT_GPU_TRY(scope.enter(device.device_id));
        return runtime().stream_destroy(stream);
    });
}

extern "C" OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_synchronize(opkit_device device,
                                                                     opkit_stream stream) {
    return guarded("opkit_vendor_synchronize", [&]() -> opkit_status {
        DeviceScope scope;
        OPKIT_GPU_TRY(scope.enter(device.device_id));
        // NULL: everything on the device
        return stream ? runtime().stream_synchronize(stream) : runtime().device_synchronize();
    });
}
