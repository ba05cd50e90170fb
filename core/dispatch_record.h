// What dispatch did for the last op call on this thread, read by opkit_last_dispatch()
// (api_dispatch_info.cpp). Written on every op call, so it is a handful of plain stores
// into one thread-local struct, all made by dispatch() (which every successful call
// goes through); the entry point writes it only for calls that fail before dispatch or
// inside it (op_entry.h). Names are resolved only when someone asks.
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
    int32_t op;            // OpId; -1 = none
    int32_t device_type;   // 0 when the call failed before its device was known
    int16_t served;        // see above
    int16_t first_decliner;
    int32_t declined;      // candidates that returned OPKIT_ERROR_UNSUPPORTED
    int32_t status;        // what the op call returned; kPending while dispatch runs
};

// DispatchRecord::status while dispatch runs: a call that leaves it so ended in an
// exception, caught by the entry point's guard (op_entry.h).
constexpr int32_t kPending = -1;

// This thread's record is ThreadState::dispatch (thread_state.h).

// Records the status of a call that failed. When it reached dispatch, dispatch's record
// stands (an exception may have left it pending); otherwise nobody served it. Cold.
void record_failed_call(int32_t op, uint64_t generation, opkit_status status, bool dispatched) noexcept;

}  // namespace opkit
