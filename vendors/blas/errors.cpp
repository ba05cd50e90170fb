#include "errors.h"

#include <cstdarg>
#include <cstdio>

namespace opkit_blas {
namespace {
thread_local char t_message[512];
}

opkit_status fail(opkit_status status, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t_message, sizeof t_message, fmt, ap);
    va_end(ap);
    return status;
}

void clear_error() { t_message[0] = '\0'; }

const char* last_error() { return t_message; }

}  // namespace opkit_blas
