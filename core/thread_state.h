// What the library keeps per thread for its op calls, in one thread-local block: the
// dispatch record (opkit_last_dispatch), the validation memos and the error message.
// One block because every op call touches all three, and each thread-local variable of
// the default TLS model is found through its own TLS-descriptor call (about five
// instructions, error.cpp says why that model); the entry point finds this block once
// per call and passes it on (op_entry.h). An inline variable, constant-initialized, so
// that no TLS init wrapper is tested on any access.
#pragma once

#include "dispatch_record.h"

namespace opkit {

namespace validate {
struct MemoCall;  // validate_cache.h
}

constexpr int kErrorMessageSize = 1024;

struct ThreadState {
    DispatchRecord dispatch;
    // This thread's memos, one per op: allocated on its first op call and freed when it
    // exits (validate_cache.cpp); nullptr before, or when out of memory.
    validate::MemoCall* memos;
    char message[kErrorMessageSize];  // opkit_last_error_message(); "" = none
};

inline thread_local ThreadState t_state{{0, -1, 0, kServedByNobody, kServedByNobody, 0, 0}, nullptr, {}};

// This thread's block, as a pointer the compiler keeps. GCC otherwise recomputes a
// TLS address at each use instead of keeping it in a register (it counts the resolver
// call as cheap), which makes one lookup per call four. The empty asm hides where the
// pointer came from, so it is computed once and kept (in a callee-saved register across
// the kernel's call).
inline ThreadState& this_thread_state() {
    ThreadState* ts = &t_state;
    asm("" : "+r"(ts));
    return *ts;
}

}  // namespace opkit
