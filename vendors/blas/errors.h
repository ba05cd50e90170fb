// Errors inside the blas vendor. A failing or declining path records one sentence in a
// thread-local buffer that libopkit reads through opkit_vendor_last_error() after a
// non-OK status (a decline's reason shows in opkit_last_error_message() and in the
// debug log); nothing may unwind across the C ABI, so every export runs in guarded().
#pragma once

#include "opkit_vendor.h"

#include <exception>
#include <new>

namespace opkit_blas {

// Records the message (printf format) and returns status.
opkit_status fail(opkit_status status, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
// A decline: OPKIT_ERROR_UNSUPPORTED with the reason, before any output is touched.
#define OPKIT_BLAS_DECLINE(...) ::opkit_blas::fail(OPKIT_ERROR_UNSUPPORTED, __VA_ARGS__)
void clear_error();
const char* last_error();

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

}  // namespace opkit_blas

#define OPKIT_BLAS_TRY(expr)                       \
    do {                                           \
        const opkit_status opkit_s_ = (expr);      \
        if (opkit_s_ != OPKIT_OK) return opkit_s_; \
    } while (0)
