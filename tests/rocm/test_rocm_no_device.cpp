// The rocm vendor where no AMD GPU can be used, through the public API:
//   [real]         against whatever HIP runtime this machine has (CI: Debian's real
//                  libamdhip64.so.5, which finds no GPU): NO_DEVICE with the runtime's
//                  own reason, and every device call refused cleanly;
//   [unsupported]  against tests/rocm's fake runtime reporting a gfx1100: NO_DEVICE
//                  naming the ISA and the build's targets;
//   [mixed]        the fake reporting a supported and an unsupported GPU: READY with
//                  both counted (device ids stay the runtime's), the unsupported one
//                  refused by name on use.
// ctest runs each tag in its own process with its own environment (CMakeLists.txt).
#include "opkit.h"

#include <catch2/catch.hpp>

#include <dlfcn.h>

#include <cstring>
#include <string>

namespace {

struct VendorState {
    int32_t state = -1;
    int32_t devices = -1;
    std::string detail, version;
};

VendorState rocm_vendor() {
    VendorState v;
    for (int32_t i = 0; i < opkit_vendor_count(); ++i) {
        opkit_vendor_info info{};
        info.struct_size = sizeof info;
        if (opkit_vendor_get_info(i, &info) != OPKIT_OK || !info.name || std::strcmp(info.name, "rocm") != 0)
            continue;
        v.state = info.state;
        v.devices = info.device_count;
        v.detail = info.detail ? info.detail : "";
        v.version = info.version ? info.version : "";
    }
    return v;
}

const std::string kFirstTarget = [] {
    const std::string all = OPKIT_TEST_ROCM_TARGETS;
    return all.substr(0, all.find(','));
}();

}  // namespace

TEST_CASE("rocm without a GPU: NO_DEVICE with the HIP runtime's reason", "[real]") {
    const VendorState v = rocm_vendor();
    INFO("detail: " << v.detail);
    REQUIRE(v.state == OPKIT_VENDOR_NO_DEVICE);
    CHECK(v.devices == 0);
    CHECK(opkit_device_count(OPKIT_DEVICE_ROCM) == 0);
    void* lib = dlopen("libamdhip64.so.5", RTLD_NOW | RTLD_LOCAL);
    if (!lib) lib = dlopen("libamdhip64.so", RTLD_NOW | RTLD_LOCAL);
    if (lib) {
        // Debian's runtime: hipGetDeviceCount answers hipErrorNoDevice (100) without a GPU.
        CHECK(v.detail.find("hipGetDeviceCount failed: hipErrorNoDevice") != std::string::npos);
        CHECK(v.detail.find("HIP 5.") != std::string::npos);
        dlclose(lib);
    } else {
        CHECK(v.detail.find("the HIP runtime is not installed") != std::string::npos);
    }
    // A ROCm tensor then has no vendor: refused with a message, nothing crashes.
    void* p = nullptr;
    CHECK(opkit_malloc(opkit_device{OPKIT_DEVICE_ROCM, 0}, 16, &p) != OPKIT_OK);
    CHECK(p == nullptr);
    CHECK(std::strlen(opkit_last_error_message()) > 0);
    float host[4] = {1, 2, 3, 4};
    int64_t shape[1] = {4};
    opkit_tensor t{host, {OPKIT_DEVICE_ROCM, 0}, 1, {OPKIT_DTYPE_FLOAT, 32, 1}, shape, nullptr, 0};
    CHECK(opkit_softmax_forward(&t, &t, nullptr) != OPKIT_OK);
    CHECK(host[3] == 4.0f);  // nothing written
}

TEST_CASE("rocm: a GPU whose ISA has no code object makes the vendor NO_DEVICE, naming it", "[unsupported]") {
    const VendorState v = rocm_vendor();
    INFO("detail: " << v.detail);
    REQUIRE(v.state == OPKIT_VENDOR_NO_DEVICE);
    CHECK(opkit_device_count(OPKIT_DEVICE_ROCM) == 0);
    CHECK(v.detail.find("device 0 (Fake GPU 0) is gfx1100") != std::string::npos);
    CHECK(v.detail.find("no code objects") != std::string::npos);
    CHECK(v.detail.find(kFirstTarget) != std::string::npos);
    CHECK(v.detail.find("OPKIT_ROCM_ARCHS") != std::string::npos);
}

TEST_CASE("rocm: of a supported and an unsupported GPU, the second is refused by name", "[mixed]") {
    const VendorState v = rocm_vendor();
    INFO("detail: " << v.detail << "; version: " << v.version);
    REQUIRE(v.state == OPKIT_VENDOR_READY);
    CHECK(opkit_device_count(OPKIT_DEVICE_ROCM) == 2);
    CHECK(v.version.find("HIP 5.2.21153") != std::string::npos);
    CHECK(v.detail.find("device 1 (Fake GPU 1) is gfx1100") != std::string::npos);
    void* p = nullptr;
    CHECK(opkit_malloc(opkit_device{OPKIT_DEVICE_ROCM, 1}, 16, &p) == OPKIT_ERROR_DEVICE);
    const std::string refused = opkit_last_error_message();
    CHECK(refused.find("HIP device 1 (Fake GPU 1) is gfx1100") != std::string::npos);
    // Device 0 passes the ISA check and reaches the runtime, which (being a fake) has no
    // memory to give: the runtime's own error comes back.
    CHECK(opkit_malloc(opkit_device{OPKIT_DEVICE_ROCM, 0}, 16, &p) == OPKIT_ERROR_DEVICE);
    const std::string runtime_error = opkit_last_error_message();
    CHECK(runtime_error.find("hipErrorNotSupported") != std::string::npos);
    CHECK(runtime_error.find("gfx1100") == std::string::npos);
}
