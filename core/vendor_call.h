// Calling into a vendor safely: exceptions are caught, unknown statuses are mapped to
// OPKIT_ERROR_VENDOR, and the vendor's own explanation becomes the thread's message.
#pragma once

#include "error.h"
#include "runtime.h"

#include <cstdio>

namespace opkit {

// Turns what a vendor returned into the status the caller sees; `what` names the call
// ("rms_norm_forward", "malloc").
opkit_status vendor_result(const loader::Vendor& v, const char* what, opkit_status s);
opkit_status vendor_threw(const loader::Vendor& v, const char* what, const char* why);

template <class Fn, class... Args>
opkit_status call_vendor(const loader::Vendor& v, const char* what, Fn fn, Args... args) noexcept {
    opkit_status s;
    try {
        s = fn(args...);
    } catch (const std::exception& e) {
        return vendor_threw(v, what, e.what());
    } catch (...) {
        return vendor_threw(v, what, "unknown exception");
    }
    return s == OPKIT_OK ? s : vendor_result(v, what, s);
}

}  // namespace opkit
