// Per-device state: the retained primary context (shared with the CUDA runtime and
// PyTorch), the kernel modules loaded into it on first use, and the kernel handles.
// Everything is created lazily, on the first call that touches a device: opkit_init
// stays cheap and a process that never uses device 3 never creates a context there.
#pragma once

#include "driver.h"
#include "fatbins.h"
#include "status.h"

#include <cstddef>
#include <mutex>
#include <string>
#include <unordered_map>

namespace opkit_cuda {

struct MatmulState;  // matmul.cpp: cuBLASLt handle and plan cache

struct Device {
    int id = 0;
    CUdevice handle = 0;
    CUcontext ctx = nullptr;  // primary context, retained once
    int sm_count = 1;
    int shared_per_sm = 48 << 10;     // bytes of shared memory per multiprocessor
    int shared_per_block = 48 << 10;  // the most one block may opt in to
    int64_t l2_bytes = 0;             // L2 cache size (0 = unknown)
    bool async_alloc = false;  // stream-ordered allocator available (cuMemAllocAsync)
    CUmemoryPool scratch_pool = nullptr;  // opkit's own pool for Scratch (see device.cpp)
    std::mutex mu;             // guards everything below and the lazy init
    CUmodule modules[int(Module::count)] = {};
    std::unordered_map<const char*, CUfunction> functions;  // keyed by the name literal
    MatmulState* matmul = nullptr;
};

// Called by opkit_vendor_init / _shutdown.
void devices_init(int count);
void devices_shutdown();
int device_count();

// Makes device `id`'s primary context current on this thread for the scope and restores
// the caller's context afterwards, so the caller's own CUDA state is left as it was.
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
    bool pushed_ = false;
};

// The kernel `name` (a string literal: its address is the cache key) of module m.
// The device's context must be current (inside a DeviceScope).
opkit_status get_function(Device& d, Module m, const char* name, CUfunction* out);

// Launches a kernel whose one parameter is the plain-data struct `args`, with `smem`
// bytes of dynamic shared memory (above the default 48 KiB the function is allowed more
// first).
template <class Args>
opkit_status launch(Device& d, Module m, const char* name, size_t grid, unsigned block, CUstream s,
                    const Args& args, size_t smem = 0) {
    if (grid == 0) return OPKIT_OK;
    CUfunction f = nullptr;
    OPKIT_CUDA_TRY(get_function(d, m, name, &f));
    if (smem > (size_t(48) << 10)) {
        const CUresult r = drv().cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, int(smem));
        if (r != CUDA_SUCCESS) return cu_fail(r, "cuFuncSetAttribute(max dynamic shared memory)");
    }
    void* params[] = {const_cast<Args*>(&args)};
    const unsigned g = grid > 0x7fffffffu ? 0x7fffffffu : unsigned(grid);  // kernels grid-stride
    const CUresult r = drv().cuLaunchKernel(f, g, 1, 1, block, 1, 1, unsigned(smem), s, params, nullptr);
    if (r != CUDA_SUCCESS) {
        const std::string what = std::string("cuLaunchKernel(") + name + ")";
        return cu_fail(r, what.c_str());
    }
    return OPKIT_OK;
}

// Device memory for one call's temporaries, ordered on the call's stream: allocated
// with cuMemAllocAsync and freed with cuMemFreeAsync after the kernels that use it, so
// nothing synchronizes. Where the device has no memory pools, a plain allocation is
// freed after synchronizing the stream. Declare it after the DeviceScope.
class Scratch {
public:
    Scratch(Device& d, CUstream s) : dev_(d), stream_(s) {}
    Scratch(const Scratch&) = delete;
    Scratch& operator=(const Scratch&) = delete;
    ~Scratch();
    opkit_status alloc(size_t bytes, void** out);

private:
    Device& dev_;
    CUstream stream_;
    CUdeviceptr ptr_ = 0;
};

size_t ceil_div(size_t a, size_t b);

}  // namespace opkit_cuda
