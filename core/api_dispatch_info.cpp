// opkit_last_dispatch(): what dispatch did for this thread's last op call, read from the
// thread's DispatchRecord (dispatch_record.h, kept in thread_state.h). Names are resolved here, not when the
// call is recorded.
#include "dispatch_record.h"
#include "error.h"
#include "runtime.h"
#include "thread_state.h"

#include <cstddef>

namespace opkit {

__attribute__((cold, noinline)) void record_failed_call(int32_t op, uint64_t generation, opkit_status status,
                                                         bool dispatched) noexcept {
    DispatchRecord& rec = t_state.dispatch;
    if (dispatched) {
        rec.status = status;  // dispatch's record stands (pending if an exception left it)
        return;
    }
    rec.generation = generation;
    rec.op = op;
    rec.device_type = 0;
    rec.served = kServedByNobody;
    rec.first_decliner = kServedByNobody;
    rec.declined = 0;
    rec.status = status;
}

}  // namespace opkit

using namespace opkit;

namespace {

const char* who(const Runtime& rt, int16_t served) {
    if (served >= 0 && size_t(served) < rt.vendors.size()) return rt.vendors[size_t(served)].name.c_str();
    if (served == kServedByDefault) return "default";
    if (served == kServedByHostFallback) return "host-fallback";
    return "";
}

}  // namespace

extern "C" OPKIT_API opkit_status opkit_last_dispatch(opkit_dispatch_info* info) {
    return guard("opkit_last_dispatch", [&]() -> opkit_status {
        constexpr size_t v1_size = offsetof(opkit_dispatch_info, first_declined_by) + sizeof(const char*);
        if (!info) return fail(OPKIT_ERROR_INVALID_ARGUMENT, "opkit_last_dispatch: info is NULL");
        if (info->struct_size < v1_size)
            return fail(OPKIT_ERROR_INVALID_ARGUMENT,
                        "opkit_last_dispatch: info->struct_size is %u, expected at least %zu "
                        "(set it to sizeof(opkit_dispatch_info))",
                        unsigned(info->struct_size), v1_size);
        info->op = "";
        info->device_type = 0;
        info->status = OPKIT_OK;
        info->served_by = "";
        info->declined = 0;
        info->first_declined_by = "";
        const DispatchRecord& rec = t_state.dispatch;
        const Runtime* rt = runtime_if_initialized();  // never initializes
        if (!rt || rec.generation != rt->generation || rec.op < 0 || rec.op >= kOpCount ||
            rec.status == kPending)
            return fail(OPKIT_ERROR_NOT_FOUND,
                        "opkit_last_dispatch: this thread made no op call since the library was %s",
                        rt ? "initialized" : "last initialized (it is not initialized now)");
        info->op = kOpNames[rec.op];
        info->device_type = rec.device_type;
        info->status = rec.status;
        info->served_by = who(*rt, rec.served);
        info->declined = rec.declined;
        info->first_declined_by = rec.declined > 0 ? who(*rt, rec.first_decliner) : "";
        return OPKIT_OK;
    });
}
