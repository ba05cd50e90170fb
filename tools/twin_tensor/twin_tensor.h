// A tensor that exists twice with one storage layout: a host copy (what opkit's CPU
// defaults compute on, the reference) and a device copy (what the vendor under test
// computes on). Both views share shape, strides and byte offset, so one call shape
// serves both sides and results compare element by element, padding included.
//
// One implementation for every place that checks a vendor against the CPU defaults:
// opkit-conformance (tools/conformance) and the vendors' test suites (tests/gpu,
// tests/ascend), which wrap it with Catch2 assertions (tests/support/twin_checks.h). It
// reaches the devices through opkit's public API only and links nothing itself: the
// program that uses it links libopkit.
#pragma once

#include "opkit.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace opkit_twin {

opkit_dtype f32();
opkit_dtype f16();
opkit_dtype bf16();
opkit_dtype i32();
opkit_dtype i64();
const char* dtype_name(opkit_dtype d);
bool is_float(opkit_dtype d);
std::string shape_str(const std::vector<int64_t>& s);

// Host <-> storage conversions (bf16 rounds to nearest even; NaN stays NaN).
float load_float(opkit_dtype d, const uint8_t* p);
void store_float(opkit_dtype d, uint8_t* p, float v);

// Inline, so that test code can use them without linking the twin tensor (whose opkit
// calls a binary linked with libopkit's static objects must not pull in).
inline uint16_t float_to_bf16(float v) {
    uint32_t u;
    std::memcpy(&u, &v, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) return uint16_t((u >> 16) | 0x40);  // NaN stays NaN
    u += 0x7fffu + ((u >> 16) & 1u);                                         // nearest even
    return uint16_t(u >> 16);
}

inline float bf16_to_float(uint16_t b) {
    const uint32_t u = uint32_t(b) << 16;
    float v;
    std::memcpy(&v, &u, 4);
    return v;
}

// How a tensor is stored: `perm` lists logical dimensions outermost first (empty =
// identity; the last logical dimension must stay innermost), each storage row is padded
// by `pad` elements, and the data starts `offset` elements into the allocation.
struct Layout {
    std::vector<int> perm;
    int64_t pad = 0;
    int64_t offset = 0;
};

class TwinTensor {
public:
    TwinTensor(opkit_dtype dtype, std::vector<int64_t> shape, Layout layout = {});
    ~TwinTensor();  // frees the device copy (one that outlives opkit_shutdown: release() first)
    TwinTensor(const TwinTensor&) = delete;
    TwinTensor& operator=(const TwinTensor&) = delete;

    opkit_tensor* host() { return &host_view_; }
    opkit_tensor* device() { return &device_view_; }
    opkit_tensor* on(bool device_side) { return device_side ? device() : host(); }

    int64_t numel() const;
    opkit_dtype dtype() const { return dtype_; }
    const std::vector<int64_t>& shape() const { return shape_; }
    size_t element_size() const { return size_t(dtype_.bits / 8); }
    const std::vector<uint8_t>& host_storage() const { return host_; }

    // Host-side contents (the device copy gets them with upload()).
    // Uniform in [lo, hi), never exactly zero after the dtype's rounding (a zero becomes
    // hi / 2, or lo / 2 where that rounds to zero too), for float tensors of any range
    // with hi / 2 or lo / 2 representable; random_ints() is for index tensors.
    void random(float lo, float hi, uint64_t seed);
    void random_ints(int64_t lo, int64_t hi, uint64_t seed);  // index tensors
    void set(int64_t flat, double v);                          // logical row-major index
    void poison();  // every byte 0xFF (NaN for floats): shows unwritten outputs

    // Allocates the device copy on `device` (unless it is there already; a copy on
    // another device is freed first) without copying anything.
    opkit_status allocate(opkit_device device);
    // allocate(device), then the host storage into it, padding included. The status and
    // opkit's message tell what failed.
    opkit_status upload(opkit_device device);
    // Device storage -> out (synchronizes the device first).
    opkit_status download(std::vector<uint8_t>* out) const;
    void release();  // frees the device copy
    void* device_storage() const { return device_ptr_; }  // the allocation, or null

    double value_in(const std::vector<uint8_t>& storage, int64_t flat) const;
    double host_value(int64_t flat) const { return value_in(host_, flat); }
    int64_t offset_of(int64_t flat) const;  // elements from the start of the allocation

private:
    opkit_dtype dtype_;
    std::vector<int64_t> shape_, strides_;
    int64_t offset_ = 0;
    std::vector<uint8_t> host_;
    void* device_ptr_ = nullptr;
    opkit_device device_{OPKIT_DEVICE_CPU, 0};
    opkit_tensor host_view_{}, device_view_{};
};

}  // namespace opkit_twin
