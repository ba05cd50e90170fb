// The shared GPU host layer's runtime interface (vendors/gpu/host/gpu_runtime.h) on the
// HIP runtime: devices, modules, launches, memory and streams. Everything above it (plans,
// argument packing, scratch, the op exports) is vendors/gpu/host, the same code the cuda
// vendor runs.
//
// HIP is runtime-style: the current device is per-thread state (hipSetDevice) rather than
// a pushed context, so enter/leave save and restore the caller's device. Device facts come
// only from hipDeviceGetAttribute (hipDeviceProp_t changed layout between ROCm 5 and 6).
#include "blas.h"
#include "hip_api.h"
#include "targets.h"
#include "gpu/host/device.h"

namespace opkit_rocm {
namespace {

using opkit_gpu::Device;
using opkit_gpu::fail;

// A runtime error: OPKIT_ERROR_OUT_OF_MEMORY for hipErrorOutOfMemory, otherwise
// OPKIT_ERROR_DEVICE; the message is "<what> failed: <HIP error name> (<text>)". The
// thread's sticky HIP error is cleared: the application (PyTorch checks hipGetLastError
// after its own launches) must not inherit a failure opkit already reported.
opkit_status hip_fail(hipError_t e, const char* what) {
    (void)hip().hipGetLastError();
    // "hip().hipMalloc(&p, n)" reads better as "hipMalloc(&p, n)".
    const char* shown = what;
    if (const char* dot = __builtin_strstr(what, ")."); dot && __builtin_strncmp(what, "hip()", 5) == 0)
        shown = dot + 2;
    const std::string text = hip_error_text(e);
    return fail(e == hipErrorOutOfMemory ? OPKIT_ERROR_OUT_OF_MEMORY : OPKIT_ERROR_DEVICE, "%s failed: %s", shown,
                text.c_str());
}

#define OPKIT_HIP_TRY(call)                                           \
    do {                                                              \
        const hipError_t opkit_e_ = (call);                           \
        if (opkit_e_ != hipSuccess) return hip_fail(opkit_e_, #call); \
    } while (0)

hipStream_t as_stream(opkit_stream s) { return static_cast<hipStream_t>(s); }

class HipRuntime final : public opkit_gpu::Runtime {
public:
    const char* name() const override { return "HIP"; }
    const char* vendor() const override { return "rocm"; }
    const char* blas_name() const override { return loaded_blas_name(); }
    int32_t device_type() const override { return OPKIT_DEVICE_ROCM; }
    int device_count(std::string* why) override { return load_hip(why); }
    // A device without code objects for its ISA is still counted (device ids stay the
    // runtime's) but refuses every call; when none is usable the vendor has no device.
    int usable_devices(int count, std::string* why) override { return probe_devices(count, why); }
    std::string version_note() override {
        return " (HIP " + hip_version_text(hip().runtime_version) + ", " + hip().library + "; code objects for " +
               build_targets_text() + ")";
    }

    opkit_status open_device(Device& d) override {
        const DeviceIsa& isa = device_isa(d.id);
        if (!isa.supported) {
            const std::string named = isa.name.empty() ? "" : " (" + isa.name + ")";
            return fail(OPKIT_ERROR_DEVICE,
                        "HIP device %d%s is %s; this build of the rocm vendor has code objects for %s only "
                        "(rebuild with -DOPKIT_ROCM_ARCHS=%s)",
                        d.id, named.c_str(), isa.isa.c_str(), build_targets_text().c_str(), isa.isa.c_str());
        }
        hipDevice_t handle = 0;
        OPKIT_HIP_TRY(hip().hipDeviceGet(&handle, d.id));
        const auto get = [&](hipDeviceAttribute_t a, int* v) {
            const bool ok = hip().hipDeviceGetAttribute(v, a, handle) == hipSuccess;
            if (!ok) (void)hip().hipGetLastError();
            return ok;
        };
        int v = 0;
        if (get(hipDeviceAttributeMultiprocessorCount, &v) && v > 0) d.sm_count = v;
        v = 0;
        // The wavefront: 64 on CDNA/GCN, 32 on RDNA. Every block size the host layer picks
        // is a multiple of it (reduction kernels assume whole wavefronts).
        if (get(hipDeviceAttributeWarpSize, &v) && v > 0) d.warp_size = v;
        v = 0;
        if (get(hipDeviceAttributeMaxSharedMemoryPerMultiprocessor, &v) && v > 0) d.shared_per_sm = v;
        v = 0;
        // AMD has no opt-in above a default: what a block may have is simply the maximum.
        if (get(hipDeviceAttributeMaxSharedMemoryPerBlock, &v) && v > 0) d.shared_per_block = v;
        if (d.shared_per_sm < d.shared_per_block) d.shared_per_sm = d.shared_per_block;
        v = 0;
        if (get(hipDeviceAttributeL2CacheSize, &v) && v > 0) d.l2_bytes = v;
        v = 0;
        if (get(hipDeviceAttributeMemoryPoolsSupported, &v)) d.memory_pools = v != 0;
        return OPKIT_OK;
    }

    void close_device(Device&) override {}

    opkit_status enter(Device& d, intptr_t* saved) override {
        int current = -1;
        OPKIT_HIP_TRY(hip().hipGetDevice(&current));
        *saved = current;
        if (current != d.id) OPKIT_HIP_TRY(hip().hipSetDevice(d.id));
        return OPKIT_OK;
    }

    void leave(Device& d, intptr_t saved) override {
        if (saved != d.id && saved >= 0 && hip().hipSetDevice(int(saved)) != hipSuccess)
            (void)hip().hipGetLastError();
    }

    opkit_status device_synchronize() override {
        OPKIT_HIP_TRY(hip().hipDeviceSynchronize());
        return OPKIT_OK;
    }

    opkit_status module_load(const void* image, size_t, const char* module, void** out) override {
        hipModule_t m = nullptr;
        const hipError_t e = hip().hipModuleLoadData(&m, image);
        if (e != hipSuccess) {
            const std::string what =
                std::string("hipModuleLoadData(") + module + " kernels; built for " + build_targets_text() + ")";
            return hip_fail(e, what.c_str());
        }
        *out = m;
        return OPKIT_OK;
    }

    void module_unload(void* module) override {
        if (hip().hipModuleUnload(static_cast<hipModule_t>(module)) != hipSuccess) (void)hip().hipGetLastError();
    }

    opkit_status module_function(void* module, const char* name, void** out) override {
        hipFunction_t f = nullptr;
        const hipError_t e = hip().hipModuleGetFunction(&f, static_cast<hipModule_t>(module), name);
        if (e != hipSuccess) return hip_fail(e, (std::string("hipModuleGetFunction(") + name + ")").c_str());
        *out = f;
        return OPKIT_OK;
    }

    // AMD has no dynamic-shared-memory opt-in: a launch may use up to the device's
    // MaxSharedMemoryPerBlock (64 KiB on CDNA and RDNA), which open_device recorded as
    // shared_per_block, and the plans never ask for more.
    opkit_status set_max_dynamic_shared(void*, const char* name, size_t bytes) override {
        if (bytes <= (size_t(64) << 10)) return OPKIT_OK;
        return fail(OPKIT_ERROR_INTERNAL, "%s: %zu bytes of LDS exceed what an AMD block may have (64 KiB)", name,
                    bytes);
    }

    // HIP has no thread-block clusters: open_device leaves DeviceAttributes::clusters false,
    // so this is never asked.
    opkit_status max_active_clusters(void*, const char* name, unsigned, size_t, int, int*) override {
        return fail(OPKIT_ERROR_UNSUPPORTED, "%s: HIP launches no thread-block clusters", name);
    }

    opkit_status launch(void* fn, const char* name, unsigned grid_x, unsigned grid_y, unsigned block, unsigned smem,
                        opkit_stream stream, void** params) override {
        const hipError_t e = hip().hipModuleLaunchKernel(static_cast<hipFunction_t>(fn), grid_x, grid_y, 1, block, 1,
                                                         1, smem, as_stream(stream), params, nullptr);
        if (e != hipSuccess) return hip_fail(e, (std::string("hipModuleLaunchKernel(") + name + ")").c_str());
        return OPKIT_OK;
    }

    opkit_status mem_alloc(Device& d, size_t bytes, void** out) override {
        void* p = nullptr;
        const hipError_t e = hip().hipMalloc(&p, bytes);
        if (e != hipSuccess) {
            const std::string what =
                "hipMalloc(" + std::to_string(bytes) + " bytes on HIP device " + std::to_string(d.id) + ")";
            return hip_fail(e, what.c_str());
        }
        *out = p;
        return OPKIT_OK;
    }

    opkit_status mem_free(void* ptr) override {
        OPKIT_HIP_TRY(hip().hipFree(ptr));
        return OPKIT_OK;
    }

    void* pool_create(Device& d, uint64_t keep) override {
        hipMemPoolProps props{};
        props.allocType = hipMemAllocationTypePinned;
        props.location.type = hipMemLocationTypeDevice;
        props.location.id = d.id;
        hipMemPool_t pool = nullptr;
        if (hip().hipMemPoolCreate(&pool, &props) != hipSuccess) {
            (void)hip().hipGetLastError();
            return nullptr;
        }
        if (hip().hipMemPoolSetAttribute(pool, hipMemPoolAttrReleaseThreshold, &keep) != hipSuccess) {
            (void)hip().hipGetLastError();
            (void)hip().hipMemPoolDestroy(pool);
            return nullptr;
        }
        return pool;
    }

    void pool_destroy(void* pool) override {
        if (hip().hipMemPoolDestroy(static_cast<hipMemPool_t>(pool)) != hipSuccess) (void)hip().hipGetLastError();
    }

    opkit_status mem_alloc_async(size_t bytes, void* pool, opkit_stream stream, void** out) override {
        void* p = nullptr;
        const hipStream_t s = as_stream(stream);
        if (pool)
            OPKIT_HIP_TRY(hip().hipMallocFromPoolAsync(&p, bytes, static_cast<hipMemPool_t>(pool), s));
        else
            OPKIT_HIP_TRY(hip().hipMallocAsync(&p, bytes, s));
        *out = p;
        return OPKIT_OK;
    }

    opkit_status mem_free_async(void* ptr, opkit_stream stream) override {
        OPKIT_HIP_TRY(hip().hipFreeAsync(ptr, as_stream(stream)));
        return OPKIT_OK;
    }

    opkit_status memcpy_async(void* dst, const void* src, size_t bytes, opkit_stream stream) override {
        // hipMemcpyDefault: the runtime tells host from device by unified addressing.
        OPKIT_HIP_TRY(hip().hipMemcpyAsync(dst, src, bytes, hipMemcpyDefault, as_stream(stream)));
        return OPKIT_OK;
    }

    opkit_status memcpy_peer_async(void* dst, Device& dst_dev, const void* src, Device& src_dev, size_t bytes,
                                   opkit_stream stream) override {
        OPKIT_HIP_TRY(hip().hipMemcpyPeerAsync(dst, dst_dev.id, src, src_dev.id, bytes, as_stream(stream)));
        return OPKIT_OK;
    }

    opkit_status memset_d8_async(void* dst, unsigned char value, size_t count, opkit_stream stream) override {
        OPKIT_HIP_TRY(hip().hipMemsetD8Async(dst, value, count, as_stream(stream)));
        return OPKIT_OK;
    }

    opkit_status memset_d32_async(void* dst, uint32_t value, size_t count, opkit_stream stream) override {
        OPKIT_HIP_TRY(hip().hipMemsetD32Async(dst, int(value), count, as_stream(stream)));
        return OPKIT_OK;
    }

    opkit_status stream_create(opkit_stream* out) override {
        hipStream_t s = nullptr;
        // Default flags, like hipStreamCreate: ordered with the NULL stream of opkit calls.
        OPKIT_HIP_TRY(hip().hipStreamCreateWithFlags(&s, hipStreamDefault));
        *out = s;
        return OPKIT_OK;
    }

    opkit_status stream_destroy(opkit_stream stream) override {
        OPKIT_HIP_TRY(hip().hipStreamDestroy(as_stream(stream)));
        return OPKIT_OK;
    }

    opkit_status stream_synchronize(opkit_stream stream) override {
        OPKIT_HIP_TRY(hip().hipStreamSynchronize(as_stream(stream)));
        return OPKIT_OK;
    }

    bool blas_load(std::string* why) override { return load_blas(why); }

    opkit_status blas_matmul(Device& d, const opkit_gpu::BlasMatmul& m) override { return blas_gemm(d, m); }
};

HipRuntime g_runtime;

}  // namespace
}  // namespace opkit_rocm

opkit_gpu::Runtime& opkit_gpu::runtime() { return opkit_rocm::g_runtime; }
