#include "cuda_test_support.h"

#include "tolerance_check.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <sstream>

namespace cudatest {

opkit_dtype f32() { return {OPKIT_DTYPE_FLOAT, 32, 1}; }
opkit_dtype f16() { return {OPKIT_DTYPE_FLOAT, 16, 1}; }
opkit_dtype bf16() { return {OPKIT_DTYPE_BFLOAT, 16, 1}; }
opkit_dtype i32() { return {OPKIT_DTYPE_INT, 32, 1}; }
opkit_dtype i64() { return {OPKIT_DTYPE_INT, 64, 1}; }

const char* dtype_name(opkit_dtype d) {
    if (d.code == OPKIT_DTYPE_BFLOAT) return "bf16";
    if (d.code == OPKIT_DTYPE_FLOAT) return d.bits == 32 ? "f32" : "f16";
    return d.bits == 32 ? "i32" : "i64";
}

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

uint16_t float_to_bf16(float v) {
    uint32_t u;
    std::memcpy(&u, &v, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) return uint16_t((u >> 16) | 0x40);  // NaN stays NaN
    u += 0x7fffu + ((u >> 16) & 1u);  // round to nearest even
    return uint16_t(u >> 16);
}

float bf16_to_float(uint16_t b) {
    const uint32_t u = uint32_t(b) << 16;
    float v;
    std::memcpy(&v, &u, 4);
    return v;
}

float load_float(opkit_dtype d, const uint8_t* p) {
    if (d.code == OPKIT_DTYPE_BFLOAT) {
        uint16_t b;
        std::memcpy(&b, p, 2);
        return bf16_to_float(b);
    }
    if (d.bits == 16) {
        _Float16 h;
        std::memcpy(&h, p, 2);
        return float(h);
    }
    float v;
    std::memcpy(&v, p, 4);
    return v;
}

void store_float(opkit_dtype d, uint8_t* p, float v) {
    if (d.code == OPKIT_DTYPE_BFLOAT) {
        const uint16_t b = float_to_bf16(v);
        std::memcpy(p, &b, 2);
    } else if (d.bits == 16) {
        const _Float16 h = _Float16(v);
        std::memcpy(p, &h, 2);
    } else {
        std::memcpy(p, &v, 4);
    }
}

std::string shape_str(const std::vector<int64_t>& s) {
    std::ostringstream o;
    o << "[";
    for (size_t i = 0; i < s.size(); ++i) o << (i ? "," : "") << s[i];
    o << "]";
    return o.str();
}

Tensor::Tensor(opkit_dtype dtype, std::vector<int64_t> shape, Layout layout, int32_t device_id)
    : dtype_(dtype), shape_(std::move(shape)), offset_(layout.offset), device_{kDeviceType, device_id} {
    const int nd = int(shape_.size());
    std::vector<int> perm = layout.perm;
    if (perm.empty())
        for (int d = 0; d < nd; ++d) perm.push_back(d);
    strides_.assign(size_t(nd), 0);
    int64_t s = 1;
    for (int i = nd - 1; i >= 0; --i) {
        strides_[size_t(perm[size_t(i)])] = s;
        s *= shape_[size_t(perm[size_t(i)])] + (i == nd - 1 ? layout.pad : 0);
    }
    int64_t span = offset_ + 1;
    for (int d = 0; d < nd; ++d) span += (shape_[size_t(d)] - 1) * strides_[size_t(d)];
    if (numel() == 0) span = offset_ + 1;
    const size_t bytes = size_t(span) * element_size();
    host_.assign(bytes, 0xA5);  // recognizable padding
    REQUIRE(opkit_malloc(device_, bytes, &dev_) == OPKIT_OK);
    for (opkit_tensor* t : {&cpu_, &gpu_}) {
        t->ndim = nd;
        t->dtype = dtype_;
        t->shape = shape_.data();
        t->strides = strides_.data();
        t->byte_offset = uint64_t(offset_) * element_size();
    }
    cpu_.data = host_.data();
    cpu_.device = kCpu;
    gpu_.data = dev_;
    gpu_.device = device_;
}

Tensor::~Tensor() { opkit_free(device_, dev_); }

int64_t Tensor::numel() const {
    int64_t n = 1;
    for (int64_t s : shape_) n *= s;
    return n;
}

int64_t Tensor::offset_of(int64_t flat) const {
    int64_t off = offset_;
    for (int d = int(shape_.size()) - 1; d >= 0; --d) {
        off += (flat % shape_[size_t(d)]) * strides_[size_t(d)];
        flat /= shape_[size_t(d)];
    }
    return off;
}

double Tensor::value_in(const std::vector<uint8_t>& storage, int64_t flat) const {
    const uint8_t* p = storage.data() + size_t(offset_of(flat)) * element_size();
    if (dtype_.code == OPKIT_DTYPE_INT) {
        if (dtype_.bits == 64) {
            int64_t v;
            std::memcpy(&v, p, 8);
            return double(v);
        }
        int32_t v;
        std::memcpy(&v, p, 4);
        return double(v);
    }
    return double(load_float(dtype_, p));
}

double Tensor::host_value(int64_t flat) const { return value_in(host_, flat); }

void Tensor::set(int64_t flat, double v) {
    uint8_t* p = host_.data() + size_t(offset_of(flat)) * element_size();
    if (dtype_.code == OPKIT_DTYPE_INT) {
        if (dtype_.bits == 64) {
            const int64_t x = int64_t(v);
            std::memcpy(p, &x, 8);
        } else {
            const int32_t x = int32_t(v);
            std::memcpy(p, &x, 4);
        }
        return;
    }
    store_float(dtype_, p, float(v));
}

void Tensor::random(float lo, float hi, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> dist(lo, hi);
    for (int64_t i = 0, n = numel(); i < n; ++i) set(i, dist(rng));
}

void Tensor::random_ints(int64_t lo, int64_t hi, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int64_t> dist(lo, hi);
    for (int64_t i = 0, n = numel(); i < n; ++i) set(i, double(dist(rng)));
}

void Tensor::poison() { std::fill(host_.begin(), host_.end(), uint8_t(0xFF)); }

void Tensor::upload() {
    REQUIRE(opkit_memcpy(dev_, device_, host_.data(), kCpu, host_.size(), nullptr) == OPKIT_OK);
}

std::vector<uint8_t> Tensor::download() const {
    std::vector<uint8_t> out(host_.size());
    REQUIRE(opkit_synchronize(device_, nullptr) == OPKIT_OK);
    REQUIRE(opkit_memcpy(out.data(), kCpu, dev_, device_, out.size(), nullptr) == OPKIT_OK);
    return out;
}

namespace {

// Bytes outside the view must be unchanged; reports the first few.
int bytes_outside_changed(const Tensor& t, const std::vector<uint8_t>& got, const std::string& what) {
    const std::vector<uint8_t>& ref = t.host_storage();
    const size_t es = t.element_size();
    std::vector<uint8_t> in_view(ref.size(), 0);
    for (int64_t i = 0; i < t.numel(); ++i) std::fill_n(in_view.begin() + t.offset_of(i) * int64_t(es), es, uint8_t(1));
    int bad = 0;
    for (size_t b = 0; b < ref.size(); ++b)
        if (!in_view[b] && got[b] != ref[b]) {
            if (bad < 3)
                FAIL_CHECK(what << ": byte " << b << " outside the view changed (" << int(ref[b]) << " -> "
                                << int(got[b]) << ")");
            ++bad;
        }
    return bad;
}

}  // namespace

bool same(const Tensor& t, const char* op, const char* output, const std::string& what, double scale_floor) {
    const std::vector<uint8_t> got = t.download();
    const int bad = bytes_outside_changed(t, got, what);
    std::vector<double> g(size_t(t.numel())), r(size_t(t.numel()));
    for (int64_t i = 0; i < t.numel(); ++i) {
        g[size_t(i)] = t.value_in(got, i);
        r[size_t(i)] = t.host_value(i);
    }
    const test::ToleranceCheck c = test::check_tolerance(op, output, dtype_name(t.dtype()), g, r, scale_floor);
    if (!c.ok) FAIL_CHECK(what << " " << shape_str(t.shape()) << ": " << c.detail);
    return c.ok && bad == 0;
}

bool identical(const Tensor& t, const std::string& what) {
    const std::vector<uint8_t> got = t.download();
    const int bad = bytes_outside_changed(t, got, what);
    int64_t mismatches = 0;
    for (int64_t i = 0; i < t.numel(); ++i) {
        const double r = t.host_value(i), g = t.value_in(got, i);
        if (std::isnan(r) && std::isnan(g)) continue;
        if (r != g) {
            if (mismatches < 5)
                FAIL_CHECK(what << ": element " << i << " is " << g << ", the CPU reference is " << r);
            ++mismatches;
        }
    }
    return mismatches == 0 && bad == 0;
}

}  // namespace cudatest
