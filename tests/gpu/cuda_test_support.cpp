#include "cuda_test_support.h"

#include <catch2/catch.hpp>

#include <cstring>

namespace cudatest {

std::string cuda_vendor_detail(int32_t* state) {
    *state = -1;
    for (int32_t i = 0; i < opkit_vendor_count(); ++i) {
        opkit_vendor_info info{};
        info.struct_size = sizeof info;
        if (opkit_vendor_get_info(i, &info) != OPKIT_OK || !info.name) continue;
        if (std::strcmp(info.name, kVendor) != 0) continue;
        *state = info.state;
        return info.detail ? info.detail : "";
    }
    return "";
}

namespace {
int g_skipped = 0;
std::string g_skip_reason;
}  // namespace

bool cuda_or_skip() {
    if (opkit_device_count(kDeviceType) > 0) return true;
    int32_t state;
    std::string why = cuda_vendor_detail(&state);
    if (state < 0) why = std::string("the ") + kVendor + " vendor was not found next to libopkit";
    g_skip_reason = why;
    ++g_skipped;
    WARN("SKIPPED: no " << kVendor << " device: " << why);
    return false;
}

void skip_case(const std::string& why) {
    g_skip_reason = why;
    ++g_skipped;
    WARN("SKIPPED: " << why);
}

int skipped_cases() { return g_skipped; }
const std::string& skip_reason() { return g_skip_reason; }

Tensor::Tensor(opkit_dtype dtype, std::vector<int64_t> shape, Layout layout, int32_t device_id)
    : TwinTensor(dtype, std::move(shape), std::move(layout)), where_{kDeviceType, device_id} {
    REQUIRE_OK(allocate(where_));
}

void Tensor::upload() { REQUIRE_OK(TwinTensor::upload(where_)); }

}  // namespace cudatest
