// Memory and streams on the NPU: opkit_vendor_malloc, _free, _memcpy, _stream_create,
// _stream_destroy, _synchronize, each on the device it names (DeviceScope).
//
// Copies with a host side synchronize the stream first (so they are ordered after the
// work queued there) and then copy synchronously with aclrtMemcpy: on return the host
// buffer may be read or reused, as opkit_memcpy promises. Device-to-device copies are
// asynchronous on the stream (aclrtMemcpyAsync) when both sides are 64-byte aligned, as
// the runtime requires on the chip (audit:166); other device copies (unaligned, or
// between two devices, which would need peer access) are staged through the host.
#include "cann_library.h"
#include "device.h"
#include "errors.h"

#include <vector>

namespace opkit_ascend {
namespace {

// opkit_synchronize's meaning: a stream, or the whole device for NULL.
opkit_status sync_stream(acl::Stream s) {
    const acl::Error e = s ? cann()->rt.aclrtSynchronizeStream(s) : cann()->rt.aclrtSynchronizeDevice();
    return e == acl::kSuccess ? OPKIT_OK : fail_acl(s ? "aclrtSynchronizeStream" : "aclrtSynchronizeDevice", e);
}

// Waits for the work queued on the stream (NULL: the device's default stream, audit:169),
// then copies synchronously.
opkit_status copy_sync(void* dst, const void* src, size_t bytes, acl::MemcpyKind kind, acl::Stream s) {
    acl::Error e = cann()->rt.aclrtSynchronizeStream(s);
    if (e != acl::kSuccess) return fail_acl("aclrtSynchronizeStream (before aclrtMemcpy)", e);
    e = cann()->rt.aclrtMemcpy(dst, bytes, src, bytes, kind);
    return e == acl::kSuccess ? OPKIT_OK : fail_acl("aclrtMemcpy", e);
}

bool aligned64(const void* p) { return (reinterpret_cast<uintptr_t>(p) & 63u) == 0; }

opkit_status copy(void* dst, opkit_device dd, const void* src, opkit_device sd, size_t bytes, acl::Stream s) {
    if (bytes == 0) return OPKIT_OK;
    const bool to_dev = is_ascend(dd), from_dev = is_ascend(sd);
    if (!to_dev && !from_dev)
        return fail(OPKIT_ERROR_INVALID_ARGUMENT, "opkit_vendor_memcpy: neither side is an ascend device");
    if (to_dev && !from_dev) {
        DeviceScope scope;
        OPKIT_ASCEND_TRY(scope.enter(dd.device_id));
        return copy_sync(dst, src, bytes, acl::MemcpyKind::HostToDevice, s);
    }
    if (!to_dev) {
        DeviceScope scope;
        OPKIT_ASCEND_TRY(scope.enter(sd.device_id));
        return copy_sync(dst, src, bytes, acl::MemcpyKind::DeviceToHost, s);
    }
    if (dd.device_id == sd.device_id && aligned64(dst) && aligned64(src)) {
        DeviceScope scope;
        OPKIT_ASCEND_TRY(scope.enter(dd.device_id));
        const acl::Error e =
            cann()->rt.aclrtMemcpyAsync(dst, bytes, src, bytes, acl::MemcpyKind::DeviceToDevice, s);
        return e == acl::kSuccess ? OPKIT_OK : fail_acl("aclrtMemcpyAsync", e);
    }
    // Through the host. The stream belongs to the destination's device; the source's
    // device is drained whole before reading.
    std::vector<unsigned char> staging(bytes);
    {
        DeviceScope scope;
        OPKIT_ASCEND_TRY(scope.enter(sd.device_id));
        if (sd.device_id == dd.device_id) {
            OPKIT_ASCEND_TRY(copy_sync(staging.data(), src, bytes, acl::MemcpyKind::DeviceToHost, s));
        } else {
            OPKIT_ASCEND_TRY(sync_stream(nullptr));
            const acl::Error e =
                cann()->rt.aclrtMemcpy(staging.data(), bytes, src, bytes, acl::MemcpyKind::DeviceToHost);
            if (e != acl::kSuccess) return fail_acl("aclrtMemcpy", e);
        }
    }
    DeviceScope scope;
    OPKIT_ASCEND_TRY(scope.enter(dd.device_id));
    return copy_sync(dst, staging.data(), bytes, acl::MemcpyKind::HostToDevice, s);
}

}  // namespace
}  // namespace opkit_ascend

using namespace opkit_ascend;

extern "C" OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_malloc(opkit_device device, size_t bytes, void** ptr) {
    return guarded("opkit_vendor_malloc", [&]() -> opkit_status {
        DeviceScope scope;
        OPKIT_ASCEND_TRY(scope.enter(device.device_id));
        // 0 bytes: 1 (aclrtMalloc takes no empty allocation; a unique, freeable pointer is
        // more useful than NULL).
        const acl::Error e = cann()->rt.aclrtMalloc(ptr, bytes ? bytes : 1, acl::MallocPolicy::HugeFirst);
        if (e == acl::kSuccess) return OPKIT_OK;
        const opkit_status s = fail_acl("aclrtMalloc", e);
        const std::string why = last_error();
        return fail(s, "opkit_malloc: %zu bytes on ascend device %d: %s", bytes, device.device_id, why.c_str());
    });
}

extern "C" OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_free(opkit_device device, void* ptr) {
    return guarded("opkit_vendor_free", [&]() -> opkit_status {
        if (!ptr) return OPKIT_OK;
        DeviceScope scope;
        OPKIT_ASCEND_TRY(scope.enter(device.device_id));
        // Like cudaFree: queued work that may still use the buffer finishes first. A device
        // error that synchronization reports is returned, but the buffer is freed anyway:
        // the work it failed has stopped, and a caller cannot retry a free.
        const acl::Error synced = cann()->rt.aclrtSynchronizeDevice();
        const opkit_status s =
            synced == acl::kSuccess ? OPKIT_OK : fail_acl("aclrtSynchronizeDevice (before aclrtFree)", synced);
        const acl::Error e = cann()->rt.aclrtFree(ptr);
        if (e != acl::kSuccess) return fail_acl("aclrtFree", e);
        return s;
    });
}

extern "C" OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_memcpy(void* dst, opkit_device dst_device, const void* src,
                                                                opkit_device src_device, size_t bytes,
                                                                opkit_stream stream) {
    return guarded("opkit_vendor_memcpy",
                   [&]() { return copy(dst, dst_device, src, src_device, bytes, acl::Stream(stream)); });
}

extern "C" OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_stream_create(opkit_device device, opkit_stream* stream) {
    return guarded("opkit_vendor_stream_create", [&]() -> opkit_status {
        DeviceScope scope;
        OPKIT_ASCEND_TRY(scope.enter(device.device_id));
        acl::Stream s = nullptr;
        const acl::Error e = cann()->rt.aclrtCreateStream(&s);
        if (e != acl::kSuccess) return fail_acl("aclrtCreateStream", e);
        *stream = s;
        return OPKIT_OK;
    });
}

extern "C" OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_stream_destroy(opkit_device device, opkit_stream stream) {
    return guarded("opkit_vendor_stream_destroy", [&]() -> opkit_status {
        if (!stream) return OPKIT_OK;
        DeviceScope scope;
        OPKIT_ASCEND_TRY(scope.enter(device.device_id));
        // Synchronize first (audit:167); then the stream's cached buffers can go.
        acl::Error e = cann()->rt.aclrtSynchronizeStream(stream);
        if (e != acl::kSuccess) return fail_acl("aclrtSynchronizeStream (before aclrtDestroyStream)", e);
        forget_stream(scope.dev(), stream);
        e = cann()->rt.aclrtDestroyStream(stream);
        return e == acl::kSuccess ? OPKIT_OK : fail_acl("aclrtDestroyStream", e);
    });
}

extern "C" OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_synchronize(opkit_device device, opkit_stream stream) {
    return guarded("opkit_vendor_synchronize", [&]() -> opkit_status {
        DeviceScope scope;
        OPKIT_ASCEND_TRY(scope.enter(device.device_id));
        return sync_stream(stream);  // NULL: the whole device
    });
}
