// Dispatch: walk the (op, device type) candidate list built at init until one
// implementation does not decline; then, for a device no candidate served, the host
// fallback when it is on. The hot path is a table lookup plus an indirect call, and a few
// stores into this thread's DispatchRecord (what opkit_last_dispatch() reports).
#pragma once

#include "cpu/kernels.h"
#include "dispatch_record.h"
#include "error.h"
#include "host_fallback.h"
#include "log.h"
#include "runtime.h"
#include "vendor_call.h"
#include "verify.h"

#include <cstring>
#include <string>

namespace opkit {

opkit_status nobody_served(const Runtime& rt, OpId id, opkit_device dev, const std::string& declined);

// Leaves this thread's DispatchRecord (dispatch_record.h): a few stores on the way.
template <OpId Id>
opkit_status dispatch(opkit_device dev, const OpArgs<Id>& args) {
    const Runtime& rt = *runtime_if_initialized();  // validation initialized it
    DispatchRecord& rec = t_dispatch;
    rec.generation = rt.generation;
    rec.op = int32_t(Id);
    rec.device_type = dev.device_type;
    rec.served = kServedByNobody;
    rec.first_decliner = kServedByNobody;
    rec.declined = 0;
    rec.status = kPending;
    const DeviceEntry* d = rt.device(dev.device_type);
    const CandidateList& list = d->ops[int32_t(Id)];
    std::string declined;
    for (int32_t i = 0; i < list.count; ++i) {
        const Candidate& c = list.items[i];
        opkit_status s;
        if (c.vendor < 0) {
            s = reinterpret_cast<cpu::KernelFn<Id>>(c.fn)(args);
        } else if (__builtin_expect(rt.verify != nullptr, 0)) {  // OPKIT_VERIFY (verify.h)
            s = call_vendor_verified<Id>(rt, c, dev, args);
        } else {
            const loader::Vendor& v = rt.vendors[size_t(c.vendor)];
            s = call_vendor(v, kOpNames[int32_t(Id)], &OpTraits<Id>::call, reinterpret_cast<OpFn<Id>>(c.fn),
                            args);
        }
        if (s != OPKIT_ERROR_UNSUPPORTED) {
            rec.served = int16_t(c.vendor);  // -1 = kServedByDefault
            rec.status = s;
            return s;
        }
        if (rec.declined++ == 0) rec.first_decliner = int16_t(c.vendor);
        if (c.vendor >= 0) {
            const loader::Vendor& v = rt.vendors[size_t(c.vendor)];
            declined += declined.empty() ? "" : "; ";
            declined += last_error();
            logf(OPKIT_LOG_DEBUG, "%s: vendor '%s' declined: %s", kOpNames[int32_t(Id)], v.name.c_str(),
                 last_error());
        }
    }
    opkit_status s;
    if (dev.device_type != OPKIT_DEVICE_CPU && rt.settings.host_fallback) {
        rec.served = kServedByHostFallback;
        s = run_on_host<Id>(const_cast<Runtime&>(rt), dev, args);
    } else {
        s = nobody_served(rt, Id, dev, declined);
    }
    rec.status = s;
    return s;
}

}  // namespace opkit
