// The composite defaults (composite.h): each op's run() names its component calls.
#include "dispatch.h"

namespace opkit {
namespace {

// Dispatches the component calls in order, on the composite call's device; stops at the
// first that fails. *composed is set once the first one was served (composite.h).
template <OpId Id, class First, class... Rest>
opkit_status compose(const Runtime& rt, DispatchRecord& rec, opkit_device dev, std::string& declined,
                     bool* composed, const First& first, const Rest&... rest) {
    opkit_status s = dispatch_component<OpIdOf<First>::value>(rt, rec, Id, dev, first, true, declined);
    if (s == OPKIT_ERROR_UNSUPPORTED) return s;
    *composed = true;
    ((s = s == OPKIT_OK ? dispatch_component<OpIdOf<Rest>::value>(rt, rec, Id, dev, rest, false, declined) : s),
     ...);
    return s;
}

}  // namespace

// rope_forward of q into q_out, then of k into k_out (validation allows q_out to alias
// only q, and k_out only k, so the first call cannot change the second's inputs).
opkit_status Composite<OpId::rope_qk_forward>::run(const Runtime& rt, DispatchRecord& rec, opkit_device dev,
                                                   const args::rope_qk_forward& a, std::string& declined,
                                                   bool* composed) {
    return compose<OpId::rope_qk_forward>(rt, rec, dev, declined, composed,
                                          args::rope_forward{a.q, a.cos, a.sin, a.q_out, a.stream},
                                          args::rope_forward{a.k, a.cos, a.sin, a.k_out, a.stream});
}

opkit_status Composite<OpId::rope_qk_backward>::run(const Runtime& rt, DispatchRecord& rec, opkit_device dev,
                                                    const args::rope_qk_backward& a, std::string& declined,
                                                    bool* composed) {
    return compose<OpId::rope_qk_backward>(rt, rec, dev, declined, composed,
                                           args::rope_backward{a.dq_out, a.cos, a.sin, a.dq, a.stream},
                                           args::rope_backward{a.dk_out, a.cos, a.sin, a.dk, a.stream});
}

}  // namespace opkit
