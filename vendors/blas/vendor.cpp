// The vendor's identity and lifetime: opkit_vendor_init / _shutdown / _last_error.
//
// init is cheap, as the vendor ABI asks: find and dlopen a CBLAS, identify it and apply
// the thread policy (cblas_library.h), and beside it oneDNN for bf16 where installed
// (onednn_library.h: one 2x2x2 product checks it). No CBLAS is NO_DEVICE with the list of what was
// tried, never an error. The vendor serves OPKIT_DEVICE_CPU, one device, and only matmul:
// every other op keeps the built-in default.
#include "cblas_library.h"
#include "errors.h"
#include "vendor.h"

#include <string>

#ifndef OPKIT_BLAS_VENDOR_VERSION
#error "OPKIT_BLAS_VENDOR_VERSION must be the vendor's version (vendors/blas/CMakeLists.txt)"
#endif

extern "C" OPKIT_VENDOR_EXPORT const uint32_t opkit_vendor_abi_version = OPKIT_VENDOR_ABI_VERSION;

namespace {
using namespace opkit_blas;

// Set by init, cleared by shutdown; libopkit calls ops only between the two.
Cblas g_lib;
bool g_loaded = false;
OneDnn g_onednn;  // loaded only beside a CBLAS (bf16 falls back to it block by block)
bool g_onednn_loaded = false;
// Strings handed to libopkit in the desc: valid until opkit_vendor_shutdown.
std::string g_version;
std::string g_detail;

}  // namespace

const Cblas* opkit_blas::loaded_library() { return g_loaded ? &g_lib : nullptr; }
const OneDnn* opkit_blas::loaded_onednn() { return g_onednn_loaded ? &g_onednn : nullptr; }
const OneDnn* opkit_blas::onednn_for_f32() {
    const bool untuned = g_loaded && (!g_lib.warning.empty() || g_lib.family == Family::unknown);
    return g_onednn_loaded && g_onednn.sgemm && untuned ? &g_onednn : nullptr;
}

extern "C" OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_init(const opkit_vendor_host* host,
                                                              opkit_vendor_desc* desc) {
    return guarded("opkit_vendor_init", [&]() -> opkit_status {
        desc->name = "blas";
        desc->device_type = OPKIT_DEVICE_CPU;
        desc->priority = 50;
        g_version = OPKIT_BLAS_VENDOR_VERSION;
        g_detail.clear();
        if (g_loaded) unload_cblas(&g_lib);  // init again without shutdown: start over
        if (g_onednn_loaded) unload_onednn(&g_onednn);
        g_onednn_loaded = false;
        g_loaded = load_cblas(&g_lib, &g_detail);
        if (g_loaded) {
            const std::string threads = apply_thread_policy(g_lib);
            const int n = library_threads(g_lib);
            std::string no_onednn;
            g_onednn_loaded = load_onednn(&g_onednn, &no_onednn);
            g_version += std::string(" (") + g_lib.description + ")";
            const std::string onednn_serves = onednn_for_f32() ? "f32 (beta 0) and bf16" : "bf16";
            if (g_onednn_loaded) g_version += " (" + g_onednn.description + ", " + onednn_serves + ")";
            g_detail = "matmul through " + std::string(family_name(g_lib.family)) + "; " + threads;
            if (n > 0) g_detail += "; the library reports " + std::to_string(n) + " thread(s)";
            if (g_onednn_loaded)
                g_detail += "; " + onednn_serves + " through " + g_onednn.description +
                            (g_onednn.threads > 0 ? " on " + std::to_string(g_onednn.threads) + " OpenMP thread(s)"
                                                  : std::string(""));
            else
                g_detail += "; " + no_onednn;
            if (host && host->log) host->log(OPKIT_LOG_INFO, ("loaded " + g_lib.description).c_str());
            if (!g_lib.warning.empty()) {
                g_detail += "; " + g_lib.warning;
                if (host && host->log) host->log(OPKIT_LOG_WARN, g_lib.warning.c_str());
            }
        }
        desc->version = g_version.c_str();
        desc->device_count = g_loaded ? 1 : 0;
        desc->detail = g_detail.c_str();
        return OPKIT_OK;
    });
}

extern "C" OPKIT_VENDOR_EXPORT void opkit_vendor_shutdown(void) {
    guarded("opkit_vendor_shutdown", []() -> opkit_status {
        if (g_onednn_loaded) unload_onednn(&g_onednn);
        g_onednn_loaded = false;
        if (g_loaded) unload_cblas(&g_lib);
        g_loaded = false;
        return OPKIT_OK;
    });
}

extern "C" OPKIT_VENDOR_EXPORT const char* opkit_vendor_last_error(void) { return opkit_blas::last_error(); }
