// The loader: the only code in opkit that touches dlopen/dlsym. It finds vendor files,
// checks their ABI version before calling anything in them, initializes them, resolves
// their memory and op symbols, and records the outcome of every candidate as a state
// plus a reason. Nothing about a broken vendor stops the others.
#pragma once

#include "opkit_vendor.h"
#include "op_spec.hpp"

#include <string>
#include <vector>

namespace opkit::loader {

// Memory/stream entry points of a vendor serving a non-CPU device (all or none).
struct MemoryFns {
    decltype(&::opkit_vendor_malloc) malloc_fn = nullptr;
    decltype(&::opkit_vendor_free) free_fn = nullptr;
    decltype(&::opkit_vendor_memcpy) memcpy_fn = nullptr;
    decltype(&::opkit_vendor_stream_create) stream_create_fn = nullptr;
    decltype(&::opkit_vendor_stream_destroy) stream_destroy_fn = nullptr;
    decltype(&::opkit_vendor_synchronize) synchronize_fn = nullptr;
    bool complete() const {
        return malloc_fn && free_fn && memcpy_fn && stream_create_fn && stream_destroy_fn &&
               synchronize_fn;
    }
};

struct Vendor {
    std::string name;     // from the file name: libopkit_vendor_<name>.so
    std::string path;     // absolute path of the file
    std::string version;  // desc.version, "" until init succeeded
    std::string detail;   // the reason for any state but READY
    int32_t state = OPKIT_VENDOR_DISABLED;
    int32_t device_type = 0;
    int32_t device_count = 0;
    int32_t priority = 0;
    int32_t op_count = 0;
    void* handle = nullptr;                    // dlopen handle, null unless loaded
    void* ops[kOpCount] = {};                  // resolved opkit_vendor_<op>, or null
    MemoryFns memory;
    opkit_vendor_shutdown_fn shutdown = nullptr;  // set once init succeeded
    // Optional export `const char* opkit_vendor_last_error(void)`: the vendor's
    // thread-local explanation of its last non-OK status (see opkit_vendor.h).
    opkit_vendor_last_error_fn last_error = nullptr;
};

struct Config {
    std::vector<std::string> search_path;  // entries of OPKIT_VENDOR_PATH / the option
    std::vector<std::string> allow;        // OPKIT_VENDORS (empty = all)
    std::vector<std::string> deny;         // OPKIT_VENDORS_DISABLE
};

// The directory holding libopkit.so, found with dladdr ("" if unknown).
std::string library_directory();
// The full list of directories/files searched, in order: config.search_path, then
// <library_directory()>/opkit/vendors.
std::vector<std::string> search_locations(const Config& config);

// Discovers, loads and initializes vendors. Never throws; every candidate file gets a
// Vendor record (ignored files, which don't match libopkit_vendor_*.so, get none).
std::vector<Vendor> load_vendors(const Config& config, const opkit_vendor_host& host);
// Calls each initialized vendor's shutdown (guarded) and dlcloses it.
void unload_vendors(std::vector<Vendor>& vendors);

}  // namespace opkit::loader
