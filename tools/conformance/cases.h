// The conformance catalogue: every op of the public API, forward and backward, every
// float dtype, odd shapes, padded/permuted views, misaligned byte offsets, in-place
// aliases, optional outputs present and absent. Each case owns its tensors and knows how
// to call its op on either copy (host = CPU defaults, device = the vendor under test).
#pragma once

#include "twin_names.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace conformance {

struct CaseOutput {
    TwinTensor* tensor;
    std::string name;
    double scale_floor;           // for results that cancel to ~0 (see compare.h)
    std::vector<uint8_t> vendor;  // the vendor's result, downloaded in the vendor phase
};

struct Case {
    std::string op;     // public op name, e.g. "rms_norm_forward"
    std::string label;  // dtype, shape and variant, for the failure report
    std::vector<std::unique_ptr<TwinTensor>> tensors;  // inputs and outputs
    std::vector<CaseOutput> outputs;
    // Calls the op on the host copies (false) or the device copies (true).
    std::function<opkit_status(bool device_side)> call;

    // Filled by the runner.
    opkit_status vendor_status = OPKIT_OK;
    std::string vendor_message;
};

struct CatalogueOptions {
    bool quick = false;                 // fewer shapes (a smoke run)
    std::vector<std::string> ops;       // empty = all
    std::vector<opkit_dtype> dtypes;    // float dtypes to cover
};

// Builds every case. Needs a runtime whose CPU ops are served by the defaults: saved
// statistics of the backward cases (rstd, mean, lse, softmax y) come from running the
// forward op on the host copies.
std::vector<std::unique_ptr<Case>> build_catalogue(const CatalogueOptions& options);

}  // namespace conformance
