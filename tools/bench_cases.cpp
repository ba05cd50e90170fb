// The case catalogue of opkit-bench (see bench_cases.h): shapes per group, random inputs
// uploaded once, and one call per case through the public API.
#include "bench_cases.h"

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <utility>

namespace opkit_bench {
namespace {

constexpr opkit_dtype kF32 = {OPKIT_DTYPE_FLOAT, 32, 1};
constexpr opkit_dtype kF16 = {OPKIT_DTYPE_FLOAT, 16, 1};
constexpr opkit_dtype kBF16 = {OPKIT_DTYPE_BFLOAT, 16, 1};
constexpr opkit_dtype kInt64 = {OPKIT_DTYPE_INT, 64, 1};
constexpr opkit_device kHost = {OPKIT_DEVICE_CPU, 0};

// ------------------------------------------------------------ host data ------------

// splitmix64: fast enough to fill gigabytes of logits in seconds, and reproducible.
class Random {
public:
    explicit Random(uint64_t seed) : state_(seed) {}
    uint64_t next() {
        uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    // 24 random bits: every value is exactly representable in fp32.
    float uniform(float lo, float hi) { return lo + (hi - lo) * float(next() >> 40) * 0x1p-24f; }
    int64_t below(int64_t limit) { return int64_t(next() % uint64_t(limit)); }

private:
    uint64_t state_;
};

uint32_t float_bits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}

float bits_float(uint32_t u) {
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

// Round to nearest even, as PyTorch's .to(torch.bfloat16) does; NaN stays NaN.
uint16_t f32_to_bf16(float f) {
    const uint32_t u = float_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return uint16_t((u >> 16) | 0x40);
    return uint16_t((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

// Round to nearest even with overflow to infinity and IEEE subnormals (F. Giesen's
// float_to_half_fast3_rtne); portable where _Float16 is not.
uint16_t f32_to_f16(float f) {
    uint32_t u = float_bits(f);
    const uint32_t sign = u & 0x80000000u;
    u ^= sign;
    uint16_t half;
    if (u >= (127u + 16u) << 23) {  // too large for f16: infinity (or NaN)
        half = u > (255u << 23) ? 0x7e00 : 0x7c00;
    } else if (u < (113u << 23)) {  // f16 subnormal or zero: let the FPU round the shift
        const uint32_t magic = ((127u - 15u) + (23u - 10u) + 1u) << 23;
        half = uint16_t(float_bits(bits_float(u) + bits_float(magic)) - magic);
    } else {
        const uint32_t mantissa_odd = (u >> 13) & 1u;
        u -= (127u - 15u) << 23;  // rebias the exponent
        u += 0xfffu + mantissa_odd;
        half = uint16_t(u >> 13);
    }
    return uint16_t(half | (sign >> 16));
}

// fp32 values to the device representation of dtype.
void encode(const std::vector<float>& values, opkit_dtype dtype, std::vector<unsigned char>* out) {
    out->resize(values.size() * (dtype.bits / 8));
    if (dtype.bits == 32) {
        std::memcpy(out->data(), values.data(), out->size());
        return;
    }
    uint16_t (*round)(float) = dtype.code == OPKIT_DTYPE_BFLOAT ? f32_to_bf16 : f32_to_f16;
    for (size_t i = 0; i < values.size(); ++i) {
        const uint16_t h = round(values[i]);
        std::memcpy(out->data() + 2 * i, &h, 2);
    }
}

// Host data goes up in chunks so that a 4 GiB logits tensor never needs 4 GiB of host
// staging on top of it.
constexpr int64_t kChunkElements = int64_t(1) << 22;

Error upload(DeviceTensor& t, size_t offset, const std::vector<unsigned char>& host,
             opkit_stream stream) {
    opkit_tensor* v = t.view();
    return check(opkit_memcpy(static_cast<unsigned char*>(v->data) + offset, v->device, host.data(),
                              kHost, host.size(), stream),
                 "opkit_memcpy (host to device)");
}

// Fills t chunk by chunk with values from next(rng), encoded by encode_chunk.
template <typename Value, typename Next, typename Encode>
Error fill(DeviceTensor& t, uint64_t seed, opkit_stream stream, Next next, Encode encode_chunk) {
    Random rng(seed);
    std::vector<Value> values;
    std::vector<unsigned char> bytes;
    size_t offset = 0;
    for (int64_t done = 0; done < t.elements(); done += kChunkElements) {
        values.resize(size_t(std::min(kChunkElements, t.elements() - done)));
        for (Value& v : values) v = next(rng);
        encode_chunk(values, &bytes);
        if (Error e = upload(t, offset, bytes, stream); !e.ok()) return e;
        offset += bytes.size();
    }
    return {};
}

}  // namespace

// ------------------------------------------------------------ public helpers -------

const char* group_name(Group group) {
    switch (group) {
    case Group::small: return "small";
    case Group::medium: return "medium";
    case Group::large: return "large";
    }
    return "?";
}

const std::vector<FloatType>& float_types() {
    static const std::vector<FloatType> types = {{"f32", kF32}, {"f16", kF16}, {"bf16", kBF16}};
    return types;
}

Error check(opkit_status status, const std::string& what) {
    if (status == OPKIT_OK) return {};
    return {status, what + ": " + opkit_status_string(status) + ": " + opkit_last_error_message()};
}

double tensor_bytes(const opkit_tensor* t) {
    double n = t->dtype.bits / 8;
    for (int32_t i = 0; i < t->ndim; ++i) n *= double(t->shape[i]);
    return n;
}

DeviceTensor::DeviceTensor(opkit_device device, opkit_dtype dtype, std::vector<int64_t> shape)
    : shape_(std::move(shape)) {
    view_.device = device;
    view_.dtype = dtype;
    view_.ndim = int32_t(shape_.size());
    view_.shape = shape_.data();
}

DeviceTensor::~DeviceTensor() { opkit_free(view_.device, view_.data); }

Error DeviceTensor::allocate() {
    return check(opkit_malloc(view_.device, bytes(), &view_.data), "opkit_malloc");
}

int64_t DeviceTensor::elements() const {
    int64_t n = 1;
    for (int64_t d : shape_) n *= d;
    return n;
}

size_t DeviceTensor::bytes() const { return size_t(elements()) * (view_.dtype.bits / 8); }

Error fill_uniform(DeviceTensor& t, uint64_t seed, opkit_stream stream) {
    const opkit_dtype dtype = t.view()->dtype;
    return fill<float>(
        t, seed, stream, [](Random& r) { return r.uniform(-2.0f, 2.0f); },
        [dtype](const std::vector<float>& v, std::vector<unsigned char>* out) { encode(v, dtype, out); });
}

Error fill_indices(DeviceTensor& t, int64_t limit, uint64_t seed, opkit_stream stream) {
    return fill<int64_t>(
        t, seed, stream, [limit](Random& r) { return r.below(limit); },
        [](const std::vector<int64_t>& v, std::vector<unsigned char>* out) {
            out->resize(v.size() * sizeof(int64_t));
            std::memcpy(out->data(), v.data(), out->size());
        });
}

namespace {

// ------------------------------------------------------------ case building --------

// Allocates and fills the tensors of one case. The first failure sticks and every later
// step becomes a no-op, so a prepare function reads as a straight list of tensors and
// reports the first problem at the end.
class CaseBuilder {
public:
    CaseBuilder(const Setup& setup, PreparedCase* out) : setup_(setup), out_(out) {}

    // An input of the case's dtype with random values.
    opkit_tensor* random(std::vector<int64_t> shape) { return add(setup_.type.dtype, std::move(shape), Fill::uniform); }
    // An fp32 input with random values (dloss).
    opkit_tensor* random_f32(std::vector<int64_t> shape) { return add(kF32, std::move(shape), Fill::uniform); }
    // An output of the case's dtype; the op writes all of it, so it is left unwritten.
    opkit_tensor* output(std::vector<int64_t> shape) { return add(setup_.type.dtype, std::move(shape), Fill::none); }
    // An fp32 output: saved statistics (rstd, mean, lse) and losses.
    opkit_tensor* output_f32(std::vector<int64_t> shape) { return add(kF32, std::move(shape), Fill::none); }
    // int64 indices in [0, limit): targets and token ids.
    opkit_tensor* indices(std::vector<int64_t> shape, int64_t limit) {
        index_limit_ = limit;
        return add(kInt64, std::move(shape), Fill::indices);
    }

    // Runs a call once while preparing: the forward that produces a backward's saved
    // statistics.
    void run_once(const char* what, const std::function<opkit_status()>& call) {
        if (error_.ok()) error_ = check(call(), what);
    }

    Error finish(std::function<opkit_status()> call, double bytes, double flops = 0) {
        if (error_.ok()) {
            out_->call = std::move(call);
            out_->bytes = bytes;
            out_->flops = flops;
        }
        return error_;
    }

    opkit_stream stream() const { return setup_.stream; }

private:
    enum class Fill { none, uniform, indices };

    opkit_tensor* add(opkit_dtype dtype, std::vector<int64_t> shape, Fill how) {
        out_->tensors.push_back(std::make_unique<DeviceTensor>(setup_.device, dtype, std::move(shape)));
        DeviceTensor& t = *out_->tensors.back();
        if (error_.ok()) error_ = t.allocate();
        // Distinct seeds: two inputs with identical data could hide a swapped argument.
        const uint64_t seed = next_seed_++;
        if (error_.ok() && how == Fill::uniform) error_ = fill_uniform(t, seed, setup_.stream);
        if (error_.ok() && how == Fill::indices) error_ = fill_indices(t, index_limit_, seed, setup_.stream);
        return t.view();
    }

    const Setup& setup_;
    PreparedCase* out_;
    Error error_;
    uint64_t next_seed_ = 1;
    int64_t index_limit_ = 1;
};

double sum_bytes(std::initializer_list<const opkit_tensor*> tensors) {
    double total = 0;
    for (const opkit_tensor* t : tensors) total += tensor_bytes(t);
    return total;
}

std::string join_dims(const std::vector<int64_t>& dims) {
    std::string s;
    for (int64_t d : dims) s += (s.empty() ? "" : "x") + std::to_string(d);
    return s;
}

Shape pick(Group group, bool on_cpu, const std::vector<int64_t> (&device)[3],
           const std::vector<int64_t> (&cpu)[3]) {
    const std::vector<int64_t>& dims = (on_cpu ? cpu : device)[int(group)];
    return {dims, join_dims(dims)};
}

// ------------------------------------------------------------ shapes ---------------
// The CPU sizes are smaller so that a full CPU run takes about a minute.

// [rows, N] of the row-wise ops (norms, softmax, gated activations, axpy).
Shape row_shape(Group group, bool on_cpu) {
    static const std::vector<int64_t> device[3] = {{256, 1024}, {4096, 4096}, {32768, 4096}};
    static const std::vector<int64_t> cpu[3] = {{256, 1024}, {1024, 4096}, {4096, 4096}};
    return pick(group, on_cpu, device, cpu);
}

// x [B, T, H, D]; cos/sin are [T, D].
Shape rope_shape(Group group, bool on_cpu) {
    static const std::vector<int64_t> device[3] = {{1, 128, 8, 64}, {2, 2048, 32, 128}, {4, 4096, 32, 128}};
    static const std::vector<int64_t> cpu[3] = {{1, 128, 8, 64}, {1, 1024, 32, 128}, {2, 2048, 32, 128}};
    return pick(group, on_cpu, device, cpu);
}

// q [B, T, Hq, D] and k [B, T, Hk, D] with grouped KV heads (Hk = Hq / 4, Llama-3 8B's
// 32 and 8); cos/sin are [T, D]. The label is q's shape, then k's head count.
Shape rope_qk_shape(Group group, bool on_cpu) {
    Shape q = rope_shape(group, on_cpu);
    const int64_t hk = std::max<int64_t>(1, q.dims[2] / 4);
    return {{q.dims[0], q.dims[1], q.dims[2], hk, q.dims[3]}, q.label + " k heads " + std::to_string(hk)};
}

// logits [rows, V]: Llama-2 and Llama-3 vocabularies. The CPU's medium has 1024 rows, not
// the device's 4096: those would make it as large as the CPU's large case.
Shape cross_entropy_shape(Group group, bool on_cpu) {
    static const std::vector<int64_t> device[3] = {{256, 32000}, {4096, 32000}, {8192, 128256}};
    static const std::vector<int64_t> cpu[3] = {{256, 32000}, {1024, 32000}, {1024, 128256}};
    return pick(group, on_cpu, device, cpu);
}

// {ids, V, D}: weight [V, D] (Llama-3 8B on a device), ids [count].
Shape embedding_shape(Group group, bool on_cpu) {
    const int64_t counts[3] = {256, 4096, 16384};
    const int64_t V = on_cpu ? 32000 : 128256, D = on_cpu ? 1024 : 4096;
    const int64_t ids = counts[int(group)];
    return {{ids, V, D}, std::to_string(ids) + " ids of " + std::to_string(V) + "x" + std::to_string(D)};
}

// {M, N, K}, square.
Shape matmul_shape(Group group, bool on_cpu) {
    const int64_t device[3] = {512, 2048, 8192}, cpu[3] = {256, 512, 1024};
    const int64_t n = (on_cpu ? cpu : device)[int(group)];
    return {{n, n, n}, join_dims({n, n, n})};
}

// ------------------------------------------------------------ cases ----------------
// Each prepare function lists the op's tensors, then hands the call and its effective
// bytes (every tensor the op must read or write, counted once) to finish().

constexpr float kRmsEps = 1e-6f, kLayerEps = 1e-5f;

Error rms_norm_forward(const Setup& s, const Shape& shape, PreparedCase* out) {
    CaseBuilder b(s, out);
    const int64_t rows = shape.dims[0], n = shape.dims[1];
    opkit_tensor* x = b.random({rows, n});
    opkit_tensor* w = b.random({n});
    opkit_tensor* y = b.output({rows, n});
    opkit_tensor* rstd = b.output_f32({rows});
    opkit_stream st = b.stream();
    return b.finish([=] { return opkit_rms_norm_forward(x, w, kRmsEps, 0.0f, y, rstd, st); },
                    sum_bytes({x, w, y, rstd}));
}

Error rms_norm_backward(const Setup& s, const Shape& shape, PreparedCase* out) {
    CaseBuilder b(s, out);
    const int64_t rows = shape.dims[0], n = shape.dims[1];
    opkit_tensor* dy = b.random({rows, n});
    opkit_tensor* x = b.random({rows, n});
    opkit_tensor* w = b.random({n});
    opkit_tensor* rstd = b.output_f32({rows});
    opkit_tensor* dx = b.output({rows, n});
    opkit_tensor* dw = b.output({n});
    opkit_stream st = b.stream();
    // dx doubles as the forward's y: only rstd is kept.
    b.run_once("rms_norm_forward (for rstd)",
               [=] { return opkit_rms_norm_forward(x, w, kRmsEps, 0.0f, dx, rstd, st); });
    return b.finish([=] { return opkit_rms_norm_backward(dy, x, w, rstd, 0.0f, dx, dw, st); },
                    sum_bytes({dy, x, w, rstd, dx, dw}));
}

Error layer_norm_forward(const Setup& s, const Shape& shape, PreparedCase* out) {
    CaseBuilder b(s, out);
    const int64_t rows = shape.dims[0], n = shape.dims[1];
    opkit_tensor* x = b.random({rows, n});
    opkit_tensor* w = b.random({n});
    opkit_tensor* bias = b.random({n});
    opkit_tensor* y = b.output({rows, n});
    opkit_tensor* mean = b.output_f32({rows});
    opkit_tensor* rstd = b.output_f32({rows});
    opkit_stream st = b.stream();
    return b.finish([=] { return opkit_layer_norm_forward(x, w, bias, kLayerEps, y, mean, rstd, st); },
                    sum_bytes({x, w, bias, y, mean, rstd}));
}

Error layer_norm_backward(const Setup& s, const Shape& shape, PreparedCase* out) {
    CaseBuilder b(s, out);
    const int64_t rows = shape.dims[0], n = shape.dims[1];
    opkit_tensor* dy = b.random({rows, n});
    opkit_tensor* x = b.random({rows, n});
    opkit_tensor* w = b.random({n});
    opkit_tensor* mean = b.output_f32({rows});
    opkit_tensor* rstd = b.output_f32({rows});
    opkit_tensor* dx = b.output({rows, n});
    opkit_tensor* dw = b.output({n});
    opkit_tensor* dbias = b.output({n});
    opkit_stream st = b.stream();
    b.run_once("layer_norm_forward (for mean, rstd)",
               [=] { return opkit_layer_norm_forward(x, w, nullptr, kLayerEps, dx, mean, rstd, st); });
    return b.finish([=] { return opkit_layer_norm_backward(dy, x, w, mean, rstd, dx, dw, dbias, st); },
                    sum_bytes({dy, x, w, mean, rstd, dx, dw, dbias}));
}

Error softmax_forward(const Setup& s, const Shape& shape, PreparedCase* out) {
    CaseBuilder b(s, out);
    opkit_tensor* x = b.random(shape.dims);
    opkit_tensor* y = b.output(shape.dims);
    opkit_stream st = b.stream();
    return b.finish([=] { return opkit_softmax_forward(x, y, st); }, sum_bytes({x, y}));
}

Error softmax_backward(const Setup& s, const Shape& shape, PreparedCase* out) {
    CaseBuilder b(s, out);
    opkit_tensor* dy = b.random(shape.dims);
    opkit_tensor* y = b.random(shape.dims);  // not a real softmax output: the cost is the same
    opkit_tensor* dx = b.output(shape.dims);
    opkit_stream st = b.stream();
    return b.finish([=] { return opkit_softmax_backward(dy, y, dx, st); }, sum_bytes({dy, y, dx}));
}

Error swiglu_forward(const Setup& s, const Shape& shape, PreparedCase* out) {
    CaseBuilder b(s, out);
    opkit_tensor* a = b.random(shape.dims);
    opkit_tensor* g = b.random(shape.dims);
    opkit_tensor* y = b.output(shape.dims);
    opkit_stream st = b.stream();
    return b.finish([=] { return opkit_swiglu_forward(a, g, y, st); }, sum_bytes({a, g, y}));
}

Error swiglu_backward(const Setup& s, const Shape& shape, PreparedCase* out) {
    CaseBuilder b(s, out);
    opkit_tensor* dy = b.random(shape.dims);
    opkit_tensor* a = b.random(shape.dims);
    opkit_tensor* g = b.random(shape.dims);
    opkit_tensor* da = b.output(shape.dims);
    opkit_tensor* dg = b.output(shape.dims);
    opkit_stream st = b.stream();
    return b.finish([=] { return opkit_swiglu_backward(dy, a, g, da, dg, st); }, sum_bytes({dy, a, g, da, dg}));
}

Error geglu_forward(const Setup& s, const Shape& shape, PreparedCase* out) {
    CaseBuilder b(s, out);
    opkit_tensor* a = b.random(shape.dims);
    opkit_tensor* g = b.random(shape.dims);
    opkit_tensor* y = b.output(shape.dims);
    opkit_stream st = b.stream();
    return b.finish([=] { return opkit_geglu_forward(a, g, OPKIT_GELU_TANH, y, st); }, sum_bytes({a, g, y}));
}

Error geglu_backward(const Setup& s, const Shape& shape, PreparedCase* out) {
    CaseBuilder b(s, out);
    opkit_tensor* dy = b.random(shape.dims);
    opkit_tensor* a = b.random(shape.dims);
    opkit_tensor* g = b.random(shape.dims);
    opkit_tensor* da = b.output(shape.dims);
    opkit_tensor* dg = b.output(shape.dims);
    opkit_stream st = b.stream();
    return b.finish([=] { return opkit_geglu_backward(dy, a, g, OPKIT_GELU_TANH, da, dg, st); },
                    sum_bytes({dy, a, g, da, dg}));
}

Error rope_forward(const Setup& s, const Shape& shape, PreparedCase* out) {
    CaseBuilder b(s, out);
    const int64_t T = shape.dims[1], D = shape.dims[3];
    opkit_tensor* x = b.random(shape.dims);
    opkit_tensor* cos = b.random({T, D});
    opkit_tensor* sin = b.random({T, D});
    opkit_tensor* y = b.output(shape.dims);
    opkit_stream st = b.stream();
    return b.finish([=] { return opkit_rope_forward(x, cos, sin, y, st); }, sum_bytes({x, cos, sin, y}));
}

Error rope_backward(const Setup& s, const Shape& shape, PreparedCase* out) {
    CaseBuilder b(s, out);
    const int64_t T = shape.dims[1], D = shape.dims[3];
    opkit_tensor* dy = b.random(shape.dims);
    opkit_tensor* cos = b.random({T, D});
    opkit_tensor* sin = b.random({T, D});
    opkit_tensor* dx = b.output(shape.dims);
    opkit_stream st = b.stream();
    return b.finish([=] { return opkit_rope_backward(dy, cos, sin, dx, st); }, sum_bytes({dy, cos, sin, dx}));
}

// q and k of rope_qk_shape: q [B,T,Hq,D] and k [B,T,Hk,D] (dims {B, T, Hq, Hk, D}).
struct QKDims {
    std::vector<int64_t> q, k, angles;
};
QKDims qk_dims(const Shape& shape) {
    const std::vector<int64_t>& d = shape.dims;
    return {{d[0], d[1], d[2], d[4]}, {d[0], d[1], d[3], d[4]}, {d[1], d[4]}};
}

// Forward and backward take the same tensors: (q, k, cos, sin) in, two outputs.
Error rope_qk(const Setup& s, const Shape& shape, PreparedCase* out, bool backward) {
    CaseBuilder b(s, out);
    const QKDims d = qk_dims(shape);
    opkit_tensor* q = b.random(d.q);
    opkit_tensor* k = b.random(d.k);
    opkit_tensor* cos = b.random(d.angles);
    opkit_tensor* sin = b.random(d.angles);
    opkit_tensor* q_out = b.output(d.q);
    opkit_tensor* k_out = b.output(d.k);
    opkit_stream st = b.stream();
    const auto fn = backward ? opkit_rope_qk_backward : opkit_rope_qk_forward;
    return b.finish([=] { return fn(q, k, cos, sin, q_out, k_out, st); }, sum_bytes({q, k, cos, sin, q_out, k_out}));
}
Error rope_qk_forward(const Setup& s, const Shape& shape, PreparedCase* out) { return rope_qk(s, shape, out, false); }
Error rope_qk_backward(const Setup& s, const Shape& shape, PreparedCase* out) { return rope_qk(s, shape, out, true); }

constexpr int64_t kIgnoreIndex = -100;  // PyTorch's default; no random target hits it

// The fused loss + gradient of training: one pass writes dlogits next to the loss.
Error cross_entropy_forward(const Setup& s, const Shape& shape, PreparedCase* out) {
    CaseBuilder b(s, out);
    const int64_t rows = shape.dims[0], V = shape.dims[1];
    opkit_tensor* logits = b.random({rows, V});
    opkit_tensor* target = b.indices({rows}, V);
    opkit_tensor* loss = b.output_f32({});
    opkit_tensor* lse = b.output_f32({rows});
    opkit_tensor* dlogits = b.output({rows, V});
    opkit_stream st = b.stream();
    return b.finish(
        [=] {
            return opkit_cross_entropy_forward(logits, target, kIgnoreIndex, 0.0f, OPKIT_REDUCTION_MEAN,
                                               loss, lse, dlogits, st);
        },
        sum_bytes({logits, target, loss, lse, dlogits}));
}

Error cross_entropy_backward(const Setup& s, const Shape& shape, PreparedCase* out) {
    CaseBuilder b(s, out);
    const int64_t rows = shape.dims[0], V = shape.dims[1];
    opkit_tensor* dloss = b.random_f32({});
    opkit_tensor* logits = b.random({rows, V});
    opkit_tensor* target = b.indices({rows}, V);
    opkit_tensor* loss = b.output_f32({});
    opkit_tensor* lse = b.output_f32({rows});
    opkit_tensor* dlogits = b.output({rows, V});
    opkit_stream st = b.stream();
    b.run_once("cross_entropy_forward (for lse)", [=] {
        return opkit_cross_entropy_forward(logits, target, kIgnoreIndex, 0.0f, OPKIT_REDUCTION_MEAN, loss,
                                           lse, nullptr, st);
    });
    return b.finish(
        [=] {
            return opkit_cross_entropy_backward(dloss, logits, target, lse, kIgnoreIndex, 0.0f,
                                                OPKIT_REDUCTION_MEAN, dlogits, st);
        },
        sum_bytes({dloss, logits, target, lse, dlogits}));
}

Error embedding_forward(const Setup& s, const Shape& shape, PreparedCase* out) {
    CaseBuilder b(s, out);
    const int64_t count = shape.dims[0], V = shape.dims[1], D = shape.dims[2];
    opkit_tensor* weight = b.random({V, D});
    opkit_tensor* ids = b.indices({count}, V);
    opkit_tensor* y = b.output({count, D});
    opkit_stream st = b.stream();
    // Only the gathered rows of weight are read: as many bytes as y.
    return b.finish([=] { return opkit_embedding_forward(weight, ids, y, st); }, sum_bytes({ids, y, y}));
}

Error embedding_backward(const Setup& s, const Shape& shape, PreparedCase* out) {
    CaseBuilder b(s, out);
    const int64_t count = shape.dims[0], V = shape.dims[1], D = shape.dims[2];
    opkit_tensor* dy = b.random({count, D});
    opkit_tensor* ids = b.indices({count}, V);
    opkit_tensor* dweight = b.output({V, D});
    opkit_stream st = b.stream();
    return b.finish([=] { return opkit_embedding_backward(dy, ids, -1, dweight, st); },
                    sum_bytes({dy, ids, dweight}));
}

Error matmul(const Setup& s, const Shape& shape, PreparedCase* out) {
    CaseBuilder b(s, out);
    const int64_t M = shape.dims[0], N = shape.dims[1], K = shape.dims[2];
    opkit_tensor* a = b.random({M, K});
    opkit_tensor* bm = b.random({K, N});
    opkit_tensor* c = b.output({M, N});
    opkit_stream st = b.stream();
    return b.finish([=] { return opkit_matmul(a, bm, c, 1.0f, 0.0f, 0, 0, st); }, sum_bytes({a, bm, c}),
                    2.0 * double(M) * double(N) * double(K));
}

Error axpy(const Setup& s, const Shape& shape, PreparedCase* out) {
    CaseBuilder b(s, out);
    opkit_tensor* x = b.random(shape.dims);
    opkit_tensor* y = b.random(shape.dims);
    opkit_stream st = b.stream();
    // A small alpha keeps y finite in f16 over thousands of accumulating calls.
    return b.finish([=] { return opkit_axpy(1e-3f, x, y, st); }, sum_bytes({x, y, y}));
}

}  // namespace

const std::vector<OpBench>& op_benches() {
    static const std::vector<OpBench> benches = {
        {"rms_norm_forward", "read x, weight; write y, rstd", row_shape, rms_norm_forward},
        {"rms_norm_backward", "read dy, x, weight, rstd; write dx, dweight", row_shape, rms_norm_backward},
        {"layer_norm_forward", "read x, weight, bias; write y, mean, rstd", row_shape, layer_norm_forward},
        {"layer_norm_backward", "read dy, x, weight, mean, rstd; write dx, dweight, dbias", row_shape,
         layer_norm_backward},
        {"softmax_forward", "read x; write y (2n)", row_shape, softmax_forward},
        {"softmax_backward", "read dy, y; write dx (3n)", row_shape, softmax_backward},
        {"swiglu_forward", "read a, b; write y (3n)", row_shape, swiglu_forward},
        {"swiglu_backward", "read dy, a, b; write da, db (5n)", row_shape, swiglu_backward},
        {"geglu_forward", "read a, b; write y (3n), tanh approximation", row_shape, geglu_forward},
        {"geglu_backward", "read dy, a, b; write da, db (5n), tanh approximation", row_shape, geglu_backward},
        {"rope_forward", "read x, cos, sin; write y (2n + 2*T*D)", rope_shape, rope_forward},
        {"rope_backward", "read dy, cos, sin; write dx (2n + 2*T*D)", rope_shape, rope_backward},
        {"cross_entropy_forward",
         "read logits, target; write loss (MEAN), lse, dlogits (fused loss + gradient, 2n)",
         cross_entropy_shape, cross_entropy_forward},
        {"cross_entropy_backward", "read dloss, logits, target, lse; write dlogits (2n)", cross_entropy_shape,
         cross_entropy_backward},
        {"embedding_forward", "read ids and the ids*D gathered weight elements; write y (2*ids*D)",
         embedding_shape, embedding_forward},
        {"embedding_backward", "read dy (ids*D), ids; write dweight (V*D)", embedding_shape,
         embedding_backward},
        {"matmul", "read a, b; write c (beta = 0); TFLOP/s = 2*M*N*K / time", matmul_shape, matmul},
        {"axpy", "read x, y; write y (3n)", row_shape, axpy},
        {"rope_qk_forward", "read q, k, cos, sin once each; write q_out, k_out (2(nq + nk) + 2*T*D)",
         rope_qk_shape, rope_qk_forward},
        {"rope_qk_backward", "read dq_out, dk_out, cos, sin once each; write dq, dk (2(nq + nk) + 2*T*D)",
         rope_qk_shape, rope_qk_backward},
    };
    return benches;
}

}  // namespace opkit_bench
