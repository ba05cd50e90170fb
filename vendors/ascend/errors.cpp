#include "errors.h"

#include "cann_library.h"

#include <cstdarg>
#include <cstdio>

namespace opkit_ascend {
namespace {
thread_local char t_message[2048];
}  // namespace

opkit_status fail(opkit_status status, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(t_message, sizeof t_message, fmt, ap);
    va_end(ap);
    return status;
}

void clear_error() { t_message[0] = '\0'; }
const char* last_error() { return t_message; }

std::string code_name(int code) {
    const char* name = nullptr;
    switch (code) {
        // aclError (audit:129-132)
        case acl::kInvalidParam: name = "ACL_ERROR_INVALID_PARAM"; break;
        case acl::kUninitialize: name = "ACL_ERROR_UNINITIALIZE"; break;
        case acl::kRepeatInitialize: name = "ACL_ERROR_REPEAT_INITIALIZE"; break;
        case acl::kBadAlloc: name = "ACL_ERROR_BAD_ALLOC"; break;
        case 200001: name = "ACL_ERROR_API_NOT_SUPPORT"; break;
        case 200002: name = "ACL_ERROR_INVALID_DEVICE"; break;
        case 500000: name = "ACL_ERROR_INTERNAL_ERROR"; break;
        case 500001: name = "ACL_ERROR_FAILURE"; break;
        case 500003: name = "ACL_ERROR_RT_FAILURE"; break;
        case 500004: name = "ACL_ERROR_DRV_FAILURE"; break;
        case 107000: name = "ACL_ERROR_RT_PARAM_INVALID"; break;
        case 107001: name = "ACL_ERROR_RT_INVALID_DEVICEID"; break;
        case acl::kRtContextNull: name = "ACL_ERROR_RT_CONTEXT_NULL"; break;
        case 107003: name = "ACL_ERROR_RT_STREAM_CONTEXT"; break;
        case acl::kRtMemoryAllocation: name = "ACL_ERROR_RT_MEMORY_ALLOCATION"; break;
        case acl::kRtNoDevice: name = "ACL_ERROR_RT_NO_DEVICE"; break;
        // aclnnStatus (audit:215)
        case acl::kNnParamNullptr: name = "ACLNN_ERR_PARAM_NULLPTR"; break;
        case acl::kNnParamInvalid: name = "ACLNN_ERR_PARAM_INVALID"; break;
        case acl::kNnRuntimeError: name = "ACLNN_ERR_RUNTIME_ERROR"; break;
        case 561000: name = "ACLNN_ERR_INNER"; break;
        case 561001: name = "ACLNN_ERR_INNER_INFERSHAPE_ERROR"; break;
        case 561002: name = "ACLNN_ERR_INNER_TILING_ERROR"; break;
        case 561003: name = "ACLNN_ERR_INNER_FIND_KERNEL_ERROR"; break;
        case 561101: name = "ACLNN_ERR_INNER_CREATE_EXECUTOR"; break;
        case 561103: name = "ACLNN_ERR_INNER_NULLPTR"; break;
        case 561107: name = "ACLNN_ERR_INNER_OPP_PATH_NOT_FOUND"; break;
        case 561112: name = "ACLNN_ERR_INNER_OPP_KERNEL_PKG_NOT_FOUND"; break;
        default: break;
    }
    return std::to_string(code) + (name ? std::string(" (") + name + ")" : std::string());
}

std::string take_recent_message() {
    const Cann* c = cann();
    if (!c || !c->rt.aclGetRecentErrMsg) return "";
    const char* m = c->rt.aclGetRecentErrMsg();
    return m ? std::string(m) : std::string();
}

opkit_status fail_acl(const char* what, int code) {
    const std::string text = take_recent_message();
    const opkit_status s =
        code == acl::kBadAlloc || code == acl::kRtMemoryAllocation ? OPKIT_ERROR_OUT_OF_MEMORY : OPKIT_ERROR_DEVICE;
    return fail(s, "%s failed: %s%s%s", what, code_name(code).c_str(), text.empty() ? "" : ": ", text.c_str());
}

}  // namespace opkit_ascend
