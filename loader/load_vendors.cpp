// Loading one vendor: policy checks before dlopen, the ABI version before any vendor
// code runs, then init (guarded), then symbol resolution. Every outcome is a state plus
// a reason on the Vendor record.
#include "discovery.h"
#include "dynlib.h"
#include "loader.h"
#include "permissions.h"

#include <algorithm>
#include <cstdio>
#include <exception>

namespace opkit::loader {
namespace {

bool listed(const std::vector<std::string>& list, const std::string& name) {
    return std::find(list.begin(), list.end(), name) != list.end();
}

void log_via(const opkit_vendor_host& host, int32_t level, const std::string& text) {
    if (host.log) host.log(level, text.c_str());
}

std::string abi_string(uint32_t v) {
    return std::to_string(v >> 16) + "." + std::to_string(v & 0xffffu);
}

// Resolves memory functions and op symbols of an initialized vendor.
void resolve_symbols(Vendor& v) {
    v.memory.malloc_fn = reinterpret_cast<decltype(v.memory.malloc_fn)>(find_symbol(v.handle, "opkit_vendor_malloc"));
    v.memory.free_fn = reinterpret_cast<decltype(v.memory.free_fn)>(find_symbol(v.handle, "opkit_vendor_free"));
    v.memory.memcpy_fn = reinterpret_cast<decltype(v.memory.memcpy_fn)>(find_symbol(v.handle, "opkit_vendor_memcpy"));
    v.memory.stream_create_fn =
        reinterpret_cast<decltype(v.memory.stream_create_fn)>(find_symbol(v.handle, "opkit_vendor_stream_create"));
    v.memory.stream_destroy_fn =
        reinterpret_cast<decltype(v.memory.stream_destroy_fn)>(find_symbol(v.handle, "opkit_vendor_stream_destroy"));
    v.memory.synchronize_fn =
        reinterpret_cast<decltype(v.memory.synchronize_fn)>(find_symbol(v.handle, "opkit_vendor_synchronize"));
    v.last_error = reinterpret_cast<opkit_vendor_last_error_fn>(find_symbol(v.handle, "opkit_vendor_last_error"));
    v.op_count = 0;
    for (int32_t op = 0; op < kOpCount; ++op) {
        const std::string sym = std::string("opkit_vendor_") + kOpNames[op];
        v.ops[op] = find_symbol(v.handle, sym.c_str());
        if (v.ops[op]) ++v.op_count;
    }
}

// dlopen, ABI check, init, resolution. Sets v.state and v.detail.
void load_one(Vendor& v, const opkit_vendor_host& host) {
    std::string error;
    v.handle = open_library(v.path, &error);
    if (!v.handle) {
        v.state = OPKIT_VENDOR_LOAD_FAILED;
        v.detail = error;
        return;
    }
    const auto* abi = static_cast<const uint32_t*>(find_symbol(v.handle, "opkit_vendor_abi_version"));
    if (!abi) {
        v.state = OPKIT_VENDOR_INCOMPATIBLE;
        v.detail = "does not export opkit_vendor_abi_version";
    } else if ((*abi >> 16) != OPKIT_VENDOR_ABI_MAJOR || (*abi & 0xffffu) > OPKIT_VENDOR_ABI_MINOR) {
        v.state = OPKIT_VENDOR_INCOMPATIBLE;
        v.detail = "built for vendor ABI " + abi_string(*abi) + ", this libopkit speaks " +
                   abi_string(OPKIT_VENDOR_ABI_VERSION);
    }
    const auto init = reinterpret_cast<opkit_vendor_init_fn>(find_symbol(v.handle, "opkit_vendor_init"));
    const auto shutdown = reinterpret_cast<opkit_vendor_shutdown_fn>(find_symbol(v.handle, "opkit_vendor_shutdown"));
    if (v.detail.empty() && (!init || !shutdown)) {
        v.state = OPKIT_VENDOR_INCOMPATIBLE;
        v.detail = std::string("does not export ") + (!init ? "opkit_vendor_init" : "opkit_vendor_shutdown");
    }
    if (!v.detail.empty()) {  // nothing of the vendor ran: unload it
        close_library(v.handle);
        v.handle = nullptr;
        return;
    }

    opkit_vendor_desc desc{};
    desc.struct_size = sizeof desc;
    opkit_status s;
    try {
        s = init(&host, &desc);
    } catch (const std::exception& e) {
        v.state = OPKIT_VENDOR_INIT_FAILED;
        v.detail = std::string("opkit_vendor_init threw: ") + e.what();
        return;  // keep it loaded: a throwing init may have left state behind
    } catch (...) {
        v.state = OPKIT_VENDOR_INIT_FAILED;
        v.detail = "opkit_vendor_init threw an unknown exception";
        return;
    }
    if (s != OPKIT_OK) {
        v.state = OPKIT_VENDOR_INIT_FAILED;
        v.detail = std::string("opkit_vendor_init returned ") + opkit_status_string(s);
        if (desc.detail) v.detail += std::string(": ") + desc.detail;
        return;
    }
    v.shutdown = shutdown;  // init succeeded: shutdown is owed
    v.version = desc.version ? desc.version : "";
    v.device_type = desc.device_type;
    v.device_count = desc.device_count;
    v.priority = desc.priority;
    if (desc.name && v.name != desc.name)
        log_via(host, OPKIT_LOG_WARN,
                v.path + " calls itself \"" + desc.name + "\"; it is known by its file name \"" + v.name + "\"");
    resolve_symbols(v);
    if (desc.device_type <= 0) {
        v.state = OPKIT_VENDOR_INCOMPATIBLE;
        v.detail = "reported device type " + std::to_string(desc.device_type);
    } else if (desc.device_type != OPKIT_DEVICE_CPU && !v.memory.complete()) {
        v.state = OPKIT_VENDOR_INCOMPATIBLE;
        v.detail = "serves device type " + std::to_string(desc.device_type) +
                   " but does not export all of opkit_vendor_malloc/free/memcpy/stream_create/"
                   "stream_destroy/synchronize";
    } else if (desc.device_count <= 0) {
        v.state = OPKIT_VENDOR_NO_DEVICE;
        v.detail = desc.detail && *desc.detail ? desc.detail : "no device found";
    } else {
        v.state = OPKIT_VENDOR_READY;
        // A ready vendor may still have something to say (the rocm vendor: a device it
        // counts but cannot use); shown as given.
        v.detail = desc.detail ? desc.detail : "";
    }
}

}  // namespace

std::vector<Vendor> load_vendors(const Config& config, const opkit_vendor_host& host) {
    std::vector<Vendor> vendors;
    try {
        for (const std::string& file : candidate_files(search_locations(config))) {
            Vendor v;
            v.path = file;
            vendor_name_from_file(file, &v.name);
            std::string why;
            // The first file of a name wins, whatever became of it.
            const Vendor* earlier = nullptr;
            for (const Vendor& o : vendors)
                if (!earlier && o.name == v.name) earlier = &o;
            if (earlier) {
                v.state = OPKIT_VENDOR_DISABLED;
                v.detail = "duplicate of vendor '" + v.name + "' found first at " + earlier->path;
            } else if (!config.allow.empty() && !listed(config.allow, v.name)) {
                v.state = OPKIT_VENDOR_DISABLED;
                v.detail = "not listed in OPKIT_VENDORS";
            } else if (listed(config.deny, v.name)) {
                v.state = OPKIT_VENDOR_DISABLED;
                v.detail = "disabled by OPKIT_VENDORS_DISABLE";
            } else if (!vendor_file_trusted(file, &why)) {  // before any byte is mapped
                v.state = OPKIT_VENDOR_LOAD_FAILED;
                v.detail = why;
            } else {
                load_one(v, host);
            }
            vendors.push_back(std::move(v));
        }
    } catch (...) {
        // Out of memory while building records: keep what was recorded so far.
    }
    return vendors;
}

void unload_vendors(std::vector<Vendor>& vendors) {
    for (Vendor& v : vendors) {
        if (v.shutdown) {
            try {
                v.shutdown();
            } catch (...) {
            }
        }
        close_library(v.handle);
        v.handle = nullptr;
    }
    vendors.clear();
}

}  // namespace opkit::loader
