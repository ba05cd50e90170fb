#include "device.h"

#include "cann_library.h"
#include "errors.h"

#include <cstring>

namespace opkit_ascend {
namespace {

std::vector<std::unique_ptr<Device>> g_devices;
bool g_aclnn_initialized = false;  // process-wide: the .so is never unloaded
std::mutex g_aclnn_mu;

constexpr size_t kArenaGranule = size_t(64) << 10;

void free_quietly(void* p) {
    if (p) (void)cann()->rt.aclrtFree(p);
}

uint16_t half_one(int float_type) { return float_type == 1 ? 0x3c00 : 0x3f80; }  // f16 1.0, bf16 1.0

}  // namespace

bool is_ascend(opkit_device d) { return d.device_type == OPKIT_DEVICE_ASCEND || d.device_type == 12; }

void devices_init(int count) {
    g_devices.clear();
    for (int i = 0; i < count; ++i) {
        g_devices.push_back(std::make_unique<Device>());
        g_devices.back()->id = i;
    }
}

int device_count() { return int(g_devices.size()); }

void aclnn_init_once() {
    std::lock_guard<std::mutex> lock(g_aclnn_mu);
    if (g_aclnn_initialized) return;
    g_aclnn_initialized = true;
    // aclInit initializes aclnn too (audit:217), so a failure here (torch_npu ran
    // aclnnInit first, and it may be called only once) is not fatal: its text is drained
    // so that it does not reach the next error report.
    if (cann()->nn.aclnnInit(nullptr) != acl::kNnSuccess) (void)take_recent_message();
}

void devices_shutdown() {
    const Cann* c = cann();
    for (auto& d : g_devices) {
        std::vector<void*> buffers;
        for (auto& [stream, cache] : d->streams) {
            buffers.push_back(cache->temps.ptr);
            buffers.push_back(cache->work.ptr);
        }
        for (auto& o : d->ones) buffers.push_back(o.ptr);
        buffers.insert(buffers.end(), d->retired.begin(), d->retired.end());
        bool any = false;
        for (void* p : buffers) any = any || p;
        if (!any || !c) continue;
        // Work still queued may use these buffers: wait for the device, then free.
        if (c->rt.aclrtSetDevice(d->id) == acl::kSuccess && c->rt.aclrtSynchronizeDevice() == acl::kSuccess)
            for (void* p : buffers) free_quietly(p);
        (void)take_recent_message();
    }
    g_devices.clear();
}

DeviceScope::~DeviceScope() {
    if (dev_ && restore_ >= 0) (void)cann()->rt.aclrtSetDevice(restore_);
}

opkit_status DeviceScope::enter(int id) {
    if (id < 0 || id >= int(g_devices.size()))
        return fail(OPKIT_ERROR_INVALID_ARGUMENT, "ascend device %d does not exist (%d found)", id,
                    int(g_devices.size()));
    const Cann* c = cann();
    int32_t current = -1;
    if (c->rt.aclrtGetDevice(&current) != acl::kSuccess) {
        current = -1;  // no device set on this thread yet: nothing to give back
        (void)take_recent_message();
    }
    if (current != id) {
        const acl::Error e = c->rt.aclrtSetDevice(id);
        if (e != acl::kSuccess) return fail_acl(("aclrtSetDevice(" + std::to_string(id) + ")").c_str(), e);
        restore_ = current;
    }
    dev_ = g_devices[size_t(id)].get();
    return OPKIT_OK;
}

StreamLease::~StreamLease() {
    if (cache_) cache_->mu.unlock();
}

void StreamLease::acquire(Device& d, acl::Stream s) {
    StreamCache* cache;
    {
        std::lock_guard<std::mutex> lock(d.mu);
        auto& slot = d.streams[s];
        if (!slot) slot = std::make_unique<StreamCache>();
        cache = slot.get();
    }
    cache->mu.lock();
    cache_ = cache;
    stream_ = s;
}

opkit_status StreamLease::reserve(Arena& a, size_t bytes, const char* what, void** out) {
    if (a.size >= bytes && a.ptr) {
        *out = a.ptr;
        return OPKIT_OK;
    }
    const Cann* c = cann();
    if (a.ptr) {
        // The old buffer may still be in use by work queued on this stream.
        const acl::Error e = c->rt.aclrtSynchronizeStream(stream_);
        if (e != acl::kSuccess) return fail_acl("aclrtSynchronizeStream (before growing the workspace)", e);
        free_quietly(a.ptr);
        a = Arena{};
    }
    const size_t size = (bytes + kArenaGranule - 1) / kArenaGranule * kArenaGranule;
    void* p = nullptr;
    const acl::Error e = c->rt.aclrtMalloc(&p, size, acl::MallocPolicy::HugeFirst);
    if (e != acl::kSuccess) {
        const opkit_status s = fail_acl("aclrtMalloc", e);
        const std::string why = last_error();
        return fail(s, "%s: %zu bytes of device memory: %s", what, size, why.c_str());
    }
    a.ptr = p;
    a.size = size;
    *out = p;
    return OPKIT_OK;
}

opkit_status ones(Device& d, int float_type, int64_t n, void** out) {
    std::lock_guard<std::mutex> lock(d.mu);
    Device::Ones& o = d.ones[float_type];
    if (o.count >= n && o.ptr) {
        *out = o.ptr;
        return OPKIT_OK;
    }
    const int64_t count = (n + 4095) / 4096 * 4096;
    const size_t es = float_type == 0 ? 4 : 2;
    std::vector<unsigned char> host(size_t(count) * es);
    for (int64_t i = 0; i < count; ++i) {
        if (float_type == 0) {
            const float one = 1.0f;
            std::memcpy(&host[size_t(i) * 4], &one, 4);
        } else {
            const uint16_t one = half_one(float_type);
            std::memcpy(&host[size_t(i) * 2], &one, 2);
        }
    }
    const Cann* c = cann();
    void* p = nullptr;
    acl::Error e = c->rt.aclrtMalloc(&p, host.size(), acl::MallocPolicy::HugeFirst);
    if (e != acl::kSuccess) return fail_acl("aclrtMalloc (a vector of ones)", e);
    // Synchronous: the new buffer is filled before any work that reads it is queued.
    e = c->rt.aclrtMemcpy(p, host.size(), host.data(), host.size(), acl::MemcpyKind::HostToDevice);
    if (e != acl::kSuccess) {
        const opkit_status s = fail_acl("aclrtMemcpy (a vector of ones)", e);
        free_quietly(p);
        return s;
    }
    // Work queued on any stream may still read the old one.
    if (o.ptr) d.retired.push_back(o.ptr);
    o.ptr = p;
    o.count = count;
    *out = p;
    return OPKIT_OK;
}

void forget_stream(Device& d, acl::Stream s) {
    std::unique_ptr<StreamCache> cache;
    {
        std::lock_guard<std::mutex> lock(d.mu);
        auto it = d.streams.find(s);
        if (it == d.streams.end()) return;
        cache = std::move(it->second);
        d.streams.erase(it);
    }
    std::lock_guard<std::mutex> busy(cache->mu);  // a call still using it finishes first
    // The caller synchronized the stream before destroying it.
    free_quietly(cache->temps.ptr);
    free_quietly(cache->work.ptr);
}

}  // namespace opkit_ascend
