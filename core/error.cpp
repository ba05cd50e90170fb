#include "error.h"

#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace opkit {
// Default (dynamic) TLS model on purpose: initial-exec would be a little faster but
// takes static TLS, which processes that dlopen libopkit late (Python's ctypes, Julia,
// Rust's libloading) may have used up ("cannot allocate memory in static TLS block").
// And the traditional dialect (__tls_get_addr, an ordinary call), not x86-64's TLS
// descriptors (-mtls-dialect=gnu2, which this build used until 2026-11-30): a descriptor
// call is assumed to preserve every register, and glibc before 2.40 (glibc bug 31372;
// Debian 12 has 2.36) clobbered the vector registers on the path that allocates a thread's
// block of a dlopen()ed library. Every thread's first op call then lost the float
// arguments live across its one thread-local lookup (opkit_axpy's alpha read as 0, and it
// returned OPKIT_OK having added nothing): tests/linkage/first_call_after_dlopen.c. The
// cost: 2 instructions an axpy call, 19 an rms_norm call (callgrind, docs/PERFORMANCE.md,
// "Dispatch overhead"). The message lives in ThreadState (thread_state.h).

opkit_status fail(opkit_status status, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t_state.message, sizeof t_state.message, fmt, ap);
    va_end(ap);
    return status;
}

void prefix_error(const char* prefix) {
    char* message = t_state.message;
    char tmp[kErrorMessageSize];
    snprintf(tmp, sizeof tmp, "%s%s", prefix, message);
    memcpy(message, tmp, sizeof tmp);
}

const char* last_error() { return t_state.message; }

}  // namespace opkit

extern "C" OPKIT_API const char* opkit_last_error_message(void) { return opkit::last_error(); }

extern "C" OPKIT_API const char* opkit_status_string(opkit_status status) {
    switch (status) {
    case OPKIT_OK: return "OPKIT_OK";
    case OPKIT_ERROR_INVALID_ARGUMENT: return "OPKIT_ERROR_INVALID_ARGUMENT";
    case OPKIT_ERROR_UNSUPPORTED: return "OPKIT_ERROR_UNSUPPORTED";
    case OPKIT_ERROR_OUT_OF_MEMORY: return "OPKIT_ERROR_OUT_OF_MEMORY";
    case OPKIT_ERROR_DEVICE: return "OPKIT_ERROR_DEVICE";
    case OPKIT_ERROR_VENDOR: return "OPKIT_ERROR_VENDOR";
    case OPKIT_ERROR_NOT_FOUND: return "OPKIT_ERROR_NOT_FOUND";
    case OPKIT_ERROR_INTERNAL: return "OPKIT_ERROR_INTERNAL";
    default: return "OPKIT_ERROR_UNKNOWN_STATUS";
    }
}
