// Composite defaults: an op that is, by definition, a sequence of other ops' calls
// (rope_qk_forward is rope_forward on q, then on k) can be served on a device whose
// candidates do not serve it — a vendor built before the op existed exports no symbol for
// it, or one declines the call — by dispatching those component calls there, each through
// its own op's candidates, so that such a vendor still runs it on its device. dispatch_rest
// (dispatch.h) tries this after the op's own candidates and before the host fallback or
// the "nobody served" error; the hot path (one candidate that serves the call) never
// sees it.
//
// Composite<Id>::defined says whether an op has one; its run() (composite.cpp) dispatches
// the components in order and sets *composed once the first component was served. When
// no candidate serves the first component, nothing was written and *composed stays false:
// dispatch goes on to the op's own host fallback or error. A later component that nobody
// serves gets its own op's host fallback or error (the earlier outputs are written by
// then). The call's record (opkit_last_dispatch) keeps the composite op's name; `served`
// is whoever served the last component, `declined` counts the declines of the op's own
// candidates and of the components' candidates.
//
// To give an op a composite default: OPKIT_COMPOSITE(op, first component op) below, and
// its run() in composite.cpp (compose(...) with the components' argument structs).
#pragma once

#include "op_spec.hpp"

#include <string>

namespace opkit {

struct Runtime;
struct DispatchRecord;

template <OpId Id>
struct Composite {
    static constexpr bool defined = false;
};

#define OPKIT_COMPOSITE(op, first_component)                                                                \
    template <>                                                                                             \
    struct Composite<OpId::op> {                                                                            \
        static constexpr bool defined = true;                                                               \
        static constexpr OpId first = OpId::first_component; /* opkit_op_resolve names its server */       \
        static opkit_status run(const Runtime& rt, DispatchRecord& rec, opkit_device dev,                   \
                                const args::op& args, std::string& declined, bool* composed);               \
    };
OPKIT_COMPOSITE(rope_qk_forward, rope_forward)
OPKIT_COMPOSITE(rope_qk_backward, rope_backward)
#undef OPKIT_COMPOSITE

// The first component of each op with a composite default, indexed by OpId; -1 for none.
template <OpId Id>
constexpr int32_t composite_first() {
    if constexpr (Composite<Id>::defined) return int32_t(Composite<Id>::first);
    else return -1;
}
inline constexpr int32_t kCompositeFirst[kOpCount] = {
#define OPKIT_COMPOSITE_FIRST_(name) composite_first<OpId::name>(),
    OPKIT_FOR_EACH_OP(OPKIT_COMPOSITE_FIRST_)
#undef OPKIT_COMPOSITE_FIRST_
};

}  // namespace opkit
