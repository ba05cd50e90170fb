// The shape every public op entry point shares: guard against exceptions, make sure the
// library is initialized, validate everything, then dispatch. The entry points
// themselves are expanded from the op spec in api_ops.cpp; each op's validation rule is
// a validate_op overload (validate_ops.h).
#pragma once

#include "dispatch.h"
#include "validate_ops.h"

namespace opkit {

template <class Args>
opkit_status run_op(const Args& args) noexcept {
    constexpr OpId id = OpIdOf<Args>::value;
    return guard(kOpNames[int32_t(id)], [&]() -> opkit_status {
        clear_error();
        if (!runtime()) return OPKIT_ERROR_INTERNAL;
        opkit_device device;
        OPKIT_TRY(validate_op(args, &device));
        return dispatch<id>(device, args);
    });
}

}  // namespace opkit
