// The initialized library: loaded vendors, per-(op, device type) candidate lists built
// once at init, and the settings. Readers get it through runtime(), which initializes
// on first use; opkit_shutdown destroys it (and must not race with calls in flight).
#pragma once

#include "config.h"
#include "loader.h"
#include "op_spec.hpp"

#include <array>
#include <atomic>
#include <memory>
#include <string>
#include <vector>

namespace opkit {

// One implementation of one op on one device type: a vendor's symbol or the CPU default.
struct Candidate {
    void* fn = nullptr;
    int32_t vendor = -1;  // index into Runtime::vendors; -1 = built-in default
};

// Small fixed capacity keeps the hot path free of pointer chasing.
constexpr int kMaxCandidates = 8;
struct CandidateList {
    int32_t count = 0;
    Candidate items[kMaxCandidates];
};

// Everything known about one device type some vendor (or the built-in CPU code) serves.
struct DeviceEntry {
    int32_t device_type = 0;
    int32_t device_count = 0;
    int32_t memory_vendor = -1;  // vendor whose malloc/memcpy/streams serve this type
    std::vector<int32_t> vendors;  // ready vendors serving it, in resolution order
    std::array<CandidateList, kOpCount> ops;
};

struct VerifyState;  // verify.h

struct Runtime {
    Settings settings;
    uint64_t generation = 0;  // 1, 2, ... per initialization (opkit_last_dispatch)
    // Set when OPKIT_VERIFY is on: dispatch tests this pointer, and only on a vendor's call.
    std::shared_ptr<VerifyState> verify;
    std::vector<loader::Vendor> vendors;
    std::vector<DeviceEntry> devices;  // devices[0] is always OPKIT_DEVICE_CPU
    std::vector<std::string> search_locations;
    // Logged-once flags for host fallback, per op.
    std::array<std::atomic<bool>, kOpCount> fallback_logged{};

    const DeviceEntry* device(int32_t device_type) const {
        for (const DeviceEntry& d : devices)
            if (d.device_type == device_type) return &d;
        return nullptr;
    }
};

// The published runtime (runtime.cpp); read it through runtime().
extern std::atomic<Runtime*> g_runtime;
// The first use: initializes with defaults under the init lock (runtime.cpp).
Runtime* runtime_slow();

// The runtime, initializing with defaults on first use. Returns nullptr (with the
// thread's error message set) only when default initialization itself failed. Inline:
// every op call starts here, and once initialized it is one acquire load.
inline Runtime* runtime() {
    Runtime* rt = g_runtime.load(std::memory_order_acquire);
    return __builtin_expect(rt != nullptr, 1) ? rt : runtime_slow();
}
// The runtime if initialized, else nullptr (never initializes).
Runtime* runtime_if_initialized();

// Fault injection for the tests (never reachable through the public API): the next
// initialization throws, as an allocation failure inside it would.
namespace testing {
extern std::atomic<bool> throw_in_next_init;
}

// DLPack's kDLExtDev (12), which torch_npu exports, is Ascend.
inline int32_t canonical_device_type(int32_t t) { return t == 12 ? OPKIT_DEVICE_ASCEND : t; }
const char* device_type_name(int32_t device_type);  // "cpu", "cuda", ... or "device 16"

}  // namespace opkit
