#include "status.h"

#include <cstdarg>
#include <cstdio>

namespace opkit_gpu {
namespace {
thread_local char t_message[1024];
thread_local bool t_quiet = false;
}  // namespace

opkit_status fail(opkit_status status, const char* fmt, ...) {
    if (t_quiet) return status;
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(t_message, sizeof t_message, fmt, ap);
    va_end(ap);
    return status;
}

QuietErrors::QuietErrors() : was_(t_quiet) { t_quiet = true; }
QuietErrors::~QuietErrors() { t_quiet = was_; }

void clear_error() { t_message[0] = '\0'; }
const char* last_error() { return t_message; }

}  // namespace opkit_gpu
