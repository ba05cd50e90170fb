// Test support for the ascend vendor on the emulator: opkit sessions on an emulated CANN
// layout (tests/ascend/emu/<layout>/lib64 as $ASCEND_HOME_PATH/lib64), tensors that exist
// twice — a host copy run through opkit's CPU defaults (the reference) and an NPU copy
// run through the ascend vendor, with identical storage layouts — and the emulator's
// statistics (every aclnn object released, nothing queued, no strictness violation).
#pragma once

#include "emu_control.h"
#include "opkit.h"
#include "twin_checks.h"
#include "twin_tensor.h"

#include <cstdint>
#include <string>
#include <vector>

namespace asc {

constexpr opkit_device kCpu{OPKIT_DEVICE_CPU, 0};
inline opkit_device npu(int id = 0) { return opkit_device{OPKIT_DEVICE_ASCEND, id}; }

// The twin tensor and its checks, shared with the GPU suites and opkit-conformance
// (tools/twin_tensor, tests/support/twin_checks.h).
using opkit_twin::bf16;
using opkit_twin::dtype_name;
using opkit_twin::f16;
using opkit_twin::f32;
using opkit_twin::i32;
using opkit_twin::i64;
using opkit_twin::Layout;
using opkit_twin::shape_str;
using test::identical;
using test::same;
using test::same_columns;
using test::untouched;

// <build>/tests/ascend/emu/<layout>/lib64 and its parent.
std::string emu_dir();
std::string layout_home(const char* layout);

// opkit initialized with only the ascend vendor, on an emulated layout, with failures
// injected into the emulator (emu_control.h) before the vendor loads. Shuts down and
// clears the failures when it goes.
class Session {
public:
    explicit Session(const char* layout = "cann9", const char* failures = "", bool host_fallback = false);
    ~Session();
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;
};

struct VendorInfo {
    bool found = false;
    int32_t state = -1, device_count = 0;
    std::string version, detail;
};
VendorInfo ascend_vendor();

// Who served the thread's last op call.
struct Dispatch {
    opkit_status status = -1;
    std::string served_by, first_declined_by;
    int32_t declined = 0;
};
Dispatch last_dispatch();

ascend_emu_stats stats();
// Every tensor, scalar, array and executor the vendor created is released, nothing is
// queued (after a synchronization), and no strictness check of the emulator failed.
void require_clean(const char* what);

// A twin tensor whose device copy is allocated on NPU `device` when it is made; a failed
// allocation or copy fails the test case.
class Tensor : public opkit_twin::TwinTensor {
public:
    Tensor(opkit_dtype dtype, std::vector<int64_t> shape, Layout layout = {}, int device = 0);

    opkit_tensor* cpu() { return host(); }
    opkit_tensor* dev() { return device(); }
    void upload();  // host storage -> NPU storage, padding included
    std::vector<uint8_t> download() const { return test::download(*this); }  // synchronizes first

private:
    opkit_device where_;
};

}  // namespace asc
