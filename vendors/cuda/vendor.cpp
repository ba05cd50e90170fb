// The vendor's identity and lifetime: opkit_vendor_init / _shutdown / _last_error. The
// memory, stream and op exports are the shared GPU host layer's (vendors/gpu/host).
#include "driver.h"
#include "gpu/host/device.h"

#include <string>

extern "C" OPKIT_VENDOR_EXPORT const uint32_t opkit_vendor_abi_version = OPKIT_VENDOR_ABI_VERSION;

namespace {
// Strings handed to libopkit in the desc: valid until opkit_vendor_shutdown.
std::string g_version;
std::string g_detail;
}  // namespace

extern "C" OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_init(const opkit_vendor_host* host,
                                                              opkit_vendor_desc* desc) {
    (void)host;
    return opkit_gpu::guarded("opkit_vendor_init", [&]() -> opkit_status {
        desc->name = "cuda";
        desc->device_type = OPKIT_DEVICE_CUDA;
        desc->priority = 100;
        g_detail.clear();
        // Cheap by contract: load the driver and count devices; contexts, modules and
        // cuBLASLt come on first use of a device.
        const int count = opkit_gpu::runtime().device_count(&g_detail);
        g_version = OPKIT_CUDA_VENDOR_VERSION;
        if (count > 0) {
            const int v = opkit_cuda::drv().version;
            g_version += " (CUDA driver " + std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10) + ")";
        }
        opkit_gpu::devices_init(count);
        desc->version = g_version.c_str();
        desc->device_count = count;
        desc->detail = g_detail.c_str();
        return OPKIT_OK;
    });
}

extern "C" OPKIT_VENDOR_EXPORT void opkit_vendor_shutdown(void) {
    opkit_gpu::guarded("opkit_vendor_shutdown", []() -> opkit_status {
        opkit_gpu::devices_shutdown();
        return OPKIT_OK;
    });
}

extern "C" OPKIT_VENDOR_EXPORT const char* opkit_vendor_last_error(void) {
    return opkit_gpu::last_error();
}
