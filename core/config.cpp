#include "config.h"

#include "error.h"
#include "log.h"

#include <cstddef>
#include <cstdlib>

namespace opkit {
namespace {

const char* env(const char* name) {
    const char* v = secure_getenv(name);
    return (v && *v) ? v : nullptr;
}

// An integer from the environment, or `fallback` when unset; a malformed value is
// logged and ignored rather than failing init.
int32_t env_int(const char* name, int32_t fallback) {
    const char* v = env(name);
    if (!v) return fallback;
    char* end = nullptr;
    const long x = strtol(v, &end, 10);
    if (*end != '\0' || x < 0 || x > 1 << 20) {
        logf(OPKIT_LOG_WARN, "ignoring %s=\"%s\": not a non-negative integer", name, v);
        return fallback;
    }
    return int32_t(x);
}

// OPKIT_VERIFY: "1" (every call), a share in (0, 1] such as "0.01", or "0" (off); a
// malformed value is logged and leaves verification off.
double env_share(const char* name) {
    const char* v = env(name);
    if (!v) return 0.0;
    char* end = nullptr;
    const double x = strtod(v, &end);
    if (end == v || *end != '\0' || !(x >= 0.0 && x <= 1.0)) {
        logf(OPKIT_LOG_WARN, "ignoring %s=\"%s\": expected 1 (every call), a share in (0, 1] such "
             "as 0.01, or 0", name, v);
        return 0.0;
    }
    return x;
}

}  // namespace

std::vector<std::string> split_list(const char* s, char sep) {
    std::vector<std::string> out;
    if (!s) return out;
    std::string cur;
    for (const char* p = s;; ++p) {
        if (*p == sep || *p == '\0') {
            // trim blanks, drop empty entries
            size_t b = cur.find_first_not_of(" \t"), e = cur.find_last_not_of(" \t");
            if (b != std::string::npos) out.push_back(cur.substr(b, e - b + 1));
            cur.clear();
            if (*p == '\0') break;
        } else {
            cur.push_back(*p);
        }
    }
    return out;
}

opkit_status read_settings(const opkit_init_options* o, Settings* out) {
    constexpr size_t v1_size = offsetof(opkit_init_options, log_level) + sizeof(int32_t);
    if (o && o->struct_size < v1_size)
        return fail(OPKIT_ERROR_INVALID_ARGUMENT,
                    "opkit_init: options->struct_size is %u, expected at least %zu "
                    "(set it to sizeof(opkit_init_options))",
                    unsigned(o->struct_size), v1_size);

    Settings s;
    s.vendor_path = split_list(o && o->vendor_path ? o->vendor_path : env("OPKIT_VENDOR_PATH"), ':');
    s.vendors = split_list(o && o->vendors ? o->vendors : env("OPKIT_VENDORS"), ',');
    s.vendors_disable =
        split_list(o && o->vendors_disable ? o->vendors_disable : env("OPKIT_VENDORS_DISABLE"), ',');

    if (o && o->host_fallback != -1) {
        if (o->host_fallback != 0 && o->host_fallback != 1)
            return fail(OPKIT_ERROR_INVALID_ARGUMENT,
                        "opkit_init: host_fallback is %d; expected 0, 1 or -1 (environment)",
                        int(o->host_fallback));
        s.host_fallback = o->host_fallback == 1;
    } else {
        s.host_fallback = env_int("OPKIT_HOST_FALLBACK", 0) != 0;
    }

    if (o && o->log_level != -1) {
        if (o->log_level < OPKIT_LOG_TRACE || o->log_level > OPKIT_LOG_OFF)
            return fail(OPKIT_ERROR_INVALID_ARGUMENT,
                        "opkit_init: log_level is %d; expected OPKIT_LOG_TRACE (0) .. "
                        "OPKIT_LOG_OFF (5) or -1 (environment)",
                        int(o->log_level));
        s.log_level = o->log_level;
        s.log_level_from_options = true;
    } else if (const char* lv = env("OPKIT_LOG_LEVEL")) {
        const int32_t parsed = log_level_from_string(lv);
        if (parsed < 0)
            logf(OPKIT_LOG_WARN,
                 "ignoring OPKIT_LOG_LEVEL=\"%s\": expected trace, debug, info, warn, error "
                 "or off", lv);
        else
            s.log_level = parsed;
    }
    s.num_threads = env_int("OPKIT_NUM_THREADS", 0);
    s.spin_us = env_int("OPKIT_SPIN_US", cpu::kDefaultSpinMicroseconds);
    s.verify = env_share("OPKIT_VERIFY");
    s.validation_memo = env_int("OPKIT_VALIDATION_MEMO", 1) != 0;
    *out = std::move(s);
    return OPKIT_OK;
}

}  // namespace opkit
