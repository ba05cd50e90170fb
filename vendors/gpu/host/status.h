// Errors inside a GPU vendor: every failing path records one sentence in a thread-local
// buffer that libopkit reads through opkit_vendor_last_error() after a non-OK status.
#pragma once

#include "../../common/guarded_call.h"
#include "opkit_vendor.h"

#include <utility>

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

// Runs f, turning any exception into a status (vendors/common/guarded_call.h).
template <class F>
opkit_status guarded(const char* what, F&& f) noexcept {
    return opkit_vendor_common::guarded_call(what, clear_error, fail, std::forward<F>(f));
}

}  // namespace opkit_gpu

#define OPKIT_GPU_TRY(expr) OPKIT_VENDOR_RETURN_IF_ERROR(expr)
