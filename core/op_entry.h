// The shape every public op entry point shares: guard against exceptions, make sure the
// library is initialized, validate everything, then dispatch. The entry points
// themselves are expanded from the op spec in api_ops.cpp; each op's validation rule is
// a validate_op overload (validate_ops.h). Every call leaves its record for
// opkit_last_dispatch() (dispatch_record.h): a few stores here and in dispatch().
#pragma once

#include "dispatch.h"
#include "dispatch_record.h"
#include "validate_ops.h"

namespace opkit {

template <class Args>
opkit_status run_op(const Args& args) noexcept {
    constexpr OpId id = OpIdOf<Args>::value;
    DispatchRecord& rec = t_dispatch;
    rec.generation = 0;
    rec.op = int32_t(id);
    rec.device_type = 0;
    rec.served = kServedByNobody;
    rec.first_decliner = kServedByNobody;
    rec.declined = 0;
    const opkit_status s = guard(kOpNames[int32_t(id)], [&]() -> opkit_status {
        clear_error();
        const Runtime* rt = runtime();
        if (!rt) return OPKIT_ERROR_INTERNAL;
        rec.generation = rt->generation;
        opkit_device device;
        OPKIT_TRY(validate_op(args, &device));
        return dispatch<id>(device, args);
    });
    rec.status = s;
    return s;
}

}  // namespace opkit
