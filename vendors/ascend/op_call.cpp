#include "op_call.h"

#include <cstdarg>
#include <cstdio>
#include <memory>

namespace opkit_ascend {
namespace {
constexpr uintptr_t kTensorDataAlign = 32;  // aclCreateTensor's tensorData (audit:192)
constexpr size_t kTempAlign = 512;
}  // namespace

OpCall::OpCall(const char* op, opkit_device device, opkit_stream stream)
    : op_(op), device_(device), stream_(stream) {}

OpCall::~OpCall() {
    const Cann* c = cann();
    if (!c) return;
    bool released_any = false;
    for (Step& s : steps_)
        if (s.executor) {
            (void)c->nn.aclSetAclOpExecutorRepeatable(s.executor);
            (void)c->nn.aclDestroyAclOpExecutor(s.executor);
            released_any = true;
        }
    for (acl::aclTensor* t : tensors_) (void)c->nn.aclDestroyTensor(t);
    for (acl::aclScalar* s : scalars_) (void)c->nn.aclDestroyScalar(s);
    for (acl::aclIntArray* a : ints_) (void)c->nn.aclDestroyIntArray(a);
    for (acl::aclBoolArray* a : bools_) (void)c->nn.aclDestroyBoolArray(a);
    // Whatever clean-up left in the runtime's message buffer belongs to no report.
    if (released_any) (void)take_recent_message();
}

opkit_status OpCall::begin() {
    if (!cann()) return fail(OPKIT_ERROR_INTERNAL, "%s: the ascend vendor is not initialized", op_);
    OPKIT_ASCEND_TRY(scope_.enter(device_.device_id));
    aclnn_init_once();
    lease_.acquire(scope_.dev(), stream_);
    begun_ = true;
    return OPKIT_OK;
}

acl::aclTensor* OpCall::tensor(const View& v) {
    if (status_ != OPKIT_OK) return nullptr;
    // tensorData must be 32-byte aligned (audit:192); a view may start anywhere. So the
    // storage starts at the view's start rounded down to 32 bytes, and the view's offset
    // (in elements, audit:193) covers the difference — within the same allocation, whose
    // base aclrtMalloc aligns (audit:165). The storage is 1-D, counted from there to the
    // view's last element, the way ggml counts it from its data pointer (audit:56-58).
    const uintptr_t start = reinterpret_cast<uintptr_t>(v.start);
    const uintptr_t base = start & ~(kTensorDataAlign - 1);
    const int64_t es = int64_t(size_of(v.dtype));
    const int64_t offset = int64_t(start - base) / es;
    int64_t extent = offset + 1;
    for (int d = 0; d < v.ndim; ++d) extent += (v.dims[d] - 1) * v.strides[d];
    const int64_t storage[1] = {extent};
    acl::aclTensor* t = cann()->nn.aclCreateTensor(v.dims, uint64_t(v.ndim), v.dtype, v.strides, offset,
                                                   acl::Format::ND, storage, 1, reinterpret_cast<void*>(base));
    if (!t) {
        const std::string text = take_recent_message();
        status_ = fail(OPKIT_ERROR_DEVICE, "%s: aclCreateTensor returned NULL for a %d-D view of dtype %d%s%s", op_,
                       v.ndim, int(v.dtype), text.empty() ? "" : ": ", text.c_str());
        return nullptr;
    }
    tensors_.push_back(t);
    return t;
}

acl::aclScalar* OpCall::scalar(float value) {
    if (status_ != OPKIT_OK) return nullptr;
    acl::aclScalar* s = cann()->nn.aclCreateScalar(&value, acl::DataType::Float);
    if (!s) {
        status_ = fail(OPKIT_ERROR_DEVICE, "%s: aclCreateScalar returned NULL: %s", op_, take_recent_message().c_str());
        return nullptr;
    }
    scalars_.push_back(s);
    return s;
}

acl::aclIntArray* OpCall::ints(const std::vector<int64_t>& values) {
    if (status_ != OPKIT_OK) return nullptr;
    acl::aclIntArray* a = cann()->nn.aclCreateIntArray(values.data(), values.size());
    if (!a) {
        status_ = fail(OPKIT_ERROR_DEVICE, "%s: aclCreateIntArray returned NULL: %s", op_,
                       take_recent_message().c_str());
        return nullptr;
    }
    ints_.push_back(a);
    return a;
}

acl::aclBoolArray* OpCall::bools(std::initializer_list<bool> values) {
    if (status_ != OPKIT_OK) return nullptr;
    std::unique_ptr<bool[]> v(new bool[values.size()]);
    size_t i = 0;
    for (bool b : values) v[i++] = b;
    acl::aclBoolArray* a = cann()->nn.aclCreateBoolArray(v.get(), values.size());
    if (!a) {
        status_ = fail(OPKIT_ERROR_DEVICE, "%s: aclCreateBoolArray returned NULL: %s", op_,
                       take_recent_message().c_str());
        return nullptr;
    }
    bools_.push_back(a);
    return a;
}

opkit_status OpCall::temps(std::initializer_list<std::pair<size_t, void**>> requests) {
    size_t total = 0;
    for (const auto& r : requests) total += (r.first + kTempAlign - 1) / kTempAlign * kTempAlign;
    if (total == 0) return OPKIT_OK;
    void* block = nullptr;
    const opkit_status s = lease_.reserve(lease_.cache().temps, total, op_, &block);
    if (s != OPKIT_OK) return status_ = s;
    char* p = static_cast<char*>(block);
    for (const auto& r : requests) {
        *r.second = p;
        p += (r.first + kTempAlign - 1) / kTempAlign * kTempAlign;
    }
    return OPKIT_OK;
}

opkit_status OpCall::ones(int float_type, int64_t n, void** out) {
    const opkit_status s = opkit_ascend::ones(scope_.dev(), float_type, n, out);
    if (s != OPKIT_OK) status_ = s;
    return s;
}

opkit_status OpCall::missing(acl::Op id) {
    std::string libs;
    for (const std::string& p : cann()->op_paths) libs += (libs.empty() ? "" : ", ") + p;
    return status_ = fail(OPKIT_ERROR_UNSUPPORTED,
                          "%s: aclnn%s / aclnn%sGetWorkspaceSize are not exported by the loaded op libraries (%s); "
                          "the ascend vendor declines the call",
                          op_, acl::kOpNames[int(id)], acl::kOpNames[int(id)], libs.c_str());
}

opkit_status OpCall::phase1_done(acl::Op id, acl::Status s, uint64_t size, acl::aclOpExecutor* executor) {
    const char* name = acl::kOpNames[int(id)];
    if (s == acl::kNnSuccess && executor) {
        steps_.push_back({id, size, executor});
        return OPKIT_OK;
    }
    const std::string text = take_recent_message();
    if (s == acl::kNnSuccess)
        return status_ = fail(OPKIT_ERROR_DEVICE, "%s: aclnn%sGetWorkspaceSize returned success but no executor", op_,
                              name);
    if (acl::is_inner_error(s))
        return status_ = fail(OPKIT_ERROR_UNSUPPORTED,
                              "%s: aclnn%sGetWorkspaceSize failed with %s%s%s: the op is not available with this CANN "
                              "install and device, so the ascend vendor declines the call",
                              op_, name, code_name(s).c_str(), text.empty() ? "" : ": ", text.c_str());
    return status_ = fail(OPKIT_ERROR_DEVICE, "%s: aclnn%sGetWorkspaceSize failed: %s%s%s", op_, name,
                          code_name(s).c_str(), text.empty() ? "" : ": ", text.c_str());
}

opkit_status OpCall::run() {
    if (status_ != OPKIT_OK) return status_;
    uint64_t need = 0;
    for (const Step& s : steps_) need = s.workspace > need ? s.workspace : need;
    void* workspace = nullptr;
    if (need > 0) OPKIT_ASCEND_TRY(status_ = lease_.reserve(lease_.cache().work, size_t(need), op_, &workspace));
    for (Step& s : steps_) {
        acl::aclOpExecutor* executor = s.executor;
        s.executor = nullptr;  // phase 2 takes it, whatever it returns
        const acl::Status st =
            cann()->ops[int(s.op)].run(s.workspace ? workspace : nullptr, s.workspace, executor, stream_);
        if (st != acl::kNnSuccess) {
            const std::string text = take_recent_message();
            return status_ = fail(OPKIT_ERROR_DEVICE, "%s: aclnn%s failed: %s%s%s", op_, acl::kOpNames[int(s.op)],
                                  code_name(st).c_str(), text.empty() ? "" : ": ", text.c_str());
        }
    }
    return OPKIT_OK;
}

opkit_status OpCall::decline(const char* fmt, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return status_ = fail(OPKIT_ERROR_UNSUPPORTED, "%s: %s; the ascend vendor declines the call", op_, buf);
}

}  // namespace opkit_ascend
