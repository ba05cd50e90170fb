#include "status.h"

#include "driver.h"

#include <cstdarg>
#include <cstdio>

namespace opkit_cuda {
namespace {
thread_local char t_message[1024];
}

opkit_status fail(opkit_status status, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(t_message, sizeof t_message, fmt, ap);
    va_end(ap);
    return status;
}

opkit_status cu_fail(CUresult r, const char* what) {
    // "drv().cuMemAlloc_v2(&p, n)" reads better as "cuMemAlloc_v2(&p, n)".
    const char* shown = what;
    if (const char* dot = __builtin_strstr(what, ")."); dot && __builtin_strncmp(what, "drv()", 5) == 0)
        shown = dot + 2;
    const std::string text = cu_error_text(r);
    return fail(r == CUDA_ERROR_OUT_OF_MEMORY ? OPKIT_ERROR_OUT_OF_MEMORY : OPKIT_ERROR_DEVICE,
                "%s failed: %s", shown, text.c_str());
}

void clear_error() { t_message[0] = '\0'; }
const char* last_error() { return t_message; }

}  // namespace opkit_cuda
