#include "host_tensor.h"

#include "twin_tensor.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace test {
namespace {

// bf16 as the twin tensor converts it (inline: nothing of it is linked in). Its NaN guard
// keeps a NaN whose payload sits in the low bits from rounding up to infinity.
using opkit_twin::bf16_to_float;
using opkit_twin::float_to_bf16;

// Reference f16 conversions written independently of the library's (through double).
float f16_to_float(uint16_t h) {
    const int sign = (h >> 15) & 1, exp = (h >> 10) & 31, man = h & 1023;
    double v;
    if (exp == 0)
        v = std::ldexp(double(man), -24);
    else if (exp == 31)
        v = man ? NAN : INFINITY;
    else
        v = std::ldexp(double(man + 1024), exp - 25);
    return float(sign ? -v : v);
}

uint16_t float_to_f16(float f) {
    // round to nearest even by searching the two neighbours (test code: clarity over speed)
    const double x = double(f);
    const uint16_t sign = std::signbit(x) ? 0x8000 : 0;
    const double a = std::fabs(x);
    if (a >= 65520.0) return uint16_t(sign | 0x7c00);
    int e;
    std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
    const int q = std::max(-24, e - 11);  // quantum exponent
    const double scaled = std::ldexp(a, -q);
    double r = std::nearbyint(scaled);  // default rounding mode: nearest even
    const double v = std::ldexp(r, q);
    // re-encode v exactly
    if (v == 0) return sign;
    int ev;
    std::frexp(v, &ev);
    if (ev - 1 < -14) return uint16_t(sign | uint16_t(std::ldexp(v, 24)));
    const int biased = ev - 1 + 15;
    const int man = int(std::ldexp(v, -(ev - 1)) * 1024.0) - 1024;
    return uint16_t(sign | (biased << 10) | man);
}

}  // namespace

opkit_dtype to_opkit(DT d) {
    switch (d) {
    case DT::f32: return {OPKIT_DTYPE_FLOAT, 32, 1};
    case DT::f16: return {OPKIT_DTYPE_FLOAT, 16, 1};
    case DT::bf16: return {OPKIT_DTYPE_BFLOAT, 16, 1};
    case DT::i32: return {OPKIT_DTYPE_INT, 32, 1};
    default: return {OPKIT_DTYPE_INT, 64, 1};
    }
}

const char* name_of(DT d) {
    static const char* const names[] = {"f32", "f16", "bf16", "i32", "i64"};
    return names[int(d)];
}

size_t size_of(DT d) { return d == DT::f32 || d == DT::i32 ? 4 : d == DT::i64 ? 8 : 2; }

HostTensor::HostTensor(DT dtype, std::vector<int64_t> shape, int64_t row_pad)
    : dtype_(dtype), shape_(std::move(shape)), row_pad_(row_pad) {
    const int32_t nd = int32_t(shape_.size());
    strides_.assign(size_t(nd), 1);
    int64_t stride = nd ? shape_[size_t(nd - 1)] + row_pad : 1;
    for (int32_t i = nd - 2; i >= 0; --i) {
        strides_[size_t(i)] = stride;
        stride *= shape_[size_t(i)];
    }
    const int64_t storage = nd ? stride : 1;
    bytes_.assign(size_t(std::max<int64_t>(storage, 1)) * size_of(dtype_), 0);
    view_.data = bytes_.data();
    view_.device = {OPKIT_DEVICE_CPU, 0};
    view_.ndim = nd;
    view_.dtype = to_opkit(dtype_);
    view_.shape = shape_.data();
    view_.strides = row_pad ? strides_.data() : nullptr;
    view_.byte_offset = 0;
}

int64_t HostTensor::numel() const {
    int64_t n = 1;
    for (int64_t s : shape_) n *= s;
    return n;
}
int64_t HostTensor::cols() const { return shape_.empty() ? 1 : shape_.back(); }
int64_t HostTensor::rows() const { return shape_.empty() ? 1 : numel() / std::max<int64_t>(cols(), 1); }

int64_t HostTensor::offset_of(int64_t i) const {
    int64_t off = 0;
    for (int32_t d = int32_t(shape_.size()) - 1; d >= 0; --d) {
        off += (i % shape_[size_t(d)]) * strides_[size_t(d)];
        i /= shape_[size_t(d)];
    }
    return off;
}

double HostTensor::get(int64_t i) const {
    const unsigned char* p = bytes_.data() + offset_of(i) * int64_t(size_of(dtype_));
    switch (dtype_) {
    case DT::f32: { float f; std::memcpy(&f, p, 4); return f; }
    case DT::bf16: { uint16_t h; std::memcpy(&h, p, 2); return bf16_to_float(h); }
    case DT::f16: { uint16_t h; std::memcpy(&h, p, 2); return f16_to_float(h); }
    case DT::i32: { int32_t v; std::memcpy(&v, p, 4); return v; }
    default: { int64_t v; std::memcpy(&v, p, 8); return double(v); }
    }
}

void HostTensor::set(int64_t i, double v) {
    unsigned char* p = bytes_.data() + offset_of(i) * int64_t(size_of(dtype_));
    switch (dtype_) {
    case DT::f32: { float f = float(v); std::memcpy(p, &f, 4); break; }
    case DT::bf16: { uint16_t h = float_to_bf16(float(v)); std::memcpy(p, &h, 2); break; }
    case DT::f16: { uint16_t h = float_to_f16(float(v)); std::memcpy(p, &h, 2); break; }
    case DT::i32: { int32_t x = int32_t(v); std::memcpy(p, &x, 4); break; }
    default: { int64_t x = int64_t(v); std::memcpy(p, &x, 8); break; }
    }
}

std::vector<double> HostTensor::values() const {
    std::vector<double> out(static_cast<size_t>(numel()));
    for (int64_t i = 0; i < numel(); ++i) out[size_t(i)] = get(i);
    return out;
}

void HostTensor::set_values(const std::vector<double>& v) {
    for (int64_t i = 0; i < numel(); ++i) set(i, v[size_t(i)]);
}

void HostTensor::fill_random(std::mt19937& rng, double lo, double hi) {
    std::uniform_real_distribution<double> u(lo, hi);
    for (int64_t i = 0; i < numel(); ++i) {
        double v = u(rng);
        if (std::fabs(v) < 1e-3) v = 0.25;  // never zero
        set(i, v);
    }
    // Padding gets a recognisable non-NaN pattern so that stray writes show.
    if (row_pad_ > 0) {
        std::vector<bool> used(bytes_.size() / size_of(dtype_), false);
        for (int64_t i = 0; i < numel(); ++i) used[size_t(offset_of(i))] = true;
        for (size_t e = 0; e < used.size(); ++e)
            if (!used[e]) std::memset(bytes_.data() + e * size_of(dtype_), 0x3c, size_of(dtype_));
    }
}

void HostTensor::poison() { std::fill(bytes_.begin(), bytes_.end(), 0xFF); }

bool HostTensor::padding_intact() const {
    if (row_pad_ == 0) return true;
    std::vector<bool> used(bytes_.size() / size_of(dtype_), false);
    for (int64_t i = 0; i < numel(); ++i) used[size_t(offset_of(i))] = true;
    for (size_t e = 0; e < used.size(); ++e) {
        if (used[e]) continue;
        for (size_t b = 0; b < size_of(dtype_); ++b) {
            const unsigned char v = bytes_[e * size_of(dtype_) + b];
            if (v != 0x3c && v != 0xFF) return false;
        }
    }
    return true;
}

double rel_error(const std::vector<double>& got, const std::vector<double>& want, double floor) {
    double scale = floor, err = 0.0;
    for (double w : want) scale = std::max(scale, std::fabs(w));
    for (size_t i = 0; i < got.size() && i < want.size(); ++i) {
        const double d = std::fabs(got[i] - want[i]);
        if (std::isnan(got[i]) != std::isnan(want[i])) return INFINITY;
        if (!std::isnan(d)) err = std::max(err, d);
    }
    return err / scale;
}

bool all_finite(const std::vector<double>& v) {
    return std::all_of(v.begin(), v.end(), [](double x) { return std::isfinite(x); });
}

}  // namespace test
