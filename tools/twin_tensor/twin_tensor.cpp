#include "twin_tensor.h"

#include <algorithm>
#include <cstring>
#include <random>
#include <sstream>

namespace opkit_twin {
namespace {
constexpr opkit_device kHost{OPKIT_DEVICE_CPU, 0};
}  // namespace

opkit_dtype f32() { return {OPKIT_DTYPE_FLOAT, 32, 1}; }
opkit_dtype f16() { return {OPKIT_DTYPE_FLOAT, 16, 1}; }
opkit_dtype bf16() { return {OPKIT_DTYPE_BFLOAT, 16, 1}; }
opkit_dtype i32() { return {OPKIT_DTYPE_INT, 32, 1}; }
opkit_dtype i64() { return {OPKIT_DTYPE_INT, 64, 1}; }

bool is_float(opkit_dtype d) { return d.code == OPKIT_DTYPE_FLOAT || d.code == OPKIT_DTYPE_BFLOAT; }

const char* dtype_name(opkit_dtype d) {
    if (d.code == OPKIT_DTYPE_BFLOAT) return "bf16";
    if (d.code == OPKIT_DTYPE_FLOAT) return d.bits == 32 ? "f32" : "f16";
    return d.bits == 32 ? "i32" : "i64";
}

std::string shape_str(const std::vector<int64_t>& s) {
    std::ostringstream o;
    o << "[";
    for (size_t i = 0; i < s.size(); ++i) o << (i ? "," : "") << s[i];
    o << "]";
    return o.str();
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

TwinTensor::TwinTensor(opkit_dtype dtype, std::vector<int64_t> shape, Layout layout)
    : dtype_(dtype), shape_(std::move(shape)), offset_(layout.offset) {
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
    host_.assign(size_t(span) * element_size(), 0xA5);  // recognizable padding
    for (opkit_tensor* t : {&host_view_, &device_view_}) {
        t->ndim = nd;
        t->dtype = dtype_;
        t->shape = shape_.data();
        t->strides = strides_.data();
        t->byte_offset = uint64_t(offset_) * element_size();
    }
    host_view_.data = host_.data();
    host_view_.device = kHost;
}

TwinTensor::~TwinTensor() { release(); }

void TwinTensor::release() {
    if (device_ptr_) opkit_free(device_, device_ptr_);
    device_ptr_ = nullptr;
    device_view_.data = nullptr;
}

int64_t TwinTensor::numel() const {
    int64_t n = 1;
    for (int64_t s : shape_) n *= s;
    return n;
}

int64_t TwinTensor::offset_of(int64_t flat) const {
    int64_t off = offset_;
    for (int d = int(shape_.size()) - 1; d >= 0; --d) {
        off += (flat % shape_[size_t(d)]) * strides_[size_t(d)];
        flat /= shape_[size_t(d)];
    }
    return off;
}

double TwinTensor::value_in(const std::vector<uint8_t>& storage, int64_t flat) const {
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

void TwinTensor::set(int64_t flat, double v) {
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

void TwinTensor::random(float lo, float hi, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> dist(lo, hi);
    for (int64_t i = 0, n = numel(); i < n; ++i) {
        // The design asks for data that is never zero: tested after the dtype's rounding,
        // which takes f16 draws within 3e-8 of zero to zero.
        set(i, dist(rng));
        if (host_value(i) == 0.0) set(i, hi * 0.5f);
        if (host_value(i) == 0.0) set(i, lo * 0.5f);  // hi is 0 or too small for the dtype
    }
}

void TwinTensor::random_ints(int64_t lo, int64_t hi, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int64_t> dist(lo, hi);
    for (int64_t i = 0, n = numel(); i < n; ++i) set(i, double(dist(rng)));
}

void TwinTensor::poison() { std::fill(host_.begin(), host_.end(), uint8_t(0xFF)); }

opkit_status TwinTensor::allocate(opkit_device device) {
    if (device_ptr_ && (device.device_type != device_.device_type || device.device_id != device_.device_id))
        release();
    if (device_ptr_) return OPKIT_OK;
    const opkit_status s = opkit_malloc(device, host_.size(), &device_ptr_);
    if (s != OPKIT_OK) return s;
    device_ = device;
    device_view_.data = device_ptr_;
    device_view_.device = device;
    return OPKIT_OK;
}

opkit_status TwinTensor::upload(opkit_device device) {
    const opkit_status s = allocate(device);
    if (s != OPKIT_OK) return s;
    return opkit_memcpy(device_ptr_, device_, host_.data(), kHost, host_.size(), nullptr);
}

opkit_status TwinTensor::download(std::vector<uint8_t>* out) const {
    out->assign(host_.size(), 0);
    opkit_status s = opkit_synchronize(device_, nullptr);
    if (s == OPKIT_OK) s = opkit_memcpy(out->data(), kHost, device_ptr_, device_, out->size(), nullptr);
    return s;
}

}  // namespace opkit_twin
