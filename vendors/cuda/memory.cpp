// Memory and streams on CUDA devices, in each device's primary context.
//
// opkit_vendor_memcpy: device-to-device copies are asynchronous on the stream (a copy
// between two devices goes through cuMemcpyPeerAsync). A copy with a host side is
// issued on the stream, so it is ordered after the work already queued there, and the
// stream is then synchronized: on return the host buffer may be read or reused, as
// opkit_memcpy promises for host memory.
#include "device.h"
#include "status.h"

namespace {

using namespace opkit_cuda;

bool on_cuda(opkit_device d) { return d.device_type == OPKIT_DEVICE_CUDA; }

CUstream as_stream(opkit_stream s) { return static_cast<CUstream>(s); }

opkit_status copy(void* dst, opkit_device dst_device, const void* src, opkit_device src_device,
                  size_t bytes, opkit_stream stream) {
    if (bytes == 0) return OPKIT_OK;
    const bool dst_dev = on_cuda(dst_device), src_dev = on_cuda(src_device);
    if (!dst_dev && !src_dev)
        return fail(OPKIT_ERROR_INVALID_ARGUMENT, "opkit_vendor_memcpy: neither side is a CUDA device");
    const CUstream s = as_stream(stream);
    const auto d_dst = reinterpret_cast<CUdeviceptr>(dst);
    const auto d_src = reinterpret_cast<CUdeviceptr>(src);
    if (dst_dev && src_dev && dst_device.device_id != src_device.device_id) {
        DeviceScope src_scope;  // opens the source device's context too
        OPKIT_CUDA_TRY(src_scope.enter(src_device.device_id));
        DeviceScope scope;
        OPKIT_CUDA_TRY(scope.enter(dst_device.device_id));
        OPKIT_CU_TRY(drv().cuMemcpyPeerAsync(d_dst, scope.dev().ctx, d_src, src_scope.dev().ctx, bytes, s));
        return OPKIT_OK;
    }
    DeviceScope scope;
    OPKIT_CUDA_TRY(scope.enter(dst_dev ? dst_device.device_id : src_device.device_id));
    // Unified addressing: one call covers host->device, device->host and device->device.
    OPKIT_CU_TRY(drv().cuMemcpyAsync(d_dst, d_src, bytes, s));
    if (!dst_dev || !src_dev) OPKIT_CU_TRY(drv().cuStreamSynchronize(s));
    return OPKIT_OK;
}

}  // namespace

extern "C" OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_malloc(opkit_device device, size_t bytes,
                                                                void** ptr) {
    return guarded("opkit_vendor_malloc", [&]() -> opkit_status {
        DeviceScope scope;
        OPKIT_CUDA_TRY(scope.enter(device.device_id));
        CUdeviceptr p = 0;
        // cuMemAlloc rejects 0 bytes; a unique, freeable pointer is more useful than NULL.
        const CUresult r = drv().cuMemAlloc(&p, bytes ? bytes : 1);
        if (r != CUDA_SUCCESS) {
            const std::string what = "cuMemAlloc(" + std::to_string(bytes) + " bytes on CUDA device " +
                                     std::to_string(device.device_id) + ")";
            return cu_fail(r, what.c_str());
        }
        *ptr = reinterpret_cast<void*>(p);
        return OPKIT_OK;
    });
}

extern "C" OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_free(opkit_device device, void* ptr) {
    return guarded("opkit_vendor_free", [&]() -> opkit_status {
        if (!ptr) return OPKIT_OK;
        DeviceScope scope;
        OPKIT_CUDA_TRY(scope.enter(device.device_id));
        OPKIT_CU_TRY(drv().cuMemFree(reinterpret_cast<CUdeviceptr>(ptr)));
        return OPKIT_OK;
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
        OPKIT_CUDA_TRY(scope.enter(device.device_id));
        CUstream s = nullptr;
        // Default flags, like cudaStreamCreate: work on it is also ordered with the
        // legacy default stream (the NULL stream of opkit calls).
        OPKIT_CU_TRY(drv().cuStreamCreate(&s, CU_STREAM_DEFAULT));
        *stream = s;
        return OPKIT_OK;
    });
}

extern "C" OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_stream_destroy(opkit_device device,
                                                                        opkit_stream stream) {
    return guarded("opkit_vendor_stream_destroy", [&]() -> opkit_status {
        if (!stream) return OPKIT_OK;
        DeviceScope scope;
        OPKIT_CUDA_TRY(scope.enter(device.device_id));
        OPKIT_CU_TRY(drv().cuStreamDestroy(as_stream(stream)));
        return OPKIT_OK;
    });
}

extern "C" OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_synchronize(opkit_device device,
                                                                     opkit_stream stream) {
    return guarded("opkit_vendor_synchronize", [&]() -> opkit_status {
        DeviceScope scope;
        OPKIT_CUDA_TRY(scope.enter(device.device_id));
        if (stream)
            OPKIT_CU_TRY(drv().cuStreamSynchronize(as_stream(stream)));
        else
            OPKIT_CU_TRY(drv().cuCtxSynchronize());  // NULL: everything on the device
        return OPKIT_OK;
    });
}
