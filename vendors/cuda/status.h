// Errors inside the vendor: every failing path records one sentence in a thread-local
// buffer that libopkit reads through opkit_vendor_last_error() after a non-OK status.
#pragma once

#include "opkit_vendor.h"

#include <cuda.h>

#include <exception>
#include <new>

namespace opkit_cuda {

// Records the message (printf format) and returns status.
opkit_status fail(opkit_status status, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

// A driver error: OPKIT_ERROR_OUT_OF_MEMORY for CUDA_ERROR_OUT_OF_MEMORY, otherwise
// OPKIT_ERROR_DEVICE; the message is "<what>: <CUDA error name> (<driver's text>)".
opkit_status cu_fail(CUresult r, const char* what);

void clear_error();
const char* last_error();

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

}  // namespace opkit_cuda

#define OPKIT_CUDA_TRY(expr)                        \
    do {                                            \
        const opkit_status opkit_s_ = (expr);       \
        if (opkit_s_ != OPKIT_OK) return opkit_s_;  \
    } while (0)

// Calls a driver function; on failure returns cu_fail naming the call.
#define OPKIT_CU_TRY(call)                                            \
    do {                                                              \
        const CUresult opkit_r_ = (call);                             \
        if (opkit_r_ != CUDA_SUCCESS) return ::opkit_cuda::cu_fail(opkit_r_, #call); \
    } while (0)
