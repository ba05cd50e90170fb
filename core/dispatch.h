// Dispatch: walk the (op, device type) candidate list built at init until one
// implementation does not decline; then, for a device no candidate served, the host
// fallback when it is on. The hot path is a table lookup plus an indirect call.
#pragma once

#include "cpu/kernels.h"
#include "error.h"
#include "host_fallback.h"
#include "log.h"
#include "runtime.h"
#include "vendor_call.h"

#include <cstring>
#include <string>

namespace opkit {

opkit_status nobody_served(const Runtime& rt, OpId id, opkit_device dev, const std::string& declined);

template <OpId Id>
opkit_status dispatch(opkit_device dev, const OpArgs<Id>& args) {
    const Runtime& rt = *runtime_if_initialized();  // validation initialized it
    const DeviceEntry* d = rt.device(dev.device_type);
    const CandidateList& list = d->ops[int32_t(Id)];
    std::string declined;
    for (int32_t i = 0; i < list.count; ++i) {
        const Candidate& c = list.items[i];
        opkit_status s;
        if (c.vendor < 0) {
            s = reinterpret_cast<cpu::KernelFn<Id>>(c.fn)(args);
        } else {
            const loader::Vendor& v = rt.vendors[size_t(c.vendor)];
            s = call_vendor(v, kOpNames[int32_t(Id)], &OpTraits<Id>::call, reinterpret_cast<OpFn<Id>>(c.fn),
                            args);
            if (s == OPKIT_ERROR_UNSUPPORTED) {
                declined += declined.empty() ? "" : "; ";
                declined += last_error();
                // A decline is otherwise invisible when a later candidate serves the call;
                // opkit-conformance counts these lines to tell a decline from a pass.
                logf(OPKIT_LOG_DEBUG, "%s: vendor '%s' declined: %s", kOpNames[int32_t(Id)], v.name.c_str(),
                     last_error());
            }
        }
        if (s != OPKIT_ERROR_UNSUPPORTED) return s;
    }
    if (dev.device_type != OPKIT_DEVICE_CPU && rt.settings.host_fallback)
        return run_on_host<Id>(const_cast<Runtime&>(rt), dev, args);
    return nobody_served(rt, Id, dev, declined);
}

}  // namespace opkit
