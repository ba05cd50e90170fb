// The op exports: opkit_vendor_<op> for every op of the spec, each with exactly the
// public op's parameters (written by OPKIT_SPEC_DEFINE_ENTRY from spec/ops.h), calling the
// op's run() (ops.h) inside the exception guard.
#include "errors.h"
#include "ops.h"
#include "view.h"

namespace opkit_ascend {
namespace {

// Calls with empty tensors never reach aclnn: when nothing is to be written the call is
// done; when an output has elements but an input has none (a matmul with K = 0, a
// cross-entropy over zero rows), the result is a fill the NPU ops here do not express,
// so the call is declined (the host fallback serves it when enabled).
template <class Args>
bool empty_call(const Args& a, opkit_status* status, const char* op) {
    bool output_elements = false, empty_input = false;
    opkit::OpTraits<opkit::OpIdOf<Args>::value>::for_each(a, [&](opkit::ParamKind k, const char*, auto v) {
        if constexpr (std::is_pointer_v<decltype(v)>) {
            if constexpr (std::is_same_v<std::remove_cv_t<std::remove_pointer_t<decltype(v)>>, opkit_tensor>) {
                if (!v || !opkit::is_tensor(k)) return;
                const int64_t n = numel(v);
                if (opkit::is_written(k) && n > 0) output_elements = true;
                if (!opkit::is_written(k) || k == opkit::ParamKind::inout) empty_input = empty_input || n == 0;
            }
        }
    });
    if (!output_elements) {
        *status = OPKIT_OK;
        return true;
    }
    if (empty_input) {
        *status = fail(OPKIT_ERROR_UNSUPPORTED,
                       "%s: an input has no elements while an output has some; the ascend vendor declines such calls",
                       op);
        return true;
    }
    return false;
}

template <class Args>
opkit_status guarded_run(const Args& a) {
    const char* op = opkit::OpTraits<opkit::OpIdOf<Args>::value>::kName;
    return guarded(op, [&]() -> opkit_status {
        opkit_status s;
        if (empty_call(a, &s, op)) return s;
        return run(a);
    });
}

}  // namespace
}  // namespace opkit_ascend

#define OPKIT_ASCEND_EXPORT_OP(name) \
    OPKIT_SPEC_DEFINE_ENTRY(OPKIT_VENDOR_EXPORT, opkit_vendor_, name, opkit_ascend::guarded_run)
OPKIT_FOR_EACH_OP(OPKIT_ASCEND_EXPORT_OP)
#undef OPKIT_ASCEND_EXPORT_OP
