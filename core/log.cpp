#include "log.h"

#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <strings.h>
#include <mutex>

namespace opkit {
namespace {

spdlog::level::level_enum to_spdlog(int32_t level) {
    switch (level) {
    case OPKIT_LOG_TRACE: return spdlog::level::trace;
    case OPKIT_LOG_DEBUG: return spdlog::level::debug;
    case OPKIT_LOG_INFO: return spdlog::level::info;
    case OPKIT_LOG_WARN: return spdlog::level::warn;
    case OPKIT_LOG_ERROR: return spdlog::level::err;
    default: return spdlog::level::off;
    }
}

int32_t from_spdlog(spdlog::level::level_enum level) {
    switch (level) {
    case spdlog::level::trace: return OPKIT_LOG_TRACE;
    case spdlog::level::debug: return OPKIT_LOG_DEBUG;
    case spdlog::level::info: return OPKIT_LOG_INFO;
    case spdlog::level::warn: return OPKIT_LOG_WARN;
    default: return OPKIT_LOG_ERROR;
    }
}

// Sends each record to the application's callback when one is set, else to stderr.
class CallbackSink final : public spdlog::sinks::base_sink<std::mutex> {
public:
    void set_callback(opkit_log_fn fn, void* user) {
        std::lock_guard<std::mutex> lock(mutex_);
        fn_ = fn;
        user_ = user;
    }

protected:
    void sink_it_(const spdlog::details::log_msg& msg) override {
        std::string text(msg.payload.data(), msg.payload.size());
        if (fn_) {
            fn_(from_spdlog(msg.level), text.c_str(), user_);
        } else {
            std::fprintf(stderr, "opkit: %s: %s\n",
                         spdlog::level::to_string_view(msg.level).data(), text.c_str());
        }
    }
    void flush_() override { std::fflush(stderr); }

private:
    opkit_log_fn fn_ = nullptr;
    void* user_ = nullptr;
};

struct Logging {
    std::shared_ptr<CallbackSink> sink = std::make_shared<CallbackSink>();
    spdlog::logger logger{"opkit", sink};
    std::atomic<int32_t> level{OPKIT_LOG_WARN};
    std::atomic<bool> level_from_application{false};
    Logging() {
        logger.set_level(spdlog::level::trace);  // filtering happens on `level`
        logger.set_error_handler([](const std::string&) {});  // never throw from logging
    }
};

Logging& logging() {
    static Logging* l = new Logging();  // leaked: usable from any destructor
    return *l;
}

}  // namespace

bool log_enabled(int32_t level) {
    return level >= logging().level.load(std::memory_order_relaxed) && level < OPKIT_LOG_OFF;
}

void log_message(int32_t level, const std::string& message) {
    if (!log_enabled(level)) return;
    try {
        logging().logger.log(to_spdlog(level), "{}", message);
    } catch (...) {
        // A throwing user callback or a failing sink must not take the caller down.
    }
}

void logf(int32_t level, const char* fmt, ...) {
    if (!log_enabled(level)) return;
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    log_message(level, buf);
}

void set_log_level(int32_t level) {
    if (level < OPKIT_LOG_TRACE) level = OPKIT_LOG_TRACE;
    if (level > OPKIT_LOG_OFF) level = OPKIT_LOG_OFF;
    logging().level.store(level, std::memory_order_relaxed);
}

bool log_level_set_by_application() { return logging().level_from_application.load(); }

int32_t log_level_from_string(const char* s) {
    if (!s) return -1;
    static const char* const names[] = {"trace", "debug", "info", "warn", "error", "off"};
    for (int32_t i = 0; i < 6; ++i)
        if (strcasecmp(s, names[i]) == 0) return i;
    if (strcasecmp(s, "warning") == 0) return OPKIT_LOG_WARN;
    if (s[0] >= '0' && s[0] <= '5' && s[1] == '\0') return s[0] - '0';
    return -1;
}

}  // namespace opkit

extern "C" OPKIT_API void opkit_set_log_level(int32_t level) {
    try {
        opkit::set_log_level(level);
        opkit::logging().level_from_application.store(true);
    } catch (...) {  // logging() allocates on first use
    }
}

extern "C" OPKIT_API void opkit_set_log_callback(opkit_log_fn fn, void* user_data) {
    try {
        opkit::logging().sink->set_callback(fn, user_data);
    } catch (...) {
    }
}
