// Errors inside the ascend vendor. Every failing path records one sentence in a
// thread-local buffer that libopkit reads through opkit_vendor_last_error() after a
// non-OK status; nothing may unwind across the C ABI, so every export runs in guarded().
#pragma once

#include "acl_decls.h"
#include "opkit_vendor.h"

#include <exception>
#include <new>
#include <string>

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

// Runs f, turning any exception into a status.
template <class F>
opkit_status guarded(const char* what, F&& f) noexcept {
    try {
        clear_error();
        return f();
    } catch (const std::bad_alloc&) {
        return fail(OPKIT_ERROR_OUT_OF_MEMORY, "%s: out of host memory", what);
    } catch (const std::exception& e) {
        return fail(OPKIT_ERROR_INTERNAL, "%s: %s", what, e.what());
    } catch (...) {
        return fail(OPKIT_ERROR_INTERNAL, "%s: unknown exception", what);
    }
}

}  // namespace opkit_ascend

#define OPKIT_ASCEND_TRY(expr)                     \
    do {                                           \
        const opkit_status opkit_s_ = (expr);      \
        if (opkit_s_ != OPKIT_OK) return opkit_s_; \
    } while (0)
