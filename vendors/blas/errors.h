// Errors inside the blas vendor. A failing or declining path records one sentence in a
// thread-local buffer that libopkit reads through opkit_vendor_last_error() after a
// non-OK status (a decline's reason shows in opkit_last_error_message() and in the
// debug log); nothing may unwind across the C ABI, so every export runs in guarded().
#pragma once

#include "../common/guarded_call.h"
#include "opkit_vendor.h"

#include <utility>

namespace opkit_blas {

// Records the message (printf format) and returns status.
opkit_status fail(opkit_status status, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
// A decline: OPKIT_ERROR_UNSUPPORTED with the reason, before any output is touched.
#define OPKIT_BLAS_DECLINE(...) ::opkit_blas::fail(OPKIT_ERROR_UNSUPPORTED, __VA_ARGS__)
void clear_error();
const char* last_error();

// Runs f, turning any exception into a status (vendors/common/guarded_call.h).
template <class F>
opkit_status guarded(const char* what, F&& f) noexcept {
    return opkit_vendor_common::guarded_call(what, clear_error, fail, std::forward<F>(f));
}

}  // namespace opkit_blas

#define OPKIT_BLAS_TRY(expr) OPKIT_VENDOR_RETURN_IF_ERROR(expr)
