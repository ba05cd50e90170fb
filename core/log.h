// Logging: spdlog, compiled in header-only and hidden, behind a tiny interface so that
// the rest of the library never includes spdlog. Messages go to the application's
// callback (opkit_set_log_callback) or to stderr.
#pragma once

#include "opkit.h"

#include <string>

namespace opkit {

void log_message(int32_t level, const std::string& message);
bool log_enabled(int32_t level);
void set_log_level(int32_t level);
// True once the application called opkit_set_log_level (initialization then keeps it).
bool log_level_set_by_application();
int32_t log_level_from_string(const char* s);  // "warn" -> OPKIT_LOG_WARN; -1 if unknown

// printf-style convenience; formats only when the level is enabled.
void logf(int32_t level, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

}  // namespace opkit
