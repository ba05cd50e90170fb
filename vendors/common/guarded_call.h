// The rule every vendor export keeps: nothing unwinds across the C ABI. Each vendor's
// guarded() runs an export's body through guarded_call() with its own error record (a
// thread-local sentence that libopkit reads through opkit_vendor_last_error()), so an
// exception becomes a status and a message the same way in every vendor.
// Header-only: each vendor library compiles it in (included by a relative path, so that
// every tool that preprocesses a vendor's sources finds it); no vendor links another.
#pragma once

#include "opkit_vendor.h"

#include <exception>
#include <new>
#include <utility>

namespace opkit_vendor_common {

// A vendor's recorder: stores the message (printf format) and returns the status.
using FailFn = opkit_status (*)(opkit_status status, const char* fmt, ...);

// Clears the thread's error record, runs f and returns its status; an exception out of f
// becomes OUT_OF_MEMORY (std::bad_alloc) or INTERNAL, recorded as "what: reason".
template <class F>
opkit_status guarded_call(const char* what, void (*clear)(), FailFn fail, F&& f) noexcept {
    try {
        clear();
        return std::forward<F>(f)();
    } catch (const std::bad_alloc&) {
        return fail(OPKIT_ERROR_OUT_OF_MEMORY, "%s: out of host memory", what);
    } catch (const std::exception& e) {
        return fail(OPKIT_ERROR_INTERNAL, "%s: %s", what, e.what());
    } catch (...) {
        return fail(OPKIT_ERROR_INTERNAL, "%s: unknown exception", what);
    }
}

}  // namespace opkit_vendor_common

// Returns a non-OK status of expr from the calling function.
#define OPKIT_VENDOR_RETURN_IF_ERROR(expr)         \
    do {                                           \
        const opkit_status opkit_s_ = (expr);      \
        if (opkit_s_ != OPKIT_OK) return opkit_s_; \
    } while (0)
