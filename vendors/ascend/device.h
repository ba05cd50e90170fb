// Per-device state and the device a call runs on.
//
// Every vendor call names its device (the tensors' device_id); DeviceScope makes that
// device current on the calling thread with aclrtSetDevice and gives the caller's back
// afterwards, so an application (torch_npu) keeps the device it had set.
//
// Device memory a call needs besides its tensors — the temporaries of a composition and
// the aclnn workspace — comes from a cache per (device, stream): a stream runs its work in
// order, so a buffer the previous call on the same stream used may be reused at once,
// while the NPU may still be running that call (audit:321-322: the workspace must stay
// alive until the kernel runs, and is safe to reuse only from the same stream). A buffer
// is replaced by a larger one only after synchronizing its stream, and freed only after
// the stream (or, at shutdown, the device) is synchronized: never while queued work may
// still use it. One call holds its stream's cache for all of its steps, so two threads
// sharing a stream cannot interleave their temporaries.
#pragma once

#include "acl_decls.h"
#include "opkit_vendor.h"

#include <cstddef>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace opkit_ascend {

// A device buffer owned by a stream's cache; grows, never shrinks.
struct Arena {
    void* ptr = nullptr;
    size_t size = 0;
};

struct StreamCache {
    std::mutex mu;  // held by the one call using the stream's buffers
    Arena temps;    // the composition's temporaries
    Arena work;     // the aclnn workspace (shared by the call's steps, which run in order)
};

struct Device {
    int id = 0;
    std::mutex mu;  // guards streams and ones
    std::unordered_map<acl::Stream, std::unique_ptr<StreamCache>> streams;
    struct Ones {
        void* ptr = nullptr;
        int64_t count = 0;
    } ones[3];                  // f32, f16, bf16: RmsNorm's gamma without weight, a loss gradient of 1
    std::vector<void*> retired;  // ones buffers outgrown; freed at shutdown after a device synchronize
};

void devices_init(int count);
void devices_shutdown();
int device_count();
bool is_ascend(opkit_device d);  // device type 21, or 12 (kDLExtDev, what torch_npu exports)

// aclnnInit once per process (audit:217); the vendor .so is never unloaded (-z nodelete),
// so this holds across opkit_shutdown/opkit_init.
void aclnn_init_once();

class DeviceScope {
public:
    DeviceScope() = default;
    DeviceScope(const DeviceScope&) = delete;
    DeviceScope& operator=(const DeviceScope&) = delete;
    ~DeviceScope();
    opkit_status enter(int id);
    Device& dev() { return *dev_; }

private:
    Device* dev_ = nullptr;
    int restore_ = -1;  // the caller's device, set back on exit; -1 = leave as is
};

// The stream's cache on the current device, locked for the caller's lifetime.
class StreamLease {
public:
    StreamLease() = default;
    StreamLease(const StreamLease&) = delete;
    StreamLease& operator=(const StreamLease&) = delete;
    ~StreamLease();
    void acquire(Device& d, acl::Stream s);
    // A buffer of at least `bytes` from one of the lease's arenas (after synchronizing
    // the stream when it has to grow). The device must be current.
    opkit_status reserve(Arena& a, size_t bytes, const char* what, void** out);
    StreamCache& cache() { return *cache_; }

private:
    StreamCache* cache_ = nullptr;
    acl::Stream stream_ = nullptr;
};

// n ones of the float dtype (0 f32, 1 f16, 2 bf16) on the current device, cached.
opkit_status ones(Device& d, int float_type, int64_t n, void** out);

// A stream opkit_stream_destroy is about to destroy: its cache is synchronized and freed.
void forget_stream(Device& d, acl::Stream s);

}  // namespace opkit_ascend
