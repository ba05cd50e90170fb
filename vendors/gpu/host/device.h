// Per-device state: what the runtime keeps for the device (CUDA: the retained primary
// context, shared with the CUDA runtime and PyTorch), its attributes, the kernel modules
// loaded on first use, the kernel handles, the scratch pool and the BLAS state.
// Everything is created lazily, on the first call that touches a device: opkit_init
// stays cheap and a process that never uses device 3 never creates a context there.
#pragma once

#include "../kernel_params.h"
#include "gpu_runtime.h"
#include "images.h"
#include "status.h"

#include <cstddef>
#include <map>
#include <mutex>
#include <unordered_map>
#include <utility>

namespace opkit_gpu {

struct Device : DeviceAttributes {
    int id = 0;
    std::mutex mu;               // guards everything below and the lazy init
    bool open = false;           // runtime().open_device succeeded
    void* native = nullptr;      // the runtime's own per-device state (open_device)
    void* scratch_pool = nullptr;  // opkit's own pool for Scratch (see device.cpp)
    void* modules[int(Module::count)] = {};
    std::unordered_map<const char*, void*> functions;  // keyed by the name literal
    // Clusters that fit at once, by kernel (name literal) and dynamic shared memory
    // (active_clusters).
    std::map<std::pair<const char*, size_t>, int> cluster_fit;
    // The dynamic shared memory each kernel has been allowed (allow_shared), by handle.
    std::unordered_map<void*, size_t> shared_allowed;
    void* blas = nullptr;                    // the vendor's BLAS state (handle, plans)
    void (*blas_release)(Device&) = nullptr;  // frees it at shutdown, the device current
};

// Called by the vendor's opkit_vendor_init / _shutdown.
void devices_init(int count);
void devices_shutdown();
int device_count();

// Makes device `id` current on this thread for the scope and restores the caller's
// state afterwards (CUDA: pushes the primary context, pops it), so the caller's own
// runtime state is left as it was.
class DeviceScope {
public:
    DeviceScope() = default;
    DeviceScope(const DeviceScope&) = delete;
    DeviceScope& operator=(const DeviceScope&) = delete;
    ~DeviceScope();
    opkit_status enter(int id);
    Device& dev() { return *dev_; }

private:
    Device* dev_ = nullptr;
    intptr_t saved_ = 0;
};

// The kernel `name` (a string literal: its address is the cache key) of module m.
// The device must be current (inside a DeviceScope).
opkit_status get_function(Device& d, Module m, const char* name, void** out);

// Lets kernel f (`name`) have at least `bytes` of dynamic shared memory. The limit is a
// property of the function, shared by every thread that launches it, so it only ever
// rises (under d.mu): lowering it for one call could fail another's launch in between.
opkit_status allow_shared(Device& d, void* f, const char* name, size_t bytes);

// How many clusters of kernel `name` (module m, built with a compile-time cluster of
// `cluster` blocks of `block` threads) fit on d at once with `smem` bytes of dynamic shared
// memory each block; 0, reporting nothing, where the device launches no clusters, the
// image lacks the kernel (a build without sm_90 code) or the runtime cannot tell. The
// device must be current.
int active_clusters(Device& d, Module m, const char* name, unsigned block, size_t smem, int cluster);

// Shared memory a row kernel declares statically (opk::kKernelStaticSharedMax, which the
// kernels assert), which counts against the same per-block limit as the dynamic part.
constexpr size_t kStaticSharedReserve = size_t(opk::kKernelStaticSharedMax);

// The second grid dimension's limit on both vendors (CUDA's; HIP reports at least as much).
constexpr size_t kMaxGridY = 65535;

// Launches grid_x x grid_y blocks of a kernel whose one parameter is the plain-data struct
// `args` (grid_y at most kMaxGridY: kernels that take their row from blockIdx.y step over
// the rest), with `smem` bytes of dynamic shared memory (where that and the static part
// could pass the default 48 KiB, the function is allowed more first). `dependent`: a kernel
// that waits for the stream's previous grid itself (wait_for_prior_grid) and may start
// while it drains, where the device can (GpuRuntime::launch_dependent).
template <class Args>
opkit_status launch_2d(Device& d, Module m, const char* name, unsigned grid_x, size_t grid_y, unsigned block,
                       opkit_stream s, const Args& args, size_t smem = 0, bool dependent = false) {
    if (grid_x == 0 || grid_y == 0) return OPKIT_OK;
    void* f = nullptr;
    OPKIT_GPU_TRY(get_function(d, m, name, &f));
    if (smem + kStaticSharedReserve > (size_t(48) << 10)) OPKIT_GPU_TRY(allow_shared(d, f, name, smem));
    void* params[] = {const_cast<Args*>(&args)};
    const unsigned gy = unsigned(grid_y > kMaxGridY ? kMaxGridY : grid_y);
    if (dependent && d.dependent_launch)
        return runtime().launch_dependent(f, name, grid_x, gy, block, unsigned(smem), s, params);
    return runtime().launch(f, name, grid_x, gy, block, unsigned(smem), s, params);
}

// A 1-D launch (launch_2d's, one row of blocks); past 2^31 - 1 blocks the kernels'
// grid-stride loops take the rest.
template <class Args>
opkit_status launch(Device& d, Module m, const char* name, size_t grid, unsigned block, opkit_stream s,
                    const Args& args, size_t smem = 0) {
    const unsigned g = grid > 0x7fffffffu ? 0x7fffffffu : unsigned(grid);
    return launch_2d(d, m, name, g, 1, block, s, args, smem);
}

// Device memory for one call's temporaries, ordered on the call's stream: allocated
// with mem_alloc_async and freed with mem_free_async after the kernels that use it, so
// nothing synchronizes. Where the device has no memory pools, a plain allocation is
// freed after synchronizing the stream. Declare it after the DeviceScope.
class Scratch {
public:
    Scratch(Device& d, opkit_stream s) : dev_(d), stream_(s) {}
    Scratch(const Scratch&) = delete;
    Scratch& operator=(const Scratch&) = delete;
    ~Scratch();
    opkit_status alloc(size_t bytes, void** out);

private:
    Device& dev_;
    opkit_stream stream_;
    void* ptr_ = nullptr;
};

size_t ceil_div(size_t a, size_t b);

}  // namespace opkit_gpu
