// Dispatch: walk the (op, device type) candidate list built at init until one
// implementation does not decline; then, for a device no candidate served, the host
// fallback when it is on. The hot path is a table lookup plus an indirect call, and a few
// stores into this thread's DispatchRecord (what opkit_last_dispatch() reports);
// everything after a decline is out of line (dispatch_rest), including the composite
// default of an op that can be composed of other ops (composite.h).
#pragma once

#include "composite.h"
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

// One candidate, called the way its kind needs: the built-in kernel directly, a vendor's
// symbol through call_vendor (exceptions caught, statuses mapped), or verified.
template <OpId Id>
inline opkit_status call_candidate(const Runtime& rt, const Candidate& c, opkit_device dev, const OpArgs<Id>& args) {
    if (c.vendor < 0) return reinterpret_cast<cpu::KernelFn<Id>>(c.fn)(args);
    if (__builtin_expect(rt.verify != nullptr, 0)) return call_vendor_verified<Id>(rt, c, dev, args);  // OPKIT_VERIFY
    const loader::Vendor& v = rt.vendors[size_t(c.vendor)];
    return call_vendor(v, kOpNames[int32_t(Id)], &OpTraits<Id>::call, reinterpret_cast<OpFn<Id>>(c.fn), args);
}

// Records that candidate c declined the call (its message joins `declined`).
void note_decline(const Runtime& rt, DispatchRecord& rec, const Candidate& c, OpId id, std::string& declined);

// Tries list's candidates from `from` on until one does not decline: its status, with
// rec.served set; OPKIT_ERROR_UNSUPPORTED when every one declined (or there were none).
template <OpId Id>
opkit_status try_candidates(const Runtime& rt, DispatchRecord& rec, const CandidateList& list, int32_t from,
                            opkit_device dev, const OpArgs<Id>& args, std::string& declined) {
    for (int32_t i = from; i < list.count; ++i) {
        const Candidate& c = list.items[i];
        const opkit_status s = call_candidate<Id>(rt, c, dev, args);
        if (s != OPKIT_ERROR_UNSUPPORTED) {
            rec.served = int16_t(c.vendor);  // -1 = kServedByDefault
            return s;
        }
        note_decline(rt, rec, c, Id, declined);
    }
    return OPKIT_ERROR_UNSUPPORTED;
}

// What a device does when no candidate serves a call: the host fallback when it is on,
// else the "nobody served" error, which names `called` (the op the caller called).
template <OpId Id>
opkit_status no_candidate_served(const Runtime& rt, DispatchRecord& rec, opkit_device dev, const OpArgs<Id>& args,
                                 OpId called, const std::string& declined) {
    if (dev.device_type != OPKIT_DEVICE_CPU && rt.settings.host_fallback) {
        rec.served = kServedByHostFallback;
        return run_on_host<Id>(const_cast<Runtime&>(rt), dev, args);
    }
    rec.served = kServedByNobody;  // a composite's earlier component may have been served
    return nobody_served(rt, called, dev, declined);
}

// One component call of a composite (composite.h): dispatched like a call of its own op
// on the device, after validation (the composite's validation covers each component).
// The first component returns OPKIT_ERROR_UNSUPPORTED when no candidate serves it, and
// nothing was written; a later one falls back as its own op would, since its
// predecessors' outputs are already written (its error names `composite`, the op called).
template <OpId Id>
opkit_status dispatch_component(const Runtime& rt, DispatchRecord& rec, OpId composite, opkit_device dev,
                                const OpArgs<Id>& args, bool first, std::string& declined) {
    const DeviceEntry* d = dev.device_type == OPKIT_DEVICE_CPU ? &rt.devices[0] : rt.device(dev.device_type);
    const opkit_status s = try_candidates<Id>(rt, rec, d->ops[int32_t(Id)], 0, dev, args, declined);
    if (s != OPKIT_ERROR_UNSUPPORTED || first) return s;
    return no_candidate_served<Id>(rt, rec, dev, args, composite, declined);
}

// The slow rest of dispatch: when the first candidate declined (first_declined), record
// that and try the others; then, for an op composed of other ops (composite.h), its
// components through their own candidates; then the host fallback or the "nobody
// served" error. Off the hot path, which is one candidate that serves the call.
template <OpId Id>
__attribute__((noinline, cold)) opkit_status dispatch_rest(const Runtime& rt, DispatchRecord& rec,
                                                           const CandidateList& list, bool first_declined,
                                                           opkit_device dev, const OpArgs<Id>& args) {
    std::string declined;
    if (first_declined) note_decline(rt, rec, list.items[0], Id, declined);
    opkit_status s = try_candidates<Id>(rt, rec, list, first_declined ? 1 : 0, dev, args, declined);
    bool served = s != OPKIT_ERROR_UNSUPPORTED;
    if constexpr (Composite<Id>::defined) {
        // Only where no candidate of the op itself served (on the CPU the default always does).
        if (!served) s = Composite<Id>::run(rt, rec, dev, args, declined, &served);
    }
    if (!served) s = no_candidate_served<Id>(rt, rec, dev, args, Id, declined);
    rec.status = s;
    return s;
}

// Leaves this thread's DispatchRecord (dispatch_record.h), `rec`: a few stores on the
// way. `rt` is the runtime the entry point validated against (op_entry.h).
template <OpId Id>
opkit_status dispatch(const Runtime& rt, DispatchRecord& rec, opkit_device dev, const OpArgs<Id>& args) {
    rec.generation = rt.generation;
    rec.op = int32_t(Id);
    rec.device_type = dev.device_type;
    rec.served = kServedByNobody;
    rec.first_decliner = kServedByNobody;
    rec.declined = 0;
    rec.status = kPending;
    // devices[0] is always the CPU (runtime.h): no search for the common case
    const DeviceEntry* d = dev.device_type == OPKIT_DEVICE_CPU ? &rt.devices[0] : rt.device(dev.device_type);
    const CandidateList& list = d->ops[int32_t(Id)];
    if (__builtin_expect(list.count > 0, 1)) {
        const Candidate& c = list.items[0];
        const opkit_status s = call_candidate<Id>(rt, c, dev, args);
        if (__builtin_expect(s != OPKIT_ERROR_UNSUPPORTED, 1)) {
            rec.served = int16_t(c.vendor);  // -1 = kServedByDefault
            rec.status = s;
            return s;
        }
        return dispatch_rest<Id>(rt, rec, list, true, dev, args);
    }
    return dispatch_rest<Id>(rt, rec, list, false, dev, args);
}

}  // namespace opkit
