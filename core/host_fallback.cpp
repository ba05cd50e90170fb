#include "host_fallback.h"

#include "error.h"
#include "log.h"
#include "tensor.h"
#include "vendor_call.h"

#include <cstring>

namespace opkit {

HostStaging::HostStaging(const Runtime& rt, opkit_device device, opkit_stream stream)
    : rt_(rt), device_(device), stream_(stream) {}

opkit_status HostStaging::stage(const opkit_tensor* t, bool output, opkit_tensor** host) {
    *host = nullptr;
    if (!t) return OPKIT_OK;
    // Byte extent of the view: offsets are non-negative (validated).
    const size_t elem = dtype_size(dtype_of(t));
    size_t bytes = 0;
    if (numel(t) > 0) {
        int64_t last = 0;
        for (int32_t i = 0; i < t->ndim; ++i) last += (t->shape[i] - 1) * stride_of(t, i);
        bytes = size_t(last + 1) * elem;
    }
    const char* lo = base_ptr(t);
    Buffer* buf = nullptr;
    for (Buffer& b : buffers_)
        if (b.device_lo == lo && b.bytes == bytes) buf = &b;
    if (!buf) {
        buffers_.push_back({lo, bytes, std::unique_ptr<char[]>(new char[bytes ? bytes : 1]), false});
        buf = &buffers_.back();
        if (bytes) {
            const DeviceEntry* d = rt_.device(device_.device_type);
            const loader::Vendor& v = rt_.vendors[size_t(d->memory_vendor)];
            OPKIT_TRY(call_vendor(v, "host fallback: memcpy to host", v.memory.memcpy_fn,
                                  static_cast<void*>(buf->host.get()), opkit_device{OPKIT_DEVICE_CPU, 0},
                                  static_cast<const void*>(lo), device_, bytes, stream_));
            OPKIT_TRY(call_vendor(v, "host fallback: synchronize", v.memory.synchronize_fn,
                                  device_, stream_));
        }
    }
    buf->output = buf->output || output;

    shadows_.emplace_back();
    Shadow& s = shadows_.back();
    s.t = *t;
    s.t.data = buf->host.get();
    s.t.byte_offset = 0;
    s.t.device = {OPKIT_DEVICE_CPU, 0};
    for (int32_t i = 0; i < t->ndim && i < 8; ++i) {
        s.shape[i] = t->shape[i];
        s.strides[i] = stride_of(t, i);
    }
    s.t.shape = s.shape;
    s.t.strides = s.strides;
    *host = &s.t;
    return OPKIT_OK;
}

opkit_status HostStaging::write_back() {
    const DeviceEntry* d = rt_.device(device_.device_type);
    const loader::Vendor& v = rt_.vendors[size_t(d->memory_vendor)];
    for (Buffer& b : buffers_) {
        if (!b.output || b.bytes == 0) continue;
        OPKIT_TRY(call_vendor(v, "host fallback: memcpy to device", v.memory.memcpy_fn,
                              const_cast<void*>(static_cast<const void*>(b.device_lo)), device_,
                              static_cast<const void*>(b.host.get()),
                              opkit_device{OPKIT_DEVICE_CPU, 0}, b.bytes, stream_));
    }
    return call_vendor(v, "host fallback: synchronize", v.memory.synchronize_fn, device_, stream_);
}

void log_fallback_once(Runtime& rt, OpId id, opkit_device dev) {
    if (!rt.fallback_logged[size_t(id)].exchange(true))
        logf(OPKIT_LOG_WARN,
             "%s on %s: no vendor serves it; running the CPU default through host copies "
             "(OPKIT_HOST_FALLBACK=1). This is slow.",
             kOpNames[int32_t(id)], device_type_name(dev.device_type));
}

opkit_status nobody_served(const Runtime& rt, OpId id, opkit_device dev, const std::string& declined) {
    const DeviceEntry* d = rt.device(dev.device_type);
    std::string vendors;
    for (int32_t vi : d->vendors) vendors += (vendors.empty() ? "" : ", ") + rt.vendors[size_t(vi)].name;
    return fail(OPKIT_ERROR_UNSUPPORTED,
                "%s on %s:%d: %s%s; set OPKIT_HOST_FALLBACK=1 to run it on the host instead",
                kOpNames[int32_t(id)], device_type_name(dev.device_type), int(dev.device_id),
                declined.empty() ? "no vendor implements it (ready vendors for this device: "
                                 : "every implementation declined: ",
                declined.empty() ? (vendors + ")").c_str() : declined.c_str());
}

}  // namespace opkit
