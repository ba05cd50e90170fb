// Test support: an owning host tensor of any float/int dtype with optional padded rows
// (so that views are strided), random fill, float64 import/export, and poisoning.
#pragma once

#include "opkit.h"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace test {

enum class DT { f32, f16, bf16, i32, i64 };

opkit_dtype to_opkit(DT d);
const char* name_of(DT d);
size_t size_of(DT d);

class HostTensor {
public:
    HostTensor() = default;
    // row_pad > 0 makes the outermost dimensions strided: each row (last dim) is followed
    // by row_pad unused elements, so the tensor is a view into a wider buffer.
    HostTensor(DT dtype, std::vector<int64_t> shape, int64_t row_pad = 0);

    opkit_tensor* t() { return &view_; }
    const opkit_tensor* ct() const { return &view_; }
    DT dtype() const { return dtype_; }
    const std::vector<int64_t>& shape() const { return shape_; }
    int64_t numel() const;
    int64_t rows() const;  // all dims but the last
    int64_t cols() const;  // the last dim

    // Element (row-major logical index) as double, and setter (rounded to the dtype).
    double get(int64_t i) const;
    void set(int64_t i, double v);
    std::vector<double> values() const;
    void set_values(const std::vector<double>& v);

    // Uniform in [lo, hi), never exactly zero.
    void fill_random(std::mt19937& rng, double lo = -2.0, double hi = 2.0);
    // Every byte of the buffer (padding included) set to 0xFF: NaN for floats.
    void poison();
    // Bytes of the padding between rows: must survive any op untouched.
    bool padding_intact() const;
    const std::vector<unsigned char>& bytes() const { return bytes_; }

private:
    int64_t offset_of(int64_t i) const;  // element offset of logical index i
    DT dtype_ = DT::f32;
    std::vector<int64_t> shape_, strides_;
    std::vector<unsigned char> bytes_;
    int64_t row_pad_ = 0;
    opkit_tensor view_{};
};

// max |a - b| / max(max |b|, floor). The op tests' tolerances are in tolerance_check.h
// (the one table, core/tolerances.def).
double rel_error(const std::vector<double>& got, const std::vector<double>& want, double floor = 1e-6);
bool all_finite(const std::vector<double>& v);

}  // namespace test
