// Thread-local error messages and the guard that keeps exceptions inside the library.
#pragma once

#include "opkit.h"
#include "thread_state.h"

#include <exception>
#include <new>

namespace opkit {

// Records a printf-style message for opkit_last_error_message() on this thread and
// returns `status`, so call sites read `return fail(OPKIT_ERROR_..., "...", ...)`.
opkit_status fail(opkit_status status, const char* fmt, ...)
    __attribute__((format(printf, 2, 3)));
// Prefixes the current thread's message ("rms_norm_forward: " + message).
void prefix_error(const char* prefix);
// This thread's message is ThreadState::message (thread_state.h). Inline: every op call
// clears it first (the entry points through the ThreadState they already hold).
inline void clear_error() { t_state.message[0] = '\0'; }
const char* last_error();

// Runs f() and turns any escaping exception into a status with a message. Every public
// entry point and every call into a vendor goes through this. Always inline: each
// instantiation has one caller (its lambda's type is unique), and an op entry point would
// otherwise pay a call and the lambda's captures on every call.
template <class F>
__attribute__((always_inline)) inline opkit_status guard(const char* where, F&& f) noexcept {
    try {
        return f();
    } catch (const std::bad_alloc&) {
        return fail(OPKIT_ERROR_OUT_OF_MEMORY, "%s: out of host memory", where);
    } catch (const std::exception& e) {
        return fail(OPKIT_ERROR_INTERNAL, "%s: internal error: %s", where, e.what());
    } catch (...) {
        return fail(OPKIT_ERROR_INTERNAL, "%s: internal error (unknown exception)", where);
    }
}

}  // namespace opkit

#define OPKIT_TRY(expr)                          \
    do {                                         \
        const opkit_status opkit_try_s_ = (expr); \
        if (opkit_try_s_ != OPKIT_OK) return opkit_try_s_; \
    } while (0)
