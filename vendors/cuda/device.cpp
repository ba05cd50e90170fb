#include "device.h"

#include <memory>
#include <vector>

namespace opkit_cuda {

void matmul_release(Device& d);  // matmul.cpp

namespace {

std::vector<std::unique_ptr<Device>> g_devices;

// Scratch memory (embedding backward's accumulator rows, norm partials, ...) comes from a
// pool of opkit's own that keeps up to kScratchKeep bytes mapped between calls: the
// device's default pool releases everything at each synchronization (threshold 0), and
// mapping 100+ MiB again on every call cost more than the kernels (measured: embedding
// backward with 16384 ids). A pool of its own leaves the application's default pool, and
// its release policy, alone. Without one, the default pool serves as before.
constexpr uint64_t kScratchKeep = uint64_t(256) << 20;

void open_scratch_pool(Device& d) {
    CUmemPoolProps props{};
    props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    props.location.id = d.id;
    CUmemoryPool pool = nullptr;
    if (drv().cuMemPoolCreate(&pool, &props) != CUDA_SUCCESS) return;
    uint64_t keep = kScratchKeep;
    if (drv().cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep) != CUDA_SUCCESS) {
        drv().cuMemPoolDestroy(pool);
        return;
    }
    d.scratch_pool = pool;
}

// First use of a device: retain its primary context and read what the launches need.
opkit_status open_device(Device& d) {
    OPKIT_CU_TRY(drv().cuDeviceGet(&d.handle, d.id));
    OPKIT_CU_TRY(drv().cuDevicePrimaryCtxRetain(&d.ctx, d.handle));
    int v = 0;
    if (drv().cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, d.handle) == CUDA_SUCCESS && v > 0)
        d.sm_count = v;
    v = 0;
    if (drv().cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, d.handle) ==
            CUDA_SUCCESS && v > 0)
        d.shared_per_sm = v;
    v = 0;
    if (drv().cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, d.handle) ==
            CUDA_SUCCESS && v > 0)
        d.shared_per_block = v;
    v = 0;
    if (drv().cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, d.handle) == CUDA_SUCCESS && v > 0)
        d.l2_bytes = v;
    v = 0;
    if (drv().cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, d.handle) == CUDA_SUCCESS)
        d.async_alloc = v != 0;
    if (d.async_alloc) open_scratch_pool(d);
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
    for (auto& d : g_devices) {
        if (!d->ctx) continue;
        if (drv().cuCtxPushCurrent(d->ctx) == CUDA_SUCCESS) {
            drv().cuCtxSynchronize();  // kernels still queued must not outlive their module
            matmul_release(*d);
            if (d->scratch_pool) drv().cuMemPoolDestroy(d->scratch_pool);
            for (CUmodule& m : d->modules)
                if (m) drv().cuModuleUnload(m);
            CUcontext popped;
            drv().cuCtxPopCurrent(&popped);
        }
        drv().cuDevicePrimaryCtxRelease(d->handle);
    }
    g_devices.clear();
}

DeviceScope::~DeviceScope() {
    if (pushed_) {
        CUcontext popped;
        drv().cuCtxPopCurrent(&popped);
    }
}

opkit_status DeviceScope::enter(int id) {
    if (id < 0 || id >= int(g_devices.size()))
        return fail(OPKIT_ERROR_INVALID_ARGUMENT, "CUDA device %d does not exist (%d found)", id,
                    int(g_devices.size()));
    Device& d = *g_devices[size_t(id)];
    {
        std::lock_guard<std::mutex> lock(d.mu);
        if (!d.ctx) OPKIT_CUDA_TRY(open_device(d));
    }
    OPKIT_CU_TRY(drv().cuCtxPushCurrent(d.ctx));
    pushed_ = true;
    dev_ = &d;
    return OPKIT_OK;
}

opkit_status get_function(Device& d, Module m, const char* name, CUfunction* out) {
    std::lock_guard<std::mutex> lock(d.mu);
    auto it = d.functions.find(name);
    if (it != d.functions.end()) {
        *out = it->second;
        return OPKIT_OK;
    }
    CUmodule& mod = d.modules[int(m)];
    if (!mod) {
        const Image img = module_image(m);
        const CUresult r = drv().cuModuleLoadData(&mod, img.data);
        if (r != CUDA_SUCCESS) {
            mod = nullptr;
            const std::string what = std::string("cuModuleLoadData(") + module_name(m) +
                                     " kernels; built for sm_80/86/89/90 + compute_90 PTX)";
            return cu_fail(r, what.c_str());
        }
    }
    CUfunction f = nullptr;
    const CUresult r = drv().cuModuleGetFunction(&f, mod, name);
    if (r != CUDA_SUCCESS) {
        const std::string what = std::string("cuModuleGetFunction(") + name + ")";
        return cu_fail(r, what.c_str());
    }
    d.functions.emplace(name, f);
    *out = f;
    return OPKIT_OK;
}

Scratch::~Scratch() {
    if (!ptr_) return;
    // Errors here cannot be reported (the call already has its status); the driver
    // reports a broken context again on the next call anyway.
    if (dev_.async_alloc) {
        drv().cuMemFreeAsync(ptr_, stream_);
    } else {
        drv().cuStreamSynchronize(stream_);
        drv().cuMemFree(ptr_);
    }
}

opkit_status Scratch::alloc(size_t bytes, void** out) {
    if (ptr_) return fail(OPKIT_ERROR_INTERNAL, "Scratch::alloc called twice");
    if (bytes == 0) bytes = 16;
    if (dev_.scratch_pool)
        OPKIT_CU_TRY(drv().cuMemAllocFromPoolAsync(&ptr_, bytes, dev_.scratch_pool, stream_));
    else if (dev_.async_alloc)
        OPKIT_CU_TRY(drv().cuMemAllocAsync(&ptr_, bytes, stream_));
    else
        OPKIT_CU_TRY(drv().cuMemAlloc(&ptr_, bytes));
    *out = reinterpret_cast<void*>(ptr_);
    return OPKIT_OK;
}

}  // namespace opkit_cuda
