// Errors inside the ascend vendor. Every failing path records one sentence in a
// thread-local buffer that libopkit reads through opkit_vendor_last_error() after a
// non-OK status; nothing may unwind across the C ABI, so every export runs in guarded().
#pragma once

#include "acl_decls.h"
#include "../common/guarded_call.h"
#include "opkit_vendor.h"

#include <string>
#include <utility>

namespace opkit_ascend {

// Records the message (printf format) and returns status.
opkit_status fail(opkit_status status, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void clear_error();
const char* last_error();

// "161002 (ACLNN_ERR_PARAM_INVALID)": a status or aclError with its name where the audit
// lists one.
std::string code_name(int code);

// aclGetRecentErrMsg() copied at once: it returns and clears the thread's text, and its
// pointer is valid only until the next call (audit:171). "" when there is none.
std::string take_recent_message();

// The status and message for a failed runtime or aclnn call: OUT_OF_MEMORY for the
// allocation codes, DEVICE otherwise, with the runtime's own text appended.
opkit_status fail_acl(const char* what, int code);

// Runs f, turning any exception into a status (vendors/common/guarded_call.h).
template <class F>
opkit_status guarded(const char* what, F&& f) noexcept {
    return opkit_vendor_common::guarded_call(what, clear_error, fail, std::forward<F>(f));
}

}  // namespace opkit_ascend

#define OPKIT_ASCEND_TRY(expr) OPKIT_VENDOR_RETURN_IF_ERROR(expr)
