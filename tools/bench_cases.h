// The case catalogue of opkit-bench: for every op of the public API, the shape of one
// benchmark case per shape group, the tensors it needs (random data, uploaded once), the
// call that runs it, and how many bytes (or FLOPs) one call must move. Everything goes
// through the public C API only, exactly as an application would call it, so what is
// measured is what users get, dispatch and validation included.
#pragma once

#include "opkit.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace opkit_bench {

enum class Group { small, medium, large };
const char* group_name(Group group);

struct FloatType {
    const char* name;  // "f32", "f16", "bf16"
    opkit_dtype dtype;
};
// f32, f16, bf16: every float dtype the ops take.
const std::vector<FloatType>& float_types();

// The first failed opkit call of a step. The library's explanation is copied at once
// because the next opkit call on this thread (a free, say) replaces it.
struct Error {
    opkit_status status = OPKIT_OK;
    std::string message;  // "<what>: OPKIT_ERROR_...: <opkit_last_error_message()>"
    bool ok() const { return status == OPKIT_OK; }
};
Error check(opkit_status status, const std::string& what);

// Bytes of a contiguous tensor's elements.
double tensor_bytes(const opkit_tensor* t);

// Device memory viewed as one contiguous tensor; freed with opkit_free when destroyed.
// Owned through unique_ptr and never moved, so view() stays a stable opkit_tensor*.
class DeviceTensor {
public:
    DeviceTensor(opkit_device device, opkit_dtype dtype, std::vector<int64_t> shape);
    ~DeviceTensor();
    DeviceTensor(const DeviceTensor&) = delete;
    DeviceTensor& operator=(const DeviceTensor&) = delete;

    Error allocate();
    opkit_tensor* view() { return &view_; }
    int64_t elements() const;
    size_t bytes() const;

private:
    std::vector<int64_t> shape_;
    opkit_tensor view_{};
};

// Fills with uniform random values in [-2, 2), generated on the host as fp32 and rounded
// to the tensor's dtype. Never zeros: a zero buffer can take fast paths (and on the CPU
// untouched pages all map the one zero page), which would flatter the numbers.
Error fill_uniform(DeviceTensor& t, uint64_t seed, opkit_stream stream);
// Fills an int64 tensor with random indices in [0, limit).
Error fill_indices(DeviceTensor& t, int64_t limit, uint64_t seed, opkit_stream stream);

// The device, dtype and stream one case runs with.
struct Setup {
    opkit_device device;
    FloatType type;
    opkit_stream stream;
};

// A case ready to run. Its tensors live exactly as long as it does.
struct PreparedCase {
    std::function<opkit_status()> call;  // one call of the op on the setup's stream
    double bytes = 0;                    // effective bytes of one call (OpBench::bytes_model)
    double flops = 0;                    // matmul only: 2*M*N*K
    std::vector<std::unique_ptr<DeviceTensor>> tensors;
};

// The sizes of one case: dims for the builder, label for people.
struct Shape {
    std::vector<int64_t> dims;
    std::string label;
};

struct OpBench {
    const char* op;           // the public op name, as opkit_op_resolve knows it
    const char* bytes_model;  // what PreparedCase::bytes counts, for the legend and the JSON
    Shape (*shape)(Group group, bool on_cpu);
    Error (*prepare)(const Setup& setup, const Shape& shape, PreparedCase* out);
};

// Every op of the public API, in opkit_op_name order.
const std::vector<OpBench>& op_benches();

}  // namespace opkit_bench
