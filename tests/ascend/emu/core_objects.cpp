// The emulated nnopbase objects (tensors, scalars, arrays, executors), element access for
// the kernels, and the phase-1 / phase-2 machinery every emulated aclnn op goes through.
#include "core_internal.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace emu {
namespace {

std::string hex(const void* p) {
    std::ostringstream o;
    o << p;
    return o.str();
}

std::string shape_str(const int64_t* d, int n) {
    std::string s = "[";
    for (int i = 0; i < n; ++i) s += (i ? "," : "") + std::to_string(d[i]);
    return s + "]";
}

float bf16_to_float(uint16_t b) {
    const uint32_t u = uint32_t(b) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

uint16_t float_to_bf16(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) return uint16_t((u >> 16) | 0x40);
    u += 0x7fffu + ((u >> 16) & 1u);
    return uint16_t(u >> 16);
}

}  // namespace

bool valid_dtype(int d) {
    switch (d) {
        case 0: case 1: case 2: case 3: case 4: case 6: case 7: case 8: case 9: case 10: case 11: case 12: case 13:
        case 16: case 17: case 27: case 29: case 30: case 33: case 34: case 35: case 36: case 37: case 38: case 39:
        case 40: case 41:
            return true;
        default:
            return false;
    }
}

size_t dtype_size(int d) {
    switch (d) {
        case DT_FLOAT16: case DT_BF16: case DT_INT16: case DT_UINT16: return 2;
        case DT_INT64: case DT_UINT64: case DT_DOUBLE: return 8;
        case DT_INT8: case DT_UINT8: case DT_BOOL: return 1;
        default: return 4;
    }
}

const char* dtype_name(int d) {
    switch (d) {
        case DT_FLOAT: return "FLOAT";
        case DT_FLOAT16: return "FLOAT16";
        case DT_BF16: return "BFLOAT16";
        case DT_INT32: return "INT32";
        case DT_INT64: return "INT64";
        case DT_DOUBLE: return "DOUBLE";
        case DT_BOOL: return "BOOL";
        default: return "other";
    }
}

bool valid_format(int f) {
    switch (f) {
        case 0: case 1: case 2: case 3: case 4: case 12: case 16: case 27: case 29: case 30: case 32: case 33: case 35:
        case 47: case 50: case 51: case 52: case 53: case 54:
            return true;
        default:
            return false;
    }
}

// ---------------------------------------------------------------- element access -----

int64_t T::numel() const {
    int64_t n = 1;
    for (int d = 0; d < ndim; ++d) n *= dims[d];
    return n;
}

bool T::contiguous() const {
    int64_t expect = 1;
    for (int d = ndim - 1; d >= 0; --d) {
        if (dims[d] != 1 && strides[d] != expect) return false;
        expect *= dims[d];
    }
    return true;
}

char* T::at(int64_t flat) const {
    int64_t off = offset;
    for (int d = ndim - 1; d >= 0; --d) {
        off += (flat % dims[d]) * strides[d];
        flat /= dims[d];
    }
    return data + off * int64_t(dtype_size(dtype));
}

T tref(const aclTensor* t) {
    T r;
    if (!t) return r;
    r.present = true;
    r.dtype = t->dtype;
    r.ndim = t->ndim;
    for (int d = 0; d < t->ndim; ++d) {
        r.dims[d] = t->dims[d];
        r.strides[d] = t->strides[d];
    }
    r.offset = t->offset;
    r.data = t->data;
    return r;
}

double round_to(int dtype, double v) {
    switch (dtype) {
        case DT_FLOAT: return double(float(v));
        case DT_FLOAT16: return double(_Float16(v));
        case DT_BF16: return double(bf16_to_float(float_to_bf16(float(v))));
        default: return v;
    }
}

std::vector<double> read(const T& t) {
    std::vector<double> v(static_cast<size_t>(t.numel()));
    for (int64_t i = 0; i < t.numel(); ++i) {
        const char* p = t.at(i);
        switch (t.dtype) {
            case DT_FLOAT: { float f; std::memcpy(&f, p, 4); v[size_t(i)] = f; break; }
            case DT_FLOAT16: { _Float16 h; std::memcpy(&h, p, 2); v[size_t(i)] = double(h); break; }
            case DT_BF16: { uint16_t b; std::memcpy(&b, p, 2); v[size_t(i)] = bf16_to_float(b); break; }
            case DT_DOUBLE: { double d; std::memcpy(&d, p, 8); v[size_t(i)] = d; break; }
            case DT_INT32: { int32_t x; std::memcpy(&x, p, 4); v[size_t(i)] = x; break; }
            case DT_INT64: { int64_t x; std::memcpy(&x, p, 8); v[size_t(i)] = double(x); break; }
            default: v[size_t(i)] = NAN;
        }
    }
    return v;
}

std::vector<int64_t> read_ints(const T& t) {
    std::vector<int64_t> v(static_cast<size_t>(t.numel()));
    for (int64_t i = 0; i < t.numel(); ++i) {
        const char* p = t.at(i);
        if (t.dtype == DT_INT64) {
            std::memcpy(&v[size_t(i)], p, 8);
        } else {
            int32_t x;
            std::memcpy(&x, p, 4);
            v[size_t(i)] = x;
        }
    }
    return v;
}

void write(const T& t, const std::vector<double>& v) {
    for (int64_t i = 0; i < t.numel(); ++i) {
        char* p = t.at(i);
        const double x = v[size_t(i)];
        switch (t.dtype) {
            case DT_FLOAT: { const float f = float(x); std::memcpy(p, &f, 4); break; }
            case DT_FLOAT16: { const _Float16 h = _Float16(x); std::memcpy(p, &h, 2); break; }
            case DT_BF16: { const uint16_t b = float_to_bf16(float(x)); std::memcpy(p, &b, 2); break; }
            case DT_DOUBLE: std::memcpy(p, &x, 8); break;
            case DT_INT32: { const int32_t y = int32_t(x); std::memcpy(p, &y, 4); break; }
            case DT_INT64: { const int64_t y = int64_t(x); std::memcpy(p, &y, 8); break; }
            default: break;
        }
    }
}

// ---------------------------------------------------------------- nnopbase -----------

aclTensor* nn_create_tensor(const int64_t* dims, uint64_t ndim, int dtype, const int64_t* strides, int64_t offset,
                            int format, const int64_t* storage, uint64_t storage_ndim, void* data) {
    State& s = state();
    Lock lock(s.mu);
    auto reject = [&](const std::string& why) -> aclTensor* {
        violation(kNnParamInvalid, "aclCreateTensor: " + why);
        return nullptr;
    };
    if (ndim > 8) return reject(std::to_string(ndim) + " view dims (at most 8)");
    if (ndim > 0 && !dims) return reject("viewDims is NULL");
    if (!valid_dtype(dtype)) return reject(std::to_string(dtype) + " is not an aclDataType");
    if (!valid_format(format)) return reject(std::to_string(format) + " is not an aclFormat");
    if (offset < 0) return reject("negative offset " + std::to_string(offset));
    if (storage_ndim == 0 || storage_ndim > 8 || !storage) return reject("no storage dims");
    aclTensor* t = new aclTensor{};
    t->magic = kTensorMagic;
    t->dtype = dtype;
    t->format = format;
    t->ndim = int(ndim);
    int64_t contiguous = 1;
    for (int d = int(ndim) - 1; d >= 0; --d) {
        if (dims[d] < 0) {
            delete t;
            return reject("negative view dim");
        }
        t->dims[d] = dims[d];
        t->strides[d] = strides ? strides[d] : contiguous;  // NULL strides: contiguous (audit:194)
        contiguous *= dims[d];
        if (t->strides[d] < 0) {
            const int64_t bad = t->strides[d];
            delete t;
            return reject("negative stride " + std::to_string(bad) + " (strides must be non-negative)");
        }
    }
    t->offset = offset;
    t->storage.assign(storage, storage + storage_ndim);
    t->data = static_cast<char*>(data);
    s.tensors.insert(t);
    return t;
}

namespace {

template <class O>
aclnnStatus destroy(std::unordered_set<const void*>& live, const O* o, const char* fn) {
    State& s = state();
    Lock lock(s.mu);
    if (!o) return 0;
    if (!live.erase(o)) return violation(kNnParamInvalid, std::string(fn) + "(" + hex(o) + "): not a live object "
                                                          "(destroyed twice, or never created)");
    delete o;
    return 0;
}

}  // namespace

aclnnStatus nn_destroy_tensor(const aclTensor* t) { return destroy(state().tensors, t, "aclDestroyTensor"); }

aclScalar* nn_create_scalar(void* value, int dtype) {
    State& s = state();
    Lock lock(s.mu);
    if (!value) {
        violation(kNnParamNullptr, "aclCreateScalar: value is NULL");
        return nullptr;
    }
    double v;
    switch (dtype) {
        case DT_FLOAT: { float f; std::memcpy(&f, value, 4); v = f; break; }
        case DT_DOUBLE: std::memcpy(&v, value, 8); break;
        case DT_FLOAT16: { _Float16 h; std::memcpy(&h, value, 2); v = double(h); break; }
        case DT_INT32: { int32_t i; std::memcpy(&i, value, 4); v = i; break; }
        case DT_INT64: { int64_t i; std::memcpy(&i, value, 8); v = double(i); break; }
        default:
            violation(kNnParamInvalid, "aclCreateScalar: dtype " + std::to_string(dtype) + " not emulated");
            return nullptr;
    }
    aclScalar* sc = new aclScalar{kScalarMagic, dtype, v};  // copied now: the host value may go (audit:196)
    s.scalars.insert(sc);
    return sc;
}

aclnnStatus nn_destroy_scalar(const aclScalar* sc) { return destroy(state().scalars, sc, "aclDestroyScalar"); }

aclIntArray* nn_create_int_array(const int64_t* values, uint64_t size) {
    State& s = state();
    Lock lock(s.mu);
    if (!values && size) {
        violation(kNnParamNullptr, "aclCreateIntArray: value is NULL");
        return nullptr;
    }
    aclIntArray* a = new aclIntArray{kIntsMagic, std::vector<int64_t>(values, values + size)};
    s.int_arrays.insert(a);
    return a;
}

aclnnStatus nn_destroy_int_array(const aclIntArray* a) { return destroy(state().int_arrays, a, "aclDestroyIntArray"); }

aclBoolArray* nn_create_bool_array(const bool* values, uint64_t size) {
    State& s = state();
    Lock lock(s.mu);
    if (!values && size) {
        violation(kNnParamNullptr, "aclCreateBoolArray: value is NULL");
        return nullptr;
    }
    aclBoolArray* a = new aclBoolArray{kBoolsMagic, std::vector<bool>(values, values + size)};
    s.bool_arrays.insert(a);
    return a;
}

aclnnStatus nn_destroy_bool_array(const aclBoolArray* a) {
    return destroy(state().bool_arrays, a, "aclDestroyBoolArray");
}

aclnnStatus nn_set_repeatable(aclOpExecutor* e) {
    State& s = state();
    Lock lock(s.mu);
    if (!s.executors.count(e)) return violation(kNnParamInvalid, "aclSetAclOpExecutorRepeatable: not a live executor");
    e->repeatable = true;
    return 0;
}

aclnnStatus nn_destroy_executor(aclOpExecutor* e) {
    State& s = state();
    Lock lock(s.mu);
    if (!s.executors.count(e)) return violation(kNnParamInvalid, "aclDestroyAclOpExecutor: not a live executor");
    if (!e->repeatable)
        return violation(kNnParamInvalid, "aclDestroyAclOpExecutor: the executor of aclnn" + e->op +
                                              " is not repeatable; its phase-2 call frees it (audit:195)");
    s.executors.erase(e);
    delete e;
    return 0;
}

aclnnStatus nn_init(const char*) {
    State& s = state();
    Lock lock(s.mu);
    ++s.aclnn_init_calls;
    if (s.aclnn_initialized)
        return violation(kNnInner, "aclnnInit: called again; it may be called only once per process (audit:217)");
    s.aclnn_initialized = true;
    return 0;
}

// ---------------------------------------------------------------- phase 1 ------------

Phase1::Phase1(const char* op, const void* symbol_address) : op_(op) {
    served((std::string("aclnn") + op + "GetWorkspaceSize").c_str(), symbol_address);
    State& s = state();
    Lock lock(s.mu);
    const std::string fn = std::string("aclnn") + op + "GetWorkspaceSize";
    if (!s.initialized) {
        code_ = violation(kNnInner, fn + ": neither aclInit nor aclnnInit ran");
    } else if (current_device() < 0) {
        code_ = violation(kNnInner, fn + ": no device is set on this thread");
    } else if (!std::getenv("ASCEND_OPP_PATH")) {
        // nnopbase finds the kernels through it (audit:117, 343).
        code_ = fail(kNnOppPathNotFound, "EZ9999: " + fn + ": env var ASCEND_OPP_PATH not detected");
    } else if (const int c = inject_code(std::string("ws:") + op)) {
        code_ = fail(c, "EZ9999: " + fn + ": Do not find tiling func of " + op + " (injected " + std::to_string(c) + ")");
    }
}

bool Phase1::require(bool holds, const std::string& what) {
    if (!ok()) return false;
    if (!holds) code_ = violation(kNnParamInvalid, std::string("aclnn") + op_ + "GetWorkspaceSize: " + what);
    return holds;
}

T Phase1::tensor(const aclTensor* t, const char* name, bool optional) {
    if (!ok()) return T{};
    State& s = state();
    Lock lock(s.mu);
    if (!t) {
        if (!optional) code_ = violation(kNnParamNullptr, std::string("aclnn") + op_ + ": " + name + " is NULL");
        return T{};
    }
    const std::string what = std::string("aclnn") + op_ + "GetWorkspaceSize: " + name;
    if (!s.tensors.count(t)) {
        code_ = violation(kNnParamInvalid, what + " is not a live aclTensor (destroyed, or never created)");
        return T{};
    }
    if (t->format != kFormatNd) {
        require(false, std::string(name) + " has format " + std::to_string(t->format) + "; opkit's ops take ND (2)");
        return T{};
    }
    const size_t es = dtype_size(t->dtype);
    if (reinterpret_cast<uintptr_t>(t->data) % 32) {
        require(false, std::string(name) + ": tensorData " + hex(t->data) +
                           " is not 32-byte aligned (aclCreateTensor requires it, audit:192)");
        return T{};
    }
    int64_t storage = 1;
    for (int64_t d : t->storage) storage *= d;
    int64_t numel = 1, last = t->offset;
    for (int d = 0; d < t->ndim; ++d) {
        numel *= t->dims[d];
        last += (t->dims[d] - 1) * t->strides[d];
    }
    if (numel > 0 && last >= storage) {
        require(false, std::string(name) + ": the view " + shape_str(t->dims, t->ndim) + " strides " +
                           shape_str(t->strides, t->ndim) + " offset " + std::to_string(t->offset) +
                           " reaches element " + std::to_string(last) + ", outside its storage of " +
                           std::to_string(storage) + " elements (strides and offset are in elements)");
        return T{};
    }
    const size_t bytes = size_t(storage) * es;
    const Alloc* a = find_alloc(t->data, bytes);
    if (!a) {
        require(false, std::string(name) + ": its storage " + hex(t->data) + " + " + std::to_string(bytes) +
                           " bytes is not inside one aclrtMalloc block (wrong storage size, or not device memory)");
        return T{};
    }
    if (a->device != current_device()) {
        require(false, std::string(name) + " is memory of device " + std::to_string(a->device) + " but device " +
                           std::to_string(current_device()) + " is current");
        return T{};
    }
    handles_.push_back(t);
    ranges_.push_back({t->data, bytes});
    return tref(t);
}

double Phase1::scalar(const aclScalar* sc, const char* name) {
    if (!ok()) return 0;
    State& s = state();
    Lock lock(s.mu);
    if (!sc || !s.scalars.count(sc)) {
        code_ = violation(kNnParamInvalid, std::string("aclnn") + op_ + ": " + name + " is not a live aclScalar");
        return 0;
    }
    handles_.push_back(sc);
    return sc->value;
}

std::vector<int64_t> Phase1::ints(const aclIntArray* a, const char* name) {
    if (!ok()) return {};
    State& s = state();
    Lock lock(s.mu);
    if (!a || !s.int_arrays.count(a)) {
        code_ = violation(kNnParamInvalid, std::string("aclnn") + op_ + ": " + name + " is not a live aclIntArray");
        return {};
    }
    handles_.push_back(a);
    return a->values;
}

std::vector<bool> Phase1::bools(const aclBoolArray* a, const char* name) {
    if (!ok()) return {};
    State& s = state();
    Lock lock(s.mu);
    if (!a || !s.bool_arrays.count(a)) {
        code_ = violation(kNnParamInvalid, std::string("aclnn") + op_ + ": " + name + " is not a live aclBoolArray");
        return {};
    }
    handles_.push_back(a);
    return a->values;
}

bool Phase1::dtype_in(const T& t, const char* name, std::initializer_list<int> allowed) {
    if (!ok() || !t.present) return ok();
    for (int d : allowed)
        if (d == t.dtype) return true;
    return require(false, std::string(name) + " has dtype " + dtype_name(t.dtype) + " (" + std::to_string(t.dtype) +
                              "), which aclnn" + op_ + " does not take");
}

bool Phase1::same_shape(const T& a, const char* an, const T& b, const char* bn) {
    return require(a.shape() == b.shape(), std::string(an) + " " + shape_str(a.dims, a.ndim) + " and " + bn + " " +
                                               shape_str(b.dims, b.ndim) + " differ in shape");
}

bool Phase1::shape_is(const T& t, const char* name, const std::vector<int64_t>& shape) {
    return require(t.shape() == shape, std::string(name) + " has shape " + shape_str(t.dims, t.ndim) + ", expected " +
                                           shape_str(shape.data(), int(shape.size())));
}

aclnnStatus Phase1::done(uint64_t workspace, uint64_t* workspace_size, aclOpExecutor** executor,
                         std::function<std::string()> kernel) {
    if (!ok()) return code_;
    if (!workspace_size || !executor)
        return code_ = violation(kNnParamNullptr, std::string("aclnn") + op_ + ": workspaceSize or executor is NULL");
    State& s = state();
    Lock lock(s.mu);
    aclOpExecutor* e = new aclOpExecutor;
    e->magic = kExecutorMagic;
    e->op = op_;
    e->workspace = workspace;
    e->device = current_device();
    e->kernel = std::move(kernel);
    e->handles = handles_;
    e->ranges = ranges_;
    s.executors.insert(e);
    *workspace_size = workspace;
    *executor = e;
    return 0;
}

uint64_t workspace_for(const char* op, int64_t elements) {
    // Cast and the in-place scalar ops need none; the rest some, different per op.
    const std::string o = op;
    if (o == "Cast" || o == "InplaceMuls") return 0;
    uint64_t h = 0;
    for (char c : o) h = h * 31 + uint64_t(c);
    return 1024 * (1 + h % 5) + uint64_t(elements) * 2;
}

// ---------------------------------------------------------------- phase 2 ------------

aclnnStatus phase2(const char* op, void* workspace, uint64_t size, aclOpExecutor* e, aclrtStream stream,
                   const void* symbol_address) {
    served((std::string("aclnn") + op).c_str(), symbol_address);
    State& s = state();
    Lock lock(s.mu);
    const std::string fn = std::string("aclnn") + op;
    if (!e || !s.executors.count(e))
        return violation(kNnParamInvalid, fn + ": executor " + hex(e) +
                                              " is not live (already run: phase 2 runs an executor once, audit:216; "
                                              "or never created)");
    if (e->op != op) return violation(kNnParamInvalid, fn + ": the executor was made by aclnn" + e->op + "GetWorkspaceSize");
    auto consume = [&]() {
        if (!e->repeatable) {
            s.executors.erase(e);
            delete e;
        }
    };
    if (const int c = inject_code(std::string("exec:") + op)) {
        consume();
        return fail(c, "EZ9999: " + fn + ": launch failed (injected " + std::to_string(c) + ")");
    }
    if (e->device != current_device()) {
        const int dev = e->device;
        consume();
        return violation(kNnParamInvalid, fn + ": executor made on device " + std::to_string(dev) +
                                              ", run with device " + std::to_string(current_device()) + " current");
    }
    if (size < e->workspace) {
        const uint64_t need = e->workspace;
        consume();
        return violation(kNnParamInvalid, fn + ": workspaceSize " + std::to_string(size) + " < the " +
                                              std::to_string(need) + " bytes phase 1 asked for");
    }
    if (e->workspace > 0) {
        const Alloc* a = workspace ? find_alloc(workspace, size_t(e->workspace)) : nullptr;
        if (!a || a->device != current_device()) {
            consume();
            return violation(kNnParamInvalid, fn + ": workspace " + hex(workspace) +
                                                  " is not device memory of the current device covering the " +
                                                  std::to_string(size) + " bytes asked for");
        }
    }
    for (const void* h : e->handles)
        if (!s.tensors.count(h) && !s.scalars.count(h) && !s.int_arrays.count(h) && !s.bool_arrays.count(h)) {
            consume();
            return violation(kNnParamInvalid, fn + ": an argument of phase 1 was destroyed before the executor ran");
        }
    std::string why;
    Stream* st = stream_of(stream, &why);
    if (!st) {
        consume();
        return violation(kRtStreamContext, fn + ": " + why);
    }
    Task t;
    t.what = fn;
    t.ranges = e->ranges;
    char* ws = static_cast<char*>(workspace);
    const uint64_t ws_size = e->workspace;
    if (ws_size) t.ranges.push_back({ws, size_t(ws_size)});
    const bool kernel_fault = inject(std::string("kernel:") + op);
    std::function<std::string()> kernel = e->kernel;
    t.run = [ws, ws_size, kernel, kernel_fault]() -> std::string {
        // The kernel owns its workspace while it runs: anything else stored there is lost.
        if (ws_size) std::memset(ws, 0xA5, size_t(ws_size));
        if (kernel_fault) return "injected fault";
        return kernel();
    };
    st->tasks.push_back(std::move(t));
    consume();
    return 0;
}

}  // namespace emu
