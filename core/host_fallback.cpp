#include "host_fallback.h"

#include "dispatch_record.h"

#include "error.h"
#include "log.h"
#include "tensor.h"
#include "vendor_call.h"

#include <algorithm>
#include <cstring>

namespace opkit {

HostStaging::HostStaging(const Runtime& rt, opkit_device device, opkit_stream stream)
    : rt_(rt), device_(device), stream_(stream) {}

void HostStaging::add(const opkit_tensor* t, bool output) {
    View v{t, 0, 0, output, 0};
    if (t && numel(t) > 0) {
        // Byte extent of the view: offsets are non-negative (validated).
        int64_t last = 0;
        for (int32_t i = 0; i < t->ndim; ++i) last += (t->shape[i] - 1) * stride_of(t, i);
        v.lo = reinterpret_cast<uintptr_t>(base_ptr(t));
        v.hi = v.lo + size_t(last + 1) * dtype_size(dtype_of(t));
    }
    views_.push_back(v);
}

opkit_status HostStaging::copy_in() {
    // Merge the non-empty ranges into regions (sorted by start; overlapping ranges join).
    std::vector<size_t> order;
    for (size_t i = 0; i < views_.size(); ++i)
        if (views_[i].lo != views_[i].hi) order.push_back(i);
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return views_[a].lo < views_[b].lo; });
    for (size_t i : order) {
        View& v = views_[i];
        if (regions_.empty() || v.lo >= regions_.back().hi)
            regions_.push_back({v.lo, v.hi, nullptr, nullptr, false});
        Region& r = regions_.back();
        r.hi = std::max(r.hi, v.hi);
        r.output = r.output || v.output;
        v.region = regions_.size() - 1;
    }
    const DeviceEntry* d = rt_.device(device_.device_type);
    const loader::Vendor& vendor = rt_.vendors[size_t(d->memory_vendor)];
    for (Region& r : regions_) {
        const size_t bytes = r.hi - r.lo;
        r.storage.reset(new char[bytes + 128]);
        const uintptr_t start = (reinterpret_cast<uintptr_t>(r.storage.get()) + 63) & ~uintptr_t(63);
        r.host = reinterpret_cast<char*>(start + (r.lo & 63));
        OPKIT_TRY(call_vendor(vendor, "host fallback: memcpy to host", vendor.memory.memcpy_fn,
                              static_cast<void*>(r.host), opkit_device{OPKIT_DEVICE_CPU, 0},
                              reinterpret_cast<const void*>(r.lo), device_, bytes, stream_));
    }
    if (regions_.empty()) return OPKIT_OK;
    return call_vendor(vendor, "host fallback: synchronize", vendor.memory.synchronize_fn, device_, stream_);
}

opkit_tensor* HostStaging::next_host() {
    const View& v = views_[next_++];
    if (!v.t) return nullptr;
    shadows_.emplace_back();
    Shadow& s = shadows_.back();
    s.t = *v.t;
    static char no_elements;  // a view with no elements is never read or written
    s.t.data = v.lo == v.hi ? &no_elements : regions_[v.region].host + (v.lo - regions_[v.region].lo);
    s.t.byte_offset = 0;
    s.t.device = {OPKIT_DEVICE_CPU, 0};
    for (int32_t i = 0; i < v.t->ndim && i < 8; ++i) {
        s.shape[i] = v.t->shape[i];
        s.strides[i] = stride_of(v.t, i);
    }
    s.t.shape = s.shape;
    s.t.strides = s.strides;
    return &s.t;
}

opkit_status HostStaging::write_back() {
    const DeviceEntry* d = rt_.device(device_.device_type);
    const loader::Vendor& v = rt_.vendors[size_t(d->memory_vendor)];
    for (Region& r : regions_) {
        if (!r.output) continue;
        OPKIT_TRY(call_vendor(v, "host fallback: memcpy to device", v.memory.memcpy_fn,
                              reinterpret_cast<void*>(r.lo), device_, static_cast<const void*>(r.host),
                              opkit_device{OPKIT_DEVICE_CPU, 0}, r.hi - r.lo, stream_));
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

void note_decline(const Runtime& rt, DispatchRecord& rec, const Candidate& c, OpId id, std::string& declined) {
    if (rec.declined++ == 0) rec.first_decliner = int16_t(c.vendor);
    if (c.vendor < 0) return;
    const loader::Vendor& v = rt.vendors[size_t(c.vendor)];
    declined += declined.empty() ? "" : "; ";
    declined += last_error();
    logf(OPKIT_LOG_DEBUG, "%s: vendor '%s' declined: %s", kOpNames[int32_t(id)], v.name.c_str(), last_error());
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
