// The shared GPU host layer's runtime interface (vendors/gpu/host/gpu_runtime.h) on the
// CUDA driver API: primary contexts, modules, launches, memory and streams. Everything
// above it (plans, argument packing, scratch, the op exports) is in vendors/gpu/host.
#include "cublaslt.h"
#include "driver.h"
#include "gpu/host/device.h"

#include <cstdlib>
#include <cstring>
#include <memory>

namespace opkit_cuda {
namespace {

using opkit_gpu::Device;
using opkit_gpu::fail;

// A driver error: OPKIT_ERROR_OUT_OF_MEMORY for CUDA_ERROR_OUT_OF_MEMORY, otherwise
// OPKIT_ERROR_DEVICE; the message is "<what> failed: <CUDA error name> (<driver's text>)".
opkit_status cu_fail(CUresult r, const char* what) {
    // "drv().cuMemAlloc_v2(&p, n)" reads better as "cuMemAlloc_v2(&p, n)".
    const char* shown = what;
    if (const char* dot = __builtin_strstr(what, ")."); dot && __builtin_strncmp(what, "drv()", 5) == 0)
        shown = dot + 2;
    const std::string text = cu_error_text(r);
    return fail(r == CUDA_ERROR_OUT_OF_MEMORY ? OPKIT_ERROR_OUT_OF_MEMORY : OPKIT_ERROR_DEVICE, "%s failed: %s",
                shown, text.c_str());
}

// Calls a driver function; on failure returns cu_fail naming the call.
#define OPKIT_CU_TRY(call)                                            \
    do {                                                              \
        const CUresult opkit_r_ = (call);                             \
        if (opkit_r_ != CUDA_SUCCESS) return cu_fail(opkit_r_, #call); \
    } while (0)

CUstream as_stream(opkit_stream s) { return static_cast<CUstream>(s); }

// What a device keeps (Device::native): its handle and its primary context, retained
// once and shared with the CUDA runtime and PyTorch.
struct Native {
    CUdevice handle = 0;
    CUcontext ctx = nullptr;
};
Native& native(Device& d) { return *static_cast<Native*>(d.native); }

class CudaRuntime final : public opkit_gpu::Runtime {
public:
    const char* name() const override { return "CUDA"; }
    const char* vendor() const override { return "cuda"; }
    const char* blas_name() const override { return "cuBLASLt"; }
    int32_t device_type() const override { return OPKIT_DEVICE_CUDA; }
    int device_count(std::string* why) override { return load_driver(why); }
    std::string version_note() override {
        const int v = drv().version;
        return " (CUDA driver " + std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10) + ")";
    }

    // A feature switch: on unless the variable is "0". Read when a device is first used.
    static bool not_switched_off(const char* variable) {
        const char* v = secure_getenv(variable);
        return !(v && std::strcmp(v, "0") == 0);
    }

    // OPKIT_CUDA_CLUSTER_KERNELS=0 keeps the kernels built on thread-block clusters (the
    // stash kernels: docs/cuda-vendor.md) off on every device, so that the kernels they
    // replace on sm_90+ run there instead: for checking those (scripts/gpu-check.sh), and a
    // way around a driver that misbehaves with them.
    static bool cluster_kernels_allowed() { return not_switched_off("OPKIT_CUDA_CLUSTER_KERNELS"); }

    // OPKIT_CUDA_DEPENDENT_LAUNCH=0 turns programmatic dependent launches
    // (launch_dependent) into plain ones on every device: for timing one against the other,
    // and a way around a driver that misbehaves with them.
    static bool dependent_launch_allowed() { return not_switched_off("OPKIT_CUDA_DEPENDENT_LAUNCH"); }

    opkit_status open_device(Device& d) override {
        auto n = std::make_unique<Native>();
        OPKIT_CU_TRY(drv().cuDeviceGet(&n->handle, d.id));
        OPKIT_CU_TRY(drv().cuDevicePrimaryCtxRetain(&n->ctx, n->handle));
        const auto get = [&](CUdevice_attribute a, int* v) {
            return drv().cuDeviceGetAttribute(v, a, n->handle) == CUDA_SUCCESS;
        };
        int v = 0;
        if (get(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &v) && v > 0) d.sm_count = v;
        v = 0;
        if (get(CU_DEVICE_ATTRIBUTE_WARP_SIZE, &v) && v > 0) d.warp_size = v;
        v = 0;
        if (get(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, &v) && v > 0) d.shared_per_sm = v;
        v = 0;
        if (get(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, &v) && v > 0) d.shared_per_block = v;
        v = 0;
        if (get(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, &v) && v > 0) d.l2_bytes = v;
        v = 0;
        if (get(CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, &v)) d.memory_pools = v != 0;
        v = 0;
        if (get(CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH, &v)) d.clusters = v != 0 && cluster_kernels_allowed();
        v = 0;
        // From driver 12.3, whose stream capture records such launches as programmatic
        // graph edges (CUgraphEdgeData), so that a captured call replays as it runs.
        if (get(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &v))
            d.dependent_launch = v >= 9 && drv().version >= 12030 && dependent_launch_allowed();
        d.native = n.release();
        return OPKIT_OK;
    }

    void close_device(Device& d) override {
        drv().cuDevicePrimaryCtxRelease(native(d).handle);
        delete &native(d);
        d.native = nullptr;
    }

    opkit_status enter(Device& d, intptr_t*) override {
        OPKIT_CU_TRY(drv().cuCtxPushCurrent(native(d).ctx));
        return OPKIT_OK;
    }

    void leave(Device&, intptr_t) override {
        CUcontext popped;
        drv().cuCtxPopCurrent(&popped);
    }

    opkit_status device_synchronize() override {
        OPKIT_CU_TRY(drv().cuCtxSynchronize());
        return OPKIT_OK;
    }

    opkit_status module_load(const void* image, size_t, const char* module, void** out) override {
        CUmodule m = nullptr;
        const CUresult r = drv().cuModuleLoadData(&m, image);
        if (r != CUDA_SUCCESS) {
            const std::string what =
                std::string("cuModuleLoadData(") + module + " kernels; built for sm_80/86/89/90 + compute_90 PTX)";
            return cu_fail(r, what.c_str());
        }
        *out = m;
        return OPKIT_OK;
    }

    void module_unload(void* module) override { drv().cuModuleUnload(static_cast<CUmodule>(module)); }

    opkit_status module_function(void* module, const char* name, void** out) override {
        CUfunction f = nullptr;
        const CUresult r = drv().cuModuleGetFunction(&f, static_cast<CUmodule>(module), name);
        if (r != CUDA_SUCCESS) return cu_fail(r, (std::string("cuModuleGetFunction(") + name + ")").c_str());
        *out = f;
        return OPKIT_OK;
    }

    opkit_status set_max_dynamic_shared(void* fn, const char*, size_t bytes) override {
        const CUresult r = drv().cuFuncSetAttribute(static_cast<CUfunction>(fn),
                                                    CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, int(bytes));
        if (r != CUDA_SUCCESS) return cu_fail(r, "cuFuncSetAttribute(max dynamic shared memory)");
        return OPKIT_OK;
    }

    opkit_status max_active_clusters(void* fn, const char*, unsigned block, size_t smem, int cluster,
                                     int* out) override {
        CUlaunchConfig c{};
        c.gridDimX = unsigned(cluster);  // a whole cluster; the kernel's attribute gives its shape
        c.gridDimY = c.gridDimZ = 1;
        c.blockDimX = block;
        c.blockDimY = c.blockDimZ = 1;
        c.sharedMemBytes = unsigned(smem);
        const CUresult r = drv().cuOccupancyMaxActiveClusters(out, static_cast<CUfunction>(fn), &c);
        if (r != CUDA_SUCCESS) return cu_fail(r, "cuOccupancyMaxActiveClusters");
        return OPKIT_OK;
    }

    opkit_status launch(void* fn, const char* name, unsigned grid_x, unsigned grid_y, unsigned block, unsigned smem,
                        opkit_stream stream, void** params) override {
        const CUresult r = drv().cuLaunchKernel(static_cast<CUfunction>(fn), grid_x, grid_y, 1, block, 1, 1, smem,
                                                as_stream(stream), params, nullptr);
        if (r != CUDA_SUCCESS) return cu_fail(r, (std::string("cuLaunchKernel(") + name + ")").c_str());
        return OPKIT_OK;
    }

    opkit_status launch_dependent(void* fn, const char* name, unsigned grid_x, unsigned grid_y, unsigned block,
                                  unsigned smem, opkit_stream stream, void** params) override {
        CUlaunchAttribute overlap{};
        overlap.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
        overlap.value.programmaticStreamSerializationAllowed = 1;
        CUlaunchConfig c{};
        c.gridDimX = grid_x;
        c.gridDimY = grid_y;
        c.gridDimZ = 1;
        c.blockDimX = block;
        c.blockDimY = 1;
        c.blockDimZ = 1;
        c.sharedMemBytes = smem;
        c.hStream = as_stream(stream);
        c.attrs = &overlap;
        c.numAttrs = 1;
        const CUresult r = drv().cuLaunchKernelEx(&c, static_cast<CUfunction>(fn), params, nullptr);
        if (r != CUDA_SUCCESS) return cu_fail(r, (std::string("cuLaunchKernelEx(") + name + ")").c_str());
        return OPKIT_OK;
    }

    opkit_status mem_alloc(Device& d, size_t bytes, void** out) override {
        CUdeviceptr p = 0;
        const CUresult r = drv().cuMemAlloc(&p, bytes);
        if (r != CUDA_SUCCESS) {
            const std::string what =
                "cuMemAlloc(" + std::to_string(bytes) + " bytes on CUDA device " + std::to_string(d.id) + ")";
            return cu_fail(r, what.c_str());
        }
        *out = reinterpret_cast<void*>(p);
        return OPKIT_OK;
    }

    opkit_status mem_free(void* ptr) override {
        OPKIT_CU_TRY(drv().cuMemFree(reinterpret_cast<CUdeviceptr>(ptr)));
        return OPKIT_OK;
    }

    void* pool_create(Device& d, uint64_t keep) override {
        CUmemPoolProps props{};
        props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
        props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        props.location.id = d.id;
        CUmemoryPool pool = nullptr;
        if (drv().cuMemPoolCreate(&pool, &props) != CUDA_SUCCESS) return nullptr;
        if (drv().cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep) != CUDA_SUCCESS) {
            drv().cuMemPoolDestroy(pool);
            return nullptr;
        }
        return pool;
    }

    void pool_destroy(void* pool) override { drv().cuMemPoolDestroy(static_cast<CUmemoryPool>(pool)); }

    opkit_status mem_alloc_async(size_t bytes, void* pool, opkit_stream stream, void** out) override {
        CUdeviceptr p = 0;
        const CUstream s = as_stream(stream);
        if (pool)
            OPKIT_CU_TRY(drv().cuMemAllocFromPoolAsync(&p, bytes, static_cast<CUmemoryPool>(pool), s));
        else
            OPKIT_CU_TRY(drv().cuMemAllocAsync(&p, bytes, s));
        *out = reinterpret_cast<void*>(p);
        return OPKIT_OK;
    }

    opkit_status mem_free_async(void* ptr, opkit_stream stream) override {
        OPKIT_CU_TRY(drv().cuMemFreeAsync(reinterpret_cast<CUdeviceptr>(ptr), as_stream(stream)));
        return OPKIT_OK;
    }

    opkit_status memcpy_async(void* dst, const void* src, size_t bytes, opkit_stream stream) override {
        const auto d_dst = reinterpret_cast<CUdeviceptr>(dst);
        const auto d_src = reinterpret_cast<CUdeviceptr>(src);
        const CUstream s = as_stream(stream);
        OPKIT_CU_TRY(drv().cuMemcpyAsync(d_dst, d_src, bytes, s));
        return OPKIT_OK;
    }

    opkit_status memcpy_peer_async(void* dst, Device& dst_dev, const void* src, Device& src_dev, size_t bytes,
                                   opkit_stream stream) override {
        const auto d_dst = reinterpret_cast<CUdeviceptr>(dst);
        const auto d_src = reinterpret_cast<CUdeviceptr>(src);
        const CUstream s = as_stream(stream);
        OPKIT_CU_TRY(drv().cuMemcpyPeerAsync(d_dst, native(dst_dev).ctx, d_src, native(src_dev).ctx, bytes, s));
        return OPKIT_OK;
    }

    opkit_status memset_d8_async(void* dst, unsigned char value, size_t count, opkit_stream stream) override {
        OPKIT_CU_TRY(drv().cuMemsetD8Async(reinterpret_cast<CUdeviceptr>(dst), value, count, as_stream(stream)));
        return OPKIT_OK;
    }

    opkit_status memset_d32_async(void* dst, uint32_t value, size_t count, opkit_stream stream) override {
        OPKIT_CU_TRY(drv().cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(dst), value, count, as_stream(stream)));
        return OPKIT_OK;
    }

    opkit_status stream_create(opkit_stream* out) override {
        CUstream s = nullptr;
        // Default flags, like cudaStreamCreate: work on it is also ordered with the
        // legacy default stream (the NULL stream of opkit calls).
        OPKIT_CU_TRY(drv().cuStreamCreate(&s, CU_STREAM_DEFAULT));
        *out = s;
        return OPKIT_OK;
    }

    opkit_status stream_destroy(opkit_stream stream) override {
        OPKIT_CU_TRY(drv().cuStreamDestroy(as_stream(stream)));
        return OPKIT_OK;
    }

    opkit_status stream_synchronize(opkit_stream stream) override {
        OPKIT_CU_TRY(drv().cuStreamSynchronize(as_stream(stream)));
        return OPKIT_OK;
    }

    bool blas_load(std::string* why) override { return cublaslt(why) != nullptr; }

    opkit_status blas_matmul(Device& d, const opkit_gpu::BlasMatmul& m) override { return lt_matmul(d, m); }
};

CudaRuntime g_runtime;

}  // namespace
}  // namespace opkit_cuda

opkit_gpu::Runtime& opkit_gpu::runtime() { return opkit_cuda::g_runtime; }
