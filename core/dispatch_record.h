// What dispatch did for the last op call on this thread, read by opkit_last_dispatch()
// (api_dispatch_info.cpp). Written on every op call, so it is a handful of plain stores
// into one thread-local struct: names are resolved only when someone asks.
#pragma once

#include "opkit.h"

#include <cstdint>

namespace opkit {

// Who served a call (DispatchRecord::served, ::first_decliner): a vendor index into
// Runtime::vendors (>= 0) or one of these.
enum : int16_t {
    kServedByDefault = -1,       // the built-in CPU kernel
    kServedByHostFallback = -2,  // the CPU kernel through host copies
    kServedByNobody = -3,        // validation failed, or every candidate declined
};

struct DispatchRecord {
    uint64_t generation;   // Runtime::generation of the call; 0 = no call recorded
    int32_t op;            // OpId
    int32_t device_type;   // 0 until dispatch knows it
    int32_t status;        // what the op call returned
    int16_t served;        // see above
    int16_t first_decliner;
    int32_t declined;      // candidates that returned OPKIT_ERROR_UNSUPPORTED
};

// Constant-initialized and defined in every translation unit that includes this (an
// inline variable), so that the compiler accesses it directly, with no TLS wrapper call.
// Default TLS model for the reason error.cpp gives.
inline thread_local DispatchRecord t_dispatch{0, -1, 0, 0, kServedByNobody, kServedByNobody, 0};

}  // namespace opkit
