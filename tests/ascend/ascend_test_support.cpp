#include "ascend_test_support.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <cstring>

namespace asc {

std::string emu_dir() { return ASCEND_EMU_DIR; }
std::string layout_home(const char* layout) { return emu_dir() + "/" + layout; }

Session::Session(const char* layout, const char* failures, bool host_fallback) {
    REQUIRE(ascend_emu_set_failures(failures) == 0);
    if (layout) setenv("ASCEND_HOME_PATH", layout_home(layout).c_str(), 1);
    else unsetenv("ASCEND_HOME_PATH");
    setenv("ASCEND_OPP_PATH", (emu_dir() + "/opp").c_str(), 1);
    opkit_init_options o{};
    o.struct_size = sizeof o;
    o.vendors = "ascend";
    o.host_fallback = host_fallback ? 1 : 0;
    o.log_level = -1;
    REQUIRE_OK(opkit_init(&o));
}

Session::~Session() {
    opkit_shutdown();
    ascend_emu_set_failures("");
}

VendorInfo ascend_vendor() {
    VendorInfo v;
    for (int32_t i = 0; i < opkit_vendor_count(); ++i) {
        opkit_vendor_info info{};
        info.struct_size = sizeof info;
        if (opkit_vendor_get_info(i, &info) != OPKIT_OK || !info.name || std::strcmp(info.name, "ascend")) continue;
        v.found = true;
        v.state = info.state;
        v.device_count = info.device_count;
        v.version = info.version ? info.version : "";
        v.detail = info.detail ? info.detail : "";
    }
    return v;
}

Dispatch last_dispatch() {
    Dispatch d;
    opkit_dispatch_info info{};
    info.struct_size = sizeof info;
    if (opkit_last_dispatch(&info) != OPKIT_OK) return d;
    d.status = info.status;
    d.served_by = info.served_by ? info.served_by : "";
    d.first_declined_by = info.first_declined_by ? info.first_declined_by : "";
    d.declined = info.declined;
    return d;
}

ascend_emu_stats stats() {
    ascend_emu_stats s{};
    ascend_emu_get_stats(&s);
    return s;
}

void require_clean(const char* what) {
    INFO(what);
    REQUIRE_OK(opkit_synchronize(npu(0), nullptr));
    const ascend_emu_stats s = stats();
    INFO("last violation: " << ascend_emu_last_violation());
    CHECK(s.violations == 0);
    CHECK(s.live_tensors == 0);
    CHECK(s.live_scalars == 0);
    CHECK(s.live_int_arrays == 0);
    CHECK(s.live_bool_arrays == 0);
    CHECK(s.live_executors == 0);
    CHECK(s.pending_tasks == 0);
}

// ---------------------------------------------------------------- tensors -----------

Tensor::Tensor(opkit_dtype dtype, std::vector<int64_t> shape, Layout layout, int device)
    : TwinTensor(dtype, std::move(shape), std::move(layout)), where_(npu(device)) {
    REQUIRE_OK(allocate(where_));
}

void Tensor::upload() { REQUIRE_OK(TwinTensor::upload(where_)); }

}  // namespace asc
