#include "targets.h"

#include "hip_api.h"

#include <cstring>
#include <memory>

#ifndef OPKIT_ROCM_TARGETS
#error "OPKIT_ROCM_TARGETS must list the targets of the embedded images (vendors/rocm/CMakeLists.txt)"
#endif

namespace opkit_rocm {
namespace {

std::vector<DeviceIsa> g_devices;

std::vector<std::string> split_targets() {
    std::vector<std::string> out;
    std::string cur;
    for (const char* p = OPKIT_ROCM_TARGETS;; ++p) {
        if (*p == ';' || *p == ',' || *p == '\0') {
            if (!cur.empty()) out.push_back(cur);
            cur.clear();
            if (*p == '\0') break;
        } else {
            cur += *p;
        }
    }
    return out;
}

}  // namespace

const std::vector<std::string>& build_targets() {
    static const std::vector<std::string> targets = split_targets();
    return targets;
}

std::string build_targets_text() {
    std::string s;
    for (const std::string& t : build_targets()) s += (s.empty() ? "" : ", ") + t;
    return s;
}

std::string base_isa(const std::string& isa) { return isa.substr(0, isa.find(':')); }

int probe_devices(int count, std::string* why) {
    g_devices.assign(size_t(count), DeviceIsa{"", "", true});
    int usable = 0;
    std::string unusable;
    for (int i = 0; i < count; ++i) {
        DeviceIsa& d = g_devices[size_t(i)];
        char name[256] = {};
        if (hip().hipDeviceGetName(name, int(sizeof name) - 1, i) == hipSuccess) d.name = name;
        if (hip().hipGetDeviceProperties) {
            // Heap, zeroed: the struct is about 1 KiB and only gcnArchName is read.
            auto props = std::make_unique<HipDeviceProps>();
            std::memset(props.get(), 0, sizeof *props);
            if (hip().hipGetDeviceProperties(props.get(), i) == hipSuccess) {
                props->gcnArchName[sizeof props->gcnArchName - 1] = '\0';
                d.isa = base_isa(props->gcnArchName);
            }
        }
        (void)hip().hipGetLastError();
        if (!d.isa.empty()) {
            d.supported = false;
            for (const std::string& t : build_targets()) d.supported = d.supported || t == d.isa;
        }
        if (d.supported) {
            ++usable;
            continue;
        }
        unusable += unusable.empty() ? "" : "; ";
        unusable += "device " + std::to_string(i) + (d.name.empty() ? "" : " (" + d.name + ")") + " is " + d.isa;
    }
    if (!unusable.empty())
        *why = unusable + ", which this build has no code objects for (it has " + build_targets_text() +
               "; rebuild with -DOPKIT_ROCM_ARCHS=<that ISA>, see docs/rocm-vendor.md)";
    return usable;
}

const DeviceIsa& device_isa(int id) { return g_devices.at(size_t(id)); }

}  // namespace opkit_rocm
