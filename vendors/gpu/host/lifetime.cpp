// A GPU vendor's identity and lifetime: opkit_vendor_abi_version, opkit_vendor_init,
// _shutdown and _last_error, the same for cuda and rocm; what differs comes from the
// vendor's Runtime (name, device type, device count, version note).
#include "device.h"

#include <string>

#ifndef OPKIT_GPU_VENDOR_VERSION
#error "OPKIT_GPU_VENDOR_VERSION must be the vendor's version (vendors/gpu/host/gpu_host.cmake)"
#endif

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
        opkit_gpu::Runtime& rt = opkit_gpu::runtime();
        desc->name = rt.vendor();
        desc->device_type = rt.device_type();
        desc->priority = 100;
        g_detail.clear();
        // Cheap by contract: load the runtime and count (and, for rocm, identify) devices;
        // contexts, modules, pools and BLAS handles come on first use of a device.
        int count = rt.device_count(&g_detail);
        g_version = OPKIT_GPU_VENDOR_VERSION;
        if (count > 0) {
            g_version += rt.version_note();
            if (rt.usable_devices(count, &g_detail) == 0) count = 0;
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

extern "C" OPKIT_VENDOR_EXPORT const char* opkit_vendor_last_error(void) { return opkit_gpu::last_error(); }
