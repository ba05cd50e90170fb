// Verification mode (OPKIT_VERIFY=1, or a share such as 0.01): a vendor-served call runs
// a second time on the CPU defaults, on host copies of its inputs, and the outputs are
// compared with the tolerance table (tolerances.def) that opkit-conformance uses. The
// first mismatch per (op, vendor, dtype) is logged at ERROR with the shapes and the worst
// element. The caller's outputs stay the vendor's. Off by default; when off, dispatch
// pays one test of a pointer it already has in cache (Runtime::verify), and only on the
// way to a vendor.
#pragma once

#include "cpu/kernels.h"
#include "error.h"
#include "runtime.h"
#include "vendor_call.h"

#include <cstdio>
#include <memory>
#include <type_traits>

namespace opkit {

std::shared_ptr<VerifyState> make_verify_state(double share);

// Whether this call is in the verified share: one call in round(1 / share), counted over
// all threads (share 0.01 verifies vendor-served calls 0, 100, 200, ...).
bool verify_this_call(VerifyState& state);

// The host side of one verified call: host copies of the call's tensors, taken before the
// vendor runs (so in-place and inout tensors are seen as the vendor saw them), then the
// comparison of the vendor's outputs with what the CPU defaults computed on the copies.
// Nothing here fails the caller's call: a problem with verification itself is logged.
class VerifiedCall {
public:
    VerifiedCall(const Runtime& rt, OpId op, int32_t vendor, opkit_device device, opkit_stream stream) noexcept;
    ~VerifiedCall();
    VerifiedCall(const VerifiedCall&) = delete;
    VerifiedCall& operator=(const VerifiedCall&) = delete;

    // A host twin of t (NULL stays NULL) whose contents are copied now, unless t is a
    // pure output (out, opt_out) not sharing storage with another argument.
    opkit_tensor* stage(ParamKind kind, const char* name, const opkit_tensor* t) noexcept;
    bool staged() const noexcept;  // every stage() worked
    // After the vendor returned OPKIT_OK and the CPU default ran on the twins (cpu_status):
    // fetches the vendor's outputs and compares. Logs; never fails.
    void check(opkit_status cpu_status) noexcept;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// Dispatch calls this instead of call_vendor when OPKIT_VERIFY is on. Never inlined, and
// kept with the cold code, so that dispatch's hot path stays as small as without it.
template <OpId Id>
__attribute__((noinline, cold)) opkit_status call_vendor_verified(const Runtime& rt, const Candidate& c, opkit_device dev, const OpArgs<Id>& args) {
    const loader::Vendor& v = rt.vendors[size_t(c.vendor)];
    const auto fn = reinterpret_cast<OpFn<Id>>(c.fn);
    const char* name = kOpNames[int32_t(Id)];
    if (!verify_this_call(*rt.verify)) return call_vendor(v, name, &OpTraits<Id>::call, fn, args);

    // Host twins first: the vendor may overwrite its inputs (in place, inout).
    char message[1024];
    std::snprintf(message, sizeof message, "%s", last_error());
    VerifiedCall vc(rt, Id, c.vendor, dev, args.stream);
    OpArgs<Id> host = args;
    OpTraits<Id>::for_each(host, [&](ParamKind kind, const char* param, auto& value) {
        using T = std::decay_t<decltype(value)>;
        if constexpr (std::is_same_v<T, const opkit_tensor*>) {
            value = vc.stage(kind, param, value);
        } else if constexpr (std::is_same_v<T, opkit_tensor*>) {
            value = vc.stage(kind, param, value);
        } else if constexpr (std::is_same_v<T, opkit_stream>) {
            value = nullptr;
        }
    });
    fail(OPKIT_OK, "%s", message);  // staging leaves the thread's message as it was

    const opkit_status s = call_vendor(v, name, &OpTraits<Id>::call, fn, args);
    if (s != OPKIT_OK || !vc.staged()) return s;
    std::snprintf(message, sizeof message, "%s", last_error());
    const opkit_status cpu = guard("OPKIT_VERIFY: the CPU default", [&] {
        return reinterpret_cast<cpu::KernelFn<Id>>(cpu::kDefaults[int32_t(Id)])(host);
    });
    vc.check(cpu);
    fail(OPKIT_OK, "%s", message);
    return s;
}

}  // namespace opkit
