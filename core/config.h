// Configuration: opkit_init_options first, then the environment (read with
// secure_getenv, so a setuid process ignores it), then the defaults.
#pragma once

#include "cpu/parallel.h"
#include "opkit.h"

#include <string>
#include <vector>

namespace opkit {

struct Settings {
    std::vector<std::string> vendor_path;      // OPKIT_VENDOR_PATH, split on ':'
    std::vector<std::string> vendors;          // OPKIT_VENDORS, split on ','
    std::vector<std::string> vendors_disable;  // OPKIT_VENDORS_DISABLE
    bool host_fallback = false;                // OPKIT_HOST_FALLBACK
    int32_t log_level = OPKIT_LOG_WARN;        // OPKIT_LOG_LEVEL
    bool log_level_from_options = false;       // opkit_init_options::log_level was given
    int32_t num_threads = 0;                   // OPKIT_NUM_THREADS; 0 = hardware threads
    int32_t spin_us = cpu::kDefaultSpinMicroseconds;  // OPKIT_SPIN_US: CPU workers' spin
                                                      // before they sleep (0 = none)
    double verify = 0.0;                       // OPKIT_VERIFY: share of vendor-served calls
                                               // re-run on the CPU and compared (0 = off)
    bool validation_memo = true;               // OPKIT_VALIDATION_MEMO=0 turns it off
                                               // (validate_cache.h)
};

// Fails with INVALID_ARGUMENT (and a message) on a bad struct_size or value.
opkit_status read_settings(const opkit_init_options* options, Settings* out);

std::vector<std::string> split_list(const char* s, char sep);

}  // namespace opkit
