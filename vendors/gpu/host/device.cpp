#include "device.h"

#include <memory>
#include <vector>

namespace opkit_gpu {
namespace {

std::vector<std::unique_ptr<Device>> g_devices;

// Scratch memory (embedding backward's accumulator rows, norm partials, ...) comes from a
// pool of opkit's own that keeps up to kScratchKeep bytes mapped between calls: the
// device's default pool releases everything at each synchronization (threshold 0), and
// mapping 100+ MiB again on every call cost more than the kernels (measured: embedding
// backward with 16384 ids). A pool of its own leaves the application's default pool, and
// its release policy, alone. Without one, the default pool serves as before.
constexpr uint64_t kScratchKeep = uint64_t(256) << 20;

// First use of a device: the runtime's per-device state and what the launches need.
opkit_status open_device(Device& d) {
    OPKIT_GPU_TRY(runtime().open_device(d));
    d.open = true;
    if (d.memory_pools) d.scratch_pool = runtime().pool_create(d, kScratchKeep);
    return OPKIT_OK;
}

}  // namespace

size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

void devices_init(int count) {
    g_devices.clear();
    for (int i = 0; i < count; ++i) {
        g_devices.push_back(std::make_unique<Device>());
        g_devices.back()->id = i;
    }
}

int device_count() { return int(g_devices.size()); }

void devices_shutdown() {
    Runtime& rt = runtime();
    const QuietErrors quiet;  // nothing to report to: release what can be released
    for (auto& d : g_devices) {
        if (!d->open) continue;
        intptr_t saved = 0;
        if (rt.enter(*d, &saved) == OPKIT_OK) {
            (void)rt.device_synchronize();  // kernels still queued must not outlive their module
            if (d->blas_release) d->blas_release(*d);
            if (d->scratch_pool) rt.pool_destroy(d->scratch_pool);
            for (void*& m : d->modules)
                if (m) rt.module_unload(m);
            rt.leave(*d, saved);
        }
        rt.close_device(*d);
    }
    g_devices.clear();
}

DeviceScope::~DeviceScope() {
    if (dev_) runtime().leave(*dev_, saved_);
}

opkit_status DeviceScope::enter(int id) {
    if (id < 0 || id >= int(g_devices.size()))
        return fail(OPKIT_ERROR_INVALID_ARGUMENT, "%s device %d does not exist (%d found)", runtime().name(), id,
                    int(g_devices.size()));
    Device& d = *g_devices[size_t(id)];
    {
        std::lock_guard<std::mutex> lock(d.mu);
        if (!d.open) OPKIT_GPU_TRY(open_device(d));
    }
    OPKIT_GPU_TRY(runtime().enter(d, &saved_));
    dev_ = &d;
    return OPKIT_OK;
}

opkit_status get_function(Device& d, Module m, const char* name, void** out) {
    std::lock_guard<std::mutex> lock(d.mu);
    auto it = d.functions.find(name);
    if (it != d.functions.end()) {
        *out = it->second;
        return OPKIT_OK;
    }
    void*& mod = d.modules[int(m)];
    if (!mod) {
        const Image img = module_image(m);
        OPKIT_GPU_TRY(runtime().module_load(img.data, img.size, module_name(m), &mod));
    }
    void* f = nullptr;
    OPKIT_GPU_TRY(runtime().module_function(mod, name, &f));
    d.functions.emplace(name, f);
    *out = f;
    return OPKIT_OK;
}

opkit_status allow_shared(Device& d, void* f, const char* name, size_t bytes) {
    std::lock_guard<std::mutex> lock(d.mu);
    size_t& allowed = d.shared_allowed[f];
    if (bytes <= allowed) return OPKIT_OK;
    OPKIT_GPU_TRY(runtime().set_max_dynamic_shared(f, name, bytes));
    allowed = bytes;
    return OPKIT_OK;
}

int active_clusters(Device& d, Module m, const char* name, unsigned block, size_t smem, int cluster) {
    if (!d.clusters) return 0;
    const auto key = std::make_pair(name, smem);
    {
        std::lock_guard<std::mutex> lock(d.mu);
        if (auto it = d.cluster_fit.find(key); it != d.cluster_fit.end()) return it->second;
    }
    const QuietErrors quiet;
    void* f = nullptr;
    int n = 0;
    if (get_function(d, m, name, &f) == OPKIT_OK) {
        // A failed query is not remembered (the next call asks again); a missing kernel is.
        if ((smem + kStaticSharedReserve > (size_t(48) << 10) && allow_shared(d, f, name, smem) != OPKIT_OK) ||
            runtime().max_active_clusters(f, name, block, smem, cluster, &n) != OPKIT_OK)
            return 0;
    }
    std::lock_guard<std::mutex> lock(d.mu);
    d.cluster_fit.emplace(key, n);
    return n;
}

Scratch::~Scratch() {
    if (!ptr_) return;
    // Errors here cannot be reported (the call already has its status); the runtime
    // reports a broken context again on the next call anyway.
    const QuietErrors quiet;
    if (dev_.memory_pools) {
        (void)runtime().mem_free_async(ptr_, stream_);
    } else {
        (void)runtime().stream_synchronize(stream_);
        (void)runtime().mem_free(ptr_);
    }
}

opkit_status Scratch::alloc(size_t bytes, void** out) {
    if (ptr_) return fail(OPKIT_ERROR_INTERNAL, "Scratch::alloc called twice");
    if (bytes == 0) bytes = 16;
    if (dev_.memory_pools)  // from opkit's pool when there is one, else the default pool
        OPKIT_GPU_TRY(runtime().mem_alloc_async(bytes, dev_.scratch_pool, stream_, &ptr_));
    else
        OPKIT_GPU_TRY(runtime().mem_alloc(dev_, bytes, &ptr_));
    *out = ptr_;
    return OPKIT_OK;
}

}  // namespace opkit_gpu
