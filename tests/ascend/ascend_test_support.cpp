#include "ascend_test_support.h"

#include "tolerance_check.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>

namespace asc {

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

std::string shape_str(const std::vector<int64_t>& s) {
    std::ostringstream o;
    o << "[";
    for (size_t i = 0; i < s.size(); ++i) o << (i ? "," : "") << s[i];
    o << "]";
    return o.str();
}

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

namespace {

uint16_t float_to_bf16(float v) {
    uint32_t u;
    std::memcpy(&u, &v, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) return uint16_t((u >> 16) | 0x40);
    u += 0x7fffu + ((u >> 16) & 1u);
    return uint16_t(u >> 16);
}

float bf16_to_float(uint16_t b) {
    const uint32_t u = uint32_t(b) << 16;
    float v;
    std::memcpy(&v, &u, 4);
    return v;
}

}  // namespace

Tensor::Tensor(opkit_dtype dtype, std::vector<int64_t> shape, Layout layout, int device)
    : dtype_(dtype), shape_(std::move(shape)), offset_(layout.offset), device_(device) {
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
    const size_t bytes = size_t(span) * element_size();
    host_.assign(bytes, 0xA5);  // recognizable padding
    REQUIRE_OK(opkit_malloc(npu(device_), bytes, &dev_storage_));
    for (opkit_tensor* t : {&cpu_, &dev_}) {
        t->ndim = nd;
        t->dtype = dtype_;
        t->shape = shape_.data();
        t->strides = strides_.data();
        t->byte_offset = uint64_t(offset_) * element_size();
    }
    cpu_.data = host_.data();
    cpu_.device = kCpu;
    dev_.data = dev_storage_;
    dev_.device = npu(device_);
}

Tensor::~Tensor() { opkit_free(npu(device_), dev_storage_); }

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
    if (dtype_.code == OPKIT_DTYPE_BFLOAT) {
        uint16_t b;
        std::memcpy(&b, p, 2);
        return bf16_to_float(b);
    }
    if (dtype_.bits == 16) {
        _Float16 h;
        std::memcpy(&h, p, 2);
        return double(h);
    }
    float v;
    std::memcpy(&v, p, 4);
    return v;
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
    } else if (dtype_.code == OPKIT_DTYPE_BFLOAT) {
        const uint16_t b = float_to_bf16(float(v));
        std::memcpy(p, &b, 2);
    } else if (dtype_.bits == 16) {
        const _Float16 h = _Float16(v);
        std::memcpy(p, &h, 2);
    } else {
        const float f = float(v);
        std::memcpy(p, &f, 4);
    }
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

void Tensor::upload() { REQUIRE_OK(opkit_memcpy(dev_storage_, npu(device_), host_.data(), kCpu, host_.size(), nullptr)); }

std::vector<uint8_t> Tensor::download() const {
    std::vector<uint8_t> out(host_.size());
    REQUIRE_OK(opkit_synchronize(npu(device_), nullptr));
    REQUIRE_OK(opkit_memcpy(out.data(), kCpu, dev_storage_, npu(device_), out.size(), nullptr));
    return out;
}

namespace {

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

bool same_columns(const Tensor& t, int64_t begin, int64_t count, const char* op, const char* output,
                  const std::string& what) {
    const std::vector<uint8_t> got = t.download();
    const int64_t cols = t.shape().back();
    std::vector<double> g, r;
    for (int64_t i = 0; i < t.numel(); ++i) {
        const int64_t col = i % cols;
        if (col < begin || col >= begin + count) continue;
        g.push_back(t.value_in(got, i));
        r.push_back(t.host_value(i));
    }
    const test::ToleranceCheck c = test::check_tolerance(op, output, dtype_name(t.dtype()), g, r);
    if (!c.ok) FAIL_CHECK(what << " " << shape_str(t.shape()) << ": " << c.detail);
    return c.ok;
}

bool identical(const Tensor& t, const std::string& what) {
    const std::vector<uint8_t> got = t.download();
    const int bad = bytes_outside_changed(t, got, what);
    int64_t mismatches = 0;
    for (int64_t i = 0; i < t.numel(); ++i) {
        const double r = t.host_value(i), g = t.value_in(got, i);
        if (std::isnan(r) && std::isnan(g)) continue;
        if (r != g) {
            if (mismatches < 5) FAIL_CHECK(what << ": element " << i << " is " << g << ", the CPU reference is " << r);
            ++mismatches;
        }
    }
    return mismatches == 0 && bad == 0;
}

bool untouched(const Tensor& t, const std::string& what) {
    const std::vector<uint8_t> got = t.download();
    const bool same_bytes = got == t.host_storage();
    if (!same_bytes) FAIL_CHECK(what << ": the NPU copy changed although the call failed");
    return same_bytes;
}

}  // namespace asc
