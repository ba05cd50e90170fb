// Which device ISAs the embedded kernel images were built for, and which ISA each device
// is. A device whose ISA is not among the targets cannot run a single kernel: the vendor
// says so by name at init (NO_DEVICE when no device is usable) instead of failing the
// first launch with hipErrorNoBinaryForGpu.
#pragma once

#include <string>
#include <vector>

namespace opkit_rocm {

// The targets of the build (OPKIT_ROCM_TARGETS: "gfx900;gfx906;..." for AMD code objects;
// "sm_90" in the HIP-over-CUDA test build), comma-separated for messages.
const std::vector<std::string>& build_targets();
std::string build_targets_text();

// "gfx90a:sramecc+:xnack-" -> "gfx90a": target features do not change which code object
// the bundle serves (the targets are built feature-agnostic, so they match either mode).
std::string base_isa(const std::string& isa);

struct DeviceIsa {
    std::string isa;    // base ISA name ("gfx90a"), "" when the runtime does not say
    std::string name;   // marketing name, for messages
    bool supported;     // isa among the targets, or unknown (then the module load decides)
};

// Reads every device's ISA (the HIP runtime loaded, count devices). Returns the number
// of usable devices; *why names each unusable one, its ISA and the build's targets.
int probe_devices(int count, std::string* why);

// What probe_devices found for device `id`.
const DeviceIsa& device_isa(int id);

}  // namespace opkit_rocm
