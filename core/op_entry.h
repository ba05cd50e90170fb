// The shape every public op entry point shares: guard against exceptions, make sure the
// library is initialized, validate everything, then dispatch.
#pragma once

#include "dispatch.h"
#include "validate.h"

namespace opkit {

template <OpId Id, class Validator, class... Args>
opkit_status run_op(Validator&& validate_call, Args... args) noexcept {
    return guard(kOpNames[int32_t(Id)], [&]() -> opkit_status {
        clear_error();
        if (!runtime()) return OPKIT_ERROR_INTERNAL;
        opkit_device device;
        OPKIT_TRY(validate_call(&device));
        return dispatch<Id>(device, args...);
    });
}

}  // namespace opkit
