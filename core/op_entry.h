// The shape every public op entry point shares: guard against exceptions, make sure the
// library is initialized, validate everything, then dispatch. The entry points
// themselves are expanded from the op spec in api_ops.cpp; each op's validation rule is
// a validate_op overload (validate_ops.h). Every call leaves its record for
// opkit_last_dispatch() (dispatch_record.h): dispatch() writes it; the entry point only
// for a call that fails.
#pragma once

#include "dispatch.h"
#include "dispatch_record.h"
#include "validate_ops.h"

namespace opkit {

template <class Args>
opkit_status run_op(const Args& args) noexcept {
    constexpr OpId id = OpIdOf<Args>::value;
    uint64_t generation = 0;
    bool dispatched = false;
    const opkit_status s = guard(kOpNames[int32_t(id)], [&]() -> opkit_status {
        clear_error();
        const Runtime* rt = runtime();
        if (!rt) return OPKIT_ERROR_INTERNAL;
        generation = rt->generation;
        opkit_device device;
        OPKIT_TRY(validate_op(args, &device));
        dispatched = true;
        return dispatch<id>(device, args);  // records what it did (dispatch_record.h)
    });
    // A failed call may not have reached dispatch, or left it by an exception.
    if (__builtin_expect(s != OPKIT_OK, 0)) record_failed_call(int32_t(id), generation, s, dispatched);
    return s;
}

}  // namespace opkit
