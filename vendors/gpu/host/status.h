// Errors inside a GPU vendor: every failing path records one sentence in a thread-local
// buffer that libopkit reads through opkit_vendor_last_error() after a non-OK status.
#pragma once

#include "opkit_vendor.h"

#include <exception>
#include <new>

namespace opkit_gpu {

// Records the message (printf format) and returns status.
opkit_status fail(opkit_status status, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

void clear_error();
const char* last_error();

// While one lives, fail() records nothing on this thread: for clean-up whose errors
// cannot be reported (the call already has its status) and must not replace the
// message of the failure that is being reported.
class QuietErrors {
public:
    QuietErrors();
    ~QuietErrors();
    QuietErrors(const QuietErrors&) = delete;
    QuietErrors& operator=(const QuietErrors&) = delete;

private:
    bool was_;
};

// Runs f, turning any exception into a status: nothing may unwind across the C ABI.
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

}  // namespace opkit_gpu

#define OPKIT_GPU_TRY(expr)                         \
    do {                                            \
        const opkit_status opkit_s_ = (expr);       \
        if (opkit_s_ != OPKIT_OK) return opkit_s_;  \
    } while (0)
