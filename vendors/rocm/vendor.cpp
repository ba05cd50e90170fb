// The vendor's identity and lifetime: opkit_vendor_init / _shutdown / _last_error. The
// memory, stream and op exports are the shared GPU host layer's (vendors/gpu/host).
#include "hip_api.h"
#include "targets.h"
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
        desc->name = "rocm";
        desc->device_type = OPKIT_DEVICE_ROCM;
        desc->priority = 100;
        g_detail.clear();
        // Cheap by contract: load the runtime, count devices and read each one's ISA;
        // modules, memory pools and BLAS handles come on first use of a device.
        int count = opkit_gpu::runtime().device_count(&g_detail);
        g_version = OPKIT_ROCM_VENDOR_VERSION;
        if (count > 0) {
            const opkit_rocm::Hip& h = opkit_rocm::hip();
            g_version += " (HIP " + opkit_rocm::hip_version_text(h.runtime_version) + ", " + h.library +
                         "; code objects for " + opkit_rocm::build_targets_text() + ")";
            // A device without code objects for its ISA is still counted (device ids stay
            // those of the runtime) but refuses every call; when none is usable the vendor
            // has no device at all, and the detail names each ISA.
            if (opkit_rocm::probe_devices(count, &g_detail) == 0) count = 0;
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
