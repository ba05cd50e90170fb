#include "verify.h"

#include "cpu/convert.h"
#include "log.h"
#include "tensor.h"
#include "tolerances.h"

#include <atomic>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <deque>
#include <mutex>
#include <set>
#include <vector>

namespace opkit {

struct VerifyState {
    double share = 1.0;
    uint64_t period = 1;  // verify one call in `period` (round(1 / share))
    std::atomic<uint64_t> calls{0};
    std::mutex mutex;
    std::set<std::string> reported;  // (op, vendor, dtype) keys already logged

    bool first_time(const std::string& key) {
        std::lock_guard<std::mutex> lock(mutex);
        return reported.insert(key).second;
    }
};

std::shared_ptr<VerifyState> make_verify_state(double share) {
    auto s = std::make_shared<VerifyState>();
    s->share = share;
    const double period = share >= 1.0 ? 1.0 : std::round(1.0 / share);
    s->period = period >= 1e18 ? uint64_t(1e18) : uint64_t(period);
    logf(OPKIT_LOG_INFO,
         "OPKIT_VERIFY=%g: %s vendor-served call%s runs again on the CPU defaults and is "
         "compared (slow; the first mismatch per op, vendor and dtype is logged at ERROR)",
         share, share >= 1.0 ? "every" : ("one in " + std::to_string(s->period)).c_str(),
         share >= 1.0 ? "" : "s");
    return s;
}

bool verify_this_call(VerifyState& s) {
    if (s.period == 1) return true;
    return s.calls.fetch_add(1, std::memory_order_relaxed) % s.period == 0;
}

namespace {

struct Shadow {
    opkit_tensor t;
    int64_t shape[kMaxDims];
    int64_t strides[kMaxDims];
};

// Bytes from the view's first element to one past its last (offsets are non-negative:
// validated).
size_t extent_bytes(const opkit_tensor* t) {
    if (numel(t) <= 0) return 0;
    int64_t last = 0;
    for (int32_t i = 0; i < t->ndim; ++i) last += (t->shape[i] - 1) * stride_of(t, i);
    return size_t(last + 1) * dtype_size(dtype_of(t));
}

// Elements from the view's first element to logical (row-major) element `flat`.
int64_t offset_of(const opkit_tensor* t, int64_t flat) {
    int64_t off = 0;
    for (int32_t i = t->ndim - 1; i >= 0; --i) {
        const int64_t idx = flat % t->shape[i];
        flat /= t->shape[i];
        off += idx * stride_of(t, i);
    }
    return off;
}

std::string shape_str(const opkit_tensor* t) {
    std::string s = "[";
    for (int32_t i = 0; i < t->ndim; ++i) s += (i ? "," : "") + std::to_string(t->shape[i]);
    return s + "]";
}

std::string index_str(const opkit_tensor* t, int64_t flat) {
    std::vector<int64_t> idx(size_t(t->ndim > 0 ? t->ndim : 0));
    for (int32_t i = t->ndim - 1; i >= 0; --i) {
        idx[size_t(i)] = flat % t->shape[i];
        flat /= t->shape[i];
    }
    std::string s = "[";
    for (size_t i = 0; i < idx.size(); ++i) s += (i ? "," : "") + std::to_string(idx[i]);
    return s + "]";
}

std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char* fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return buf;
}

}  // namespace

struct VerifiedCall::Impl {
    const Runtime& rt;
    OpId op;
    int32_t vendor;
    opkit_device dev;
    opkit_stream stream;
    const loader::Vendor* memory = nullptr;  // whose memcpy reads a non-CPU device
    bool ok = true;
    bool synchronized = false;
    std::string problem;  // why verification could not happen

    struct Buffer {
        const char* lo;
        size_t bytes;
        std::unique_ptr<char[]> host;
        bool loaded;
    };
    struct Arg {
        ParamKind kind;
        const char* name;
        const opkit_tensor* device;
        const opkit_tensor* host;
        size_t buffer;
    };
    std::vector<Buffer> buffers;
    std::deque<Shadow> shadows;
    std::vector<Arg> args;

    Impl(const Runtime& r, OpId o, int32_t v, opkit_device d, opkit_stream s)
        : rt(r), op(o), vendor(v), dev(d), stream(s) {}

    const char* op_name() const { return kOpNames[int32_t(op)]; }
    const std::string& vendor_name() const { return rt.vendors[size_t(vendor)].name; }

    // Device (or the CPU vendor's host) memory -> host; device work on the stream done.
    opkit_status read(void* dst, const char* src, size_t bytes) {
        if (dev.device_type == OPKIT_DEVICE_CPU) {
            std::memcpy(dst, src, bytes);
            return OPKIT_OK;
        }
        if (!memory) {
            const DeviceEntry* d = rt.device(dev.device_type);
            if (!d || d->memory_vendor < 0)
                return fail(OPKIT_ERROR_UNSUPPORTED, "no vendor provides memory functions for %s",
                            device_type_name(dev.device_type));
            memory = &rt.vendors[size_t(d->memory_vendor)];
        }
        if (!synchronized) {  // the inputs may still be being written by earlier work
            OPKIT_TRY(call_vendor(*memory, "OPKIT_VERIFY: synchronize", memory->memory.synchronize_fn, dev,
                                  stream));
            synchronized = true;
        }
        OPKIT_TRY(call_vendor(*memory, "OPKIT_VERIFY: memcpy to host", memory->memory.memcpy_fn, dst,
                              opkit_device{OPKIT_DEVICE_CPU, 0}, static_cast<const void*>(src), dev, bytes,
                              stream));
        return call_vendor(*memory, "OPKIT_VERIFY: synchronize", memory->memory.synchronize_fn, dev, stream);
    }

    opkit_tensor* stage(ParamKind kind, const char* name, const opkit_tensor* t) {
        const char* lo = base_ptr(t);
        const size_t bytes = extent_bytes(t);
        size_t b = 0;
        while (b < buffers.size() && !(buffers[b].lo == lo && buffers[b].bytes == bytes)) ++b;
        if (b == buffers.size())
            buffers.push_back({lo, bytes, std::unique_ptr<char[]>(new char[bytes ? bytes : 1]), false});
        Buffer& buf = buffers[b];
        // A pure output's old contents do not matter, unless another argument reads them.
        const bool read_by_op = kind != ParamKind::out && kind != ParamKind::opt_out;
        if (read_by_op && !buf.loaded) {
            if (bytes && read(buf.host.get(), lo, bytes) != OPKIT_OK) {
                problem = format("copying %s to the host failed: %s", name, last_error());
                ok = false;
                return nullptr;
            }
            buf.loaded = true;
        }
        shadows.emplace_back();
        Shadow& s = shadows.back();
        s.t = *t;
        s.t.data = buf.host.get();
        s.t.byte_offset = 0;
        s.t.device = {OPKIT_DEVICE_CPU, 0};
        for (int32_t i = 0; i < t->ndim && i < kMaxDims; ++i) {
            s.shape[i] = t->shape[i];
            s.strides[i] = stride_of(t, i);
        }
        s.t.shape = s.shape;
        s.t.strides = s.strides;
        args.push_back({kind, name, t, &s.t, b});
        return &s.t;
    }

    // The call's dtype: its 16-bit float tensors' dtype if it has any, else f32 (the
    // statistics are f32 whatever the op's dtype).
    const char* call_dtype() const {
        for (const Arg& a : args) {
            const DType d = dtype_of(a.device);
            if (d == DType::f16 || d == DType::bf16) return dtype_name(a.device->dtype);
        }
        return "f32";
    }

    std::string arguments() const {
        std::string s;
        for (const Arg& a : args)
            s += (s.empty() ? "" : ", ") + std::string(a.name) + " " + dtype_name(a.device->dtype) + " " +
                 shape_str(a.device);
        return s;
    }

    std::string where() const {
        return format("%s by vendor '%s' on %s:%d (%s; %s)", op_name(), vendor_name().c_str(),
                      device_type_name(dev.device_type), int(dev.device_id), call_dtype(), arguments().c_str());
    }

    bool first_time() const {
        return rt.verify->first_time(std::string(op_name()) + "/" + vendor_name() + "/" + call_dtype());
    }

    void check(opkit_status cpu_status) {
        if (cpu_status != OPKIT_OK) {
            if (first_time())
                logf(OPKIT_LOG_WARN, "OPKIT_VERIFY: %s: not checked: the CPU defaults failed on the same inputs: %s",
                     where().c_str(), last_error());
            return;
        }
        std::string report, also;
        std::vector<char> vendor_bytes;
        for (const Arg& a : args) {
            if (!is_written(a.kind)) continue;
            const DType dt = dtype_of(a.device);
            const int64_t n = numel(a.device);
            if (n <= 0 || !is_float(dt)) continue;
            const tolerance::Entry* tol = tolerance::find(op_name(), a.name, a.device->dtype);
            if (!tol) {
                if (first_time())
                    logf(OPKIT_LOG_WARN, "OPKIT_VERIFY: %s: no tolerance for output %s in %s (core/tolerances.def)",
                         where().c_str(), a.name, dtype_name(a.device->dtype));
                continue;
            }
            const Buffer& buf = buffers[a.buffer];
            vendor_bytes.resize(buf.bytes);
            if (read(vendor_bytes.data(), buf.lo, buf.bytes) != OPKIT_OK) {
                if (first_time())
                    logf(OPKIT_LOG_WARN, "OPKIT_VERIFY: %s: not checked: reading output %s failed: %s",
                         where().c_str(), a.name, last_error());
                return;
            }
            const size_t es = dtype_size(dt);
            const char* got_base = vendor_bytes.data();
            const char* ref_base = buf.host.get();
            auto at = [&](const char* base, int64_t i) {
                return double(cpu::load_one(dt, base + size_t(offset_of(a.device, i)) * es));
            };
            const tolerance::Result r = tolerance::compare(
                *tol, n, [&](int64_t i) { return at(got_base, i); }, [&](int64_t i) { return at(ref_base, i); });
            if (r.ok()) continue;
            if (!report.empty()) {
                also += (also.empty() ? "" : ", ") + std::string(a.name);
                continue;
            }
            report = format(
                "output %s %s %s: %lld of %lld elements outside tolerance; worst element %lld (index %s): "
                "vendor %.9g, CPU %.9g (|diff| %.3g, allowed %.3g = rtol %.3g x |CPU| + atol %.3g x max|CPU| %.3g)",
                a.name, dtype_name(a.device->dtype), shape_str(a.device).c_str(), (long long)r.mismatches,
                (long long)n, (long long)r.worst_index, index_str(a.device, r.worst_index).c_str(), r.worst_got,
                r.worst_ref, std::fabs(r.worst_got - r.worst_ref), r.worst_allowed, tol->rtol, tol->atol, r.scale);
        }
        if (report.empty() || !first_time()) return;
        logf(OPKIT_LOG_ERROR,
             "OPKIT_VERIFY: %s differs from the CPU defaults: %s%s%s. The caller gets the vendor's result; "
             "further mismatches of %s by '%s' in %s are not logged",
             where().c_str(), report.c_str(), also.empty() ? "" : "; also outside tolerance: ", also.c_str(),
             op_name(), vendor_name().c_str(), call_dtype());
    }
};

VerifiedCall::VerifiedCall(const Runtime& rt, OpId op, int32_t vendor, opkit_device device,
                           opkit_stream stream) noexcept {
    try {
        impl_ = std::make_unique<Impl>(rt, op, vendor, device, stream);
    } catch (...) {
        impl_.reset();
    }
}

VerifiedCall::~VerifiedCall() = default;

opkit_tensor* VerifiedCall::stage(ParamKind kind, const char* name, const opkit_tensor* t) noexcept {
    if (!impl_ || !impl_->ok || !t) return nullptr;
    try {
        return impl_->stage(kind, name, t);
    } catch (...) {
        impl_->ok = false;
        impl_->problem = "out of host memory for the host copies";
        return nullptr;
    }
}

bool VerifiedCall::staged() const noexcept {
    if (!impl_) return false;
    if (!impl_->ok) {
        try {
            if (impl_->first_time())
                logf(OPKIT_LOG_WARN, "OPKIT_VERIFY: %s: not checked: %s", impl_->where().c_str(),
                     impl_->problem.c_str());
        } catch (...) {
        }
    }
    return impl_->ok;
}

void VerifiedCall::check(opkit_status cpu_status) noexcept {
    if (!impl_ || !impl_->ok) return;
    try {
        impl_->check(cpu_status);
    } catch (...) {
        // Verification never fails the caller's call (an allocation failure while
        // comparing only loses this comparison).
    }
}

}  // namespace opkit
