// The shape every public op entry point shares: guard against exceptions, make sure the
// library is initialized, validate everything, then dispatch. The entry points
// themselves are expanded from the op spec in api_ops.cpp; each op's validation rule is
// a validate_op overload (validate_ops.h). Every call leaves its record for
// opkit_last_dispatch() (dispatch_record.h): dispatch() writes it; the entry point only
// for a call that fails.
#pragma once

#include "dispatch.h"
#include "dispatch_record.h"
#include "thread_state.h"
#include "validate_cache.h"
#include "validate_ops.h"

namespace opkit {

// validate_op(), skipping its layout half when the call repeats the layout of this
// thread's last accepted call of the op (validate_cache.h says why that decides nothing
// differently).
template <class Args>
opkit_status validate_call(const Runtime& rt, ThreadState& ts, const Args& args, opkit_device* device) {
    constexpr OpId id = OpIdOf<Args>::value;
    validate::MemoCall* memo = rt.settings.validation_memo ? validate::thread_memo(ts, int32_t(id)) : nullptr;
    if (__builtin_expect(memo != nullptr, 1) && memo->generation == rt.generation &&
        validate::memo_accepts(*memo, args)) {
        *device = memo->device;
        return OPKIT_OK;
    }
    const opkit_status s = validate_op(args, device);
    if (s == OPKIT_OK && memo) validate::remember(*memo, args, rt.generation, *device);
    return s;
}

// The thread's state (thread_state.h) is found once here and handed down: each lookup of
// a thread-local variable is a call into the dynamic linker's TLS resolver. Inlined into
// its entry point (its only caller), which then has no second call to make.
template <class Args>
__attribute__((always_inline)) inline opkit_status run_op(const Args& args) noexcept {
    constexpr OpId id = OpIdOf<Args>::value;
    ThreadState& ts = this_thread_state();
    uint64_t generation = 0;
    bool dispatched = false;
    const opkit_status s = guard(kOpNames[int32_t(id)], [&]() -> opkit_status {
        ts.message[0] = '\0';  // clear_error()
        const Runtime* rt = runtime();
        if (!rt) return OPKIT_ERROR_INTERNAL;
        generation = rt->generation;
        opkit_device device;
        OPKIT_TRY(validate_call(*rt, ts, args, &device));
        dispatched = true;
        return dispatch<id>(*rt, ts.dispatch, device, args);  // records what it did (dispatch_record.h)
    });
    // A failed call may not have reached dispatch, or left it by an exception.
    if (__builtin_expect(s != OPKIT_OK, 0)) record_failed_call(int32_t(id), generation, s, dispatched);
    return s;
}

}  // namespace opkit
