// Public introspection: version, vendors, ops and who serves them, device counts.
#include "composite.h"
#include "error.h"
#include "runtime.h"

#include <cstddef>
#include <cstring>

using namespace opkit;

extern "C" OPKIT_API uint32_t opkit_version(void) { return OPKIT_VERSION_NUMBER; }

// Functions that return a count have no status to report a failure with: any failure
// (initialization failed, an exception) is 0, with the thread's message set.
template <class F>
int32_t count_or_zero(const char* where, F&& f) noexcept {
    int32_t n = 0;
    const opkit_status s = guard(where, [&]() -> opkit_status {
        n = f();
        return OPKIT_OK;
    });
    return s == OPKIT_OK ? n : 0;
}

extern "C" OPKIT_API int32_t opkit_vendor_count(void) {
    return count_or_zero("opkit_vendor_count", [] {
        Runtime* rt = runtime();
        return rt ? int32_t(rt->vendors.size()) : 0;
    });
}

extern "C" OPKIT_API opkit_status opkit_vendor_get_info(int32_t index, opkit_vendor_info* info) {
    return guard("opkit_vendor_get_info", [&]() -> opkit_status {
        Runtime* rt = runtime();
        if (!rt) return OPKIT_ERROR_INTERNAL;
        if (!info)
            return fail(OPKIT_ERROR_INVALID_ARGUMENT, "opkit_vendor_get_info: info is NULL");
        constexpr size_t v1_size = offsetof(opkit_vendor_info, op_count) + sizeof(int32_t);
        if (info->struct_size < v1_size)
            return fail(OPKIT_ERROR_INVALID_ARGUMENT,
                        "opkit_vendor_get_info: info->struct_size is %u, expected at least %zu "
                        "(set it to sizeof(opkit_vendor_info))",
                        unsigned(info->struct_size), v1_size);
        if (index < 0 || index >= int32_t(rt->vendors.size()))
            return fail(OPKIT_ERROR_INVALID_ARGUMENT,
                        "opkit_vendor_get_info: index %d is out of range [0, %d)", int(index),
                        int(rt->vendors.size()));
        const loader::Vendor& v = rt->vendors[size_t(index)];
        info->name = v.name.c_str();
        info->path = v.path.c_str();
        info->version = v.version.c_str();
        info->device_type = v.device_type;
        info->device_count = v.device_count;
        info->state = v.state;
        info->detail = v.detail.c_str();
        info->op_count = v.op_count;
        return OPKIT_OK;
    });
}

extern "C" OPKIT_API int32_t opkit_op_count(void) { return kOpCount; }

extern "C" OPKIT_API const char* opkit_op_name(int32_t index) {
    return index >= 0 && index < kOpCount ? kOpNames[index] : nullptr;
}

extern "C" OPKIT_API const char* opkit_op_schema(int32_t index) {
    return index >= 0 && index < kOpCount ? kOpSchemas[index] : nullptr;
}

extern "C" OPKIT_API opkit_status opkit_op_resolve(const char* op_name, int32_t device_type,
                                                   const char** vendor_name) {
    return guard("opkit_op_resolve", [&]() -> opkit_status {
        Runtime* rt = runtime();
        if (!rt) return OPKIT_ERROR_INTERNAL;
        if (!op_name || !vendor_name)
            return fail(OPKIT_ERROR_INVALID_ARGUMENT, "opkit_op_resolve: %s is NULL",
                        op_name ? "vendor_name" : "op_name");
        int32_t op = -1;
        for (int32_t i = 0; i < kOpCount; ++i)
            if (std::strcmp(kOpNames[i], op_name) == 0) op = i;
        if (op < 0)
            return fail(OPKIT_ERROR_NOT_FOUND, "opkit_op_resolve: unknown op \"%s\"", op_name);
        const DeviceEntry* d = rt->device(canonical_device_type(device_type));
        // An op none serves but with a composite default (composite.h): whoever serves its
        // first component serves it.
        if (d && d->ops[op].count == 0 && kCompositeFirst[op] >= 0 && d->ops[kCompositeFirst[op]].count > 0)
            op = kCompositeFirst[op];
        if (d && d->ops[op].count > 0) {
            const Candidate& c = d->ops[op].items[0];
            *vendor_name = c.vendor < 0 ? "default" : rt->vendors[size_t(c.vendor)].name.c_str();
            return OPKIT_OK;
        }
        if (d && d->memory_vendor >= 0 && rt->settings.host_fallback) {
            *vendor_name = "host-fallback";
            return OPKIT_OK;
        }
        return fail(OPKIT_ERROR_UNSUPPORTED, "opkit_op_resolve: no vendor serves %s on %s%s",
                    op_name, device_type_name(device_type),
                    d ? " (host fallback is off)" : " (no ready vendor for that device type)");
    });
}

extern "C" OPKIT_API int32_t opkit_device_count(int32_t device_type) {
    return count_or_zero("opkit_device_count", [&] {
        Runtime* rt = runtime();
        if (!rt) return 0;
        const DeviceEntry* d = rt->device(canonical_device_type(device_type));
        return d ? d->device_count : 0;
    });
}
