#include "vendor_call.h"

#include "log.h"

namespace opkit {

opkit_status vendor_result(const loader::Vendor& v, const char* what, opkit_status s) {
    const char* detail = nullptr;
    try {
        detail = v.last_error ? v.last_error() : nullptr;
    } catch (...) {
        detail = nullptr;
    }
    if (s < OPKIT_OK || s > OPKIT_ERROR_INTERNAL)
        return fail(OPKIT_ERROR_VENDOR, "%s: vendor %s returned unknown status %d%s%s", what,
                    v.name.c_str(), int(s), detail ? ": " : "", detail ? detail : "");
    return fail(s, "%s: vendor %s: %s", what, v.name.c_str(),
                detail && *detail ? detail : opkit_status_string(s));
}

opkit_status vendor_threw(const loader::Vendor& v, const char* what, const char* why) {
    logf(OPKIT_LOG_ERROR, "vendor %s threw from %s: %s", v.name.c_str(), what, why);
    return fail(OPKIT_ERROR_VENDOR, "%s: vendor %s threw an exception across the vendor ABI: %s",
                what, v.name.c_str(), why);
}

}  // namespace opkit
