// Test support for the ascend vendor on the emulator: opkit sessions on an emulated CANN
// layout (tests/ascend/emu/<layout>/lib64 as $ASCEND_HOME_PATH/lib64), tensors that exist
// twice — a host copy run through opkit's CPU defaults (the reference) and an NPU copy
// run through the ascend vendor, with identical storage layouts — and the emulator's
// statistics (every aclnn object released, nothing queued, no strictness violation).
#pragma once

#include "emu_control.h"
#include "opkit.h"

#include <cstdint>
#include <string>
#include <vector>

namespace asc {

constexpr opkit_device kCpu{OPKIT_DEVICE_CPU, 0};
inline opkit_device npu(int id = 0) { return opkit_device{OPKIT_DEVICE_ASCEND, id}; }

opkit_dtype f32();
opkit_dtype f16();
opkit_dtype bf16();
opkit_dtype i32();
opkit_dtype i64();
const char* dtype_name(opkit_dtype d);
std::string shape_str(const std::vector<int64_t>& s);

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

// How a tensor is stored: `perm` lists logical dimensions outermost first (empty =
// identity; the last stays innermost), each storage row is padded by `pad` elements, and
// the view starts `offset` elements into the allocation.
struct Layout {
    std::vector<int> perm;
    int64_t pad = 0;
    int64_t offset = 0;
};

class Tensor {
public:
    Tensor(opkit_dtype dtype, std::vector<int64_t> shape, Layout layout = {}, int device = 0);
    ~Tensor();
    Tensor(const Tensor&) = delete;
    Tensor& operator=(const Tensor&) = delete;

    opkit_tensor* cpu() { return &cpu_; }
    opkit_tensor* dev() { return &dev_; }
    opkit_tensor* on(bool device) { return device ? &dev_ : &cpu_; }
    int64_t numel() const;
    opkit_dtype dtype() const { return dtype_; }
    const std::vector<int64_t>& shape() const { return shape_; }
    size_t element_size() const { return size_t(dtype_.bits / 8); }
    void* device_storage() const { return dev_storage_; }

    void random(float lo, float hi, uint64_t seed);
    void random_ints(int64_t lo, int64_t hi, uint64_t seed);
    void set(int64_t flat, double v);
    void poison();  // every host byte 0xFF (NaN for floats)
    void upload();  // host storage -> NPU storage, padding included
    std::vector<uint8_t> download() const;  // synchronizes the device first

    double host_value(int64_t flat) const;
    double value_in(const std::vector<uint8_t>& storage, int64_t flat) const;
    int64_t offset_of(int64_t flat) const;
    const std::vector<uint8_t>& host_storage() const { return host_; }

private:
    opkit_dtype dtype_;
    std::vector<int64_t> shape_, strides_;
    int64_t offset_ = 0;
    int device_;
    std::vector<uint8_t> host_;
    void* dev_storage_ = nullptr;
    opkit_tensor cpu_{}, dev_{};
};

// The NPU copy against the host copy (after the same call on both): every view element
// within the tolerance of (op, output, dtype) of core/tolerances.def, every byte outside
// the view identical. Reports mismatches through Catch2.
bool same(const Tensor& t, const char* op, const char* output, const std::string& what, double scale_floor = 0.0);
// The same for the columns [begin, begin + count) of the last dimension only (one half of a
// buffer holding two outputs side by side); bytes outside the view are not checked.
bool same_columns(const Tensor& t, int64_t begin, int64_t count, const char* op, const char* output,
                  const std::string& what);
// Bit for bit (NaN matching NaN), padding included.
bool identical(const Tensor& t, const std::string& what);
// The NPU copy still holds what was uploaded (an output a failed call must not touch).
bool untouched(const Tensor& t, const std::string& what);

}  // namespace asc

#define REQUIRE_OK(call)                                                                        \
    do {                                                                                        \
        const opkit_status s_ = (call);                                                         \
        INFO(#call << " -> " << opkit_status_string(s_) << ": " << opkit_last_error_message()); \
        REQUIRE(s_ == OPKIT_OK);                                                                \
    } while (0)
