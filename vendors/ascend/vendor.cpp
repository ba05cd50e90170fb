// The vendor's identity and lifetime: opkit_vendor_init / _shutdown / _last_error.
//
// init is cheap, as the vendor ABI asks: find and load CANN, aclInit (100002 = another
// user, e.g. torch_npu, initialized it first: success, audit:170, 323-324) and count the
// devices. A machine without CANN, or whose runtime reports no device, is NO_DEVICE with
// the reason. aclnnInit waits for the first op; device contexts for the first call on
// each device.
//
// shutdown never calls aclFinalize (it would zero the reference count torch_npu shares,
// audit:83-91); where aclFinalizeReference exists (9.x) it releases the reference this
// init's aclInit took. The CANN libraries stay loaded, and so does this vendor (linked
// -z nodelete): aclnnInit may run only once per process (audit:217), which the vendor can
// only remember if its memory survives opkit_shutdown.
#include "cann_library.h"
#include "device.h"
#include "errors.h"

#include <cstdlib>
#include <string>

extern "C" OPKIT_VENDOR_EXPORT const uint32_t opkit_vendor_abi_version = OPKIT_VENDOR_ABI_VERSION;

namespace {
using namespace opkit_ascend;

// Strings handed to libopkit in the desc: valid until opkit_vendor_shutdown.
std::string g_version;
std::string g_detail;
bool g_acl_referenced = false;  // this init's aclInit succeeded (or found CANN initialized)
void (*g_log)(int32_t, const char*) = nullptr;

void log(int32_t level, const std::string& message) {
    if (g_log) g_log(level, message.c_str());
}

// Returns the device count; 0 with g_detail saying why.
int discover() {
    std::string why;
    if (!load_cann(&why)) {
        g_detail = why;
        return 0;
    }
    const Cann* c = cann();
    const acl::Error init = c->rt.aclInit(nullptr);
    if (init != acl::kSuccess && init != acl::kRepeatInitialize) {
        (void)fail_acl("aclInit(NULL)", init);
        g_detail = std::string(last_error()) + " (runtime " + c->runtime_path + ")";
        return 0;
    }
    if (init == acl::kRepeatInitialize) (void)take_recent_message();  // not an error: nothing to report
    g_acl_referenced = true;
    uint32_t count = 0;
    const acl::Error e = c->rt.aclrtGetDeviceCount(&count);
    if (e != acl::kSuccess) {
        (void)fail_acl("aclrtGetDeviceCount", e);
        g_detail = std::string(last_error()) + " (runtime " + c->runtime_path + ")";
        return 0;
    }
    if (count == 0) {
        g_detail = "aclrtGetDeviceCount = 0: the CANN runtime " + c->runtime_path +
                   " sees no NPU (is the Ascend driver installed and the device visible to this process?)";
        return 0;
    }
    return int(count);
}

std::string describe(int count) {
    const Cann* c = cann();
    std::string v = OPKIT_ASCEND_VENDOR_VERSION;
    if (!c) return v;
    v += " (CANN runtime " + c->runtime_path + ", ops from " + c->layout + ": " + std::to_string(c->ops_found) +
         " of " + std::to_string(acl::kOpCount) + " aclnn ops";
    if (count > 0 && c->rt.aclrtGetSocName)
        if (const char* soc = c->rt.aclrtGetSocName()) v += std::string(", ") + soc;
    return v + ")";
}

}  // namespace

extern "C" OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_init(const opkit_vendor_host* host, opkit_vendor_desc* desc) {
    return guarded("opkit_vendor_init", [&]() -> opkit_status {
        g_log = host && host->struct_size >= sizeof(opkit_vendor_host) ? host->log : nullptr;
        desc->name = "ascend";
        desc->device_type = OPKIT_DEVICE_ASCEND;
        desc->priority = 100;
        g_detail.clear();
        g_acl_referenced = false;
        const int count = discover();
        g_version = describe(count);
        devices_init(count);
        if (count > 0) {
            const Cann* c = cann();
            std::string libs;
            for (const std::string& p : c->op_paths) libs += (libs.empty() ? "" : ", ") + p;
            log(OPKIT_LOG_INFO, "CANN: runtime " + c->runtime_path + ", tensors " + c->base_path + ", ops " + libs);
            if (!c->missing_ops.empty())
                log(OPKIT_LOG_INFO, "aclnn ops no loaded library exports (the opkit ops that need them decline): " +
                                        c->missing_ops);
            if (!secure_getenv("ASCEND_OPP_PATH"))
                log(OPKIT_LOG_WARN,
                    "ASCEND_OPP_PATH is not set: aclnn finds no kernels without it (561107) and every op will "
                    "decline; source CANN's set_env.sh");
        }
        desc->version = g_version.c_str();
        desc->device_count = count;
        desc->detail = g_detail.c_str();
        return OPKIT_OK;
    });
}

extern "C" OPKIT_VENDOR_EXPORT void opkit_vendor_shutdown(void) {
    guarded("opkit_vendor_shutdown", []() -> opkit_status {
        devices_shutdown();
        const Cann* c = cann();
        if (c && g_acl_referenced && c->rt.aclFinalizeReference) {
            uint64_t remaining = 0;
            if (c->rt.aclFinalizeReference(&remaining) != acl::kSuccess) (void)take_recent_message();
        }
        g_acl_referenced = false;
        forget_cann();
        return OPKIT_OK;
    });
}

extern "C" OPKIT_VENDOR_EXPORT const char* opkit_vendor_last_error(void) { return last_error(); }
