// Host fallback (OPKIT_HOST_FALLBACK=1): when nobody serves an op on a device, copy the
// op's tensors to host memory, run the CPU default, and copy the outputs back. Slow by
// design; logged once per op so that it never goes unnoticed.
#pragma once

#include "cpu/kernels.h"
#include "runtime.h"

#include <deque>
#include <memory>
#include <tuple>
#include <vector>

namespace opkit {

// Host copies of a call's device tensors. Identical views share one host buffer, so an
// in-place op stays in place on the host.
class HostStaging {
public:
    HostStaging(const Runtime& rt, opkit_device device, opkit_stream stream);
    // A host twin of t (NULL stays NULL); outputs are copied back by write_back().
    opkit_status stage(const opkit_tensor* t, bool output, opkit_tensor** host);
    opkit_status write_back();

private:
    struct Buffer {
        const char* device_lo;
        size_t bytes;
        std::unique_ptr<char[]> host;
        bool output;
    };
    struct Shadow {
        opkit_tensor t;
        int64_t shape[8];
        int64_t strides[8];
    };
    const Runtime& rt_;
    opkit_device device_;
    opkit_stream stream_;
    std::vector<Buffer> buffers_;
    std::deque<Shadow> shadows_;
};

void log_fallback_once(Runtime& rt, OpId id, opkit_device dev);

namespace fallback_detail {

// Maps one op argument to its host twin: tensors are staged, the stream becomes NULL
// (CPU), scalars pass through.
struct ArgMapper {
    HostStaging& staging;
    opkit_status status = OPKIT_OK;

    const opkit_tensor* operator()(const opkit_tensor* t) {
        opkit_tensor* h = nullptr;
        if (status == OPKIT_OK) status = staging.stage(t, false, &h);
        return h;
    }
    opkit_tensor* operator()(opkit_tensor* t) {
        opkit_tensor* h = nullptr;
        if (status == OPKIT_OK) status = staging.stage(t, true, &h);
        return h;
    }
    opkit_stream operator()(opkit_stream) { return nullptr; }
    float operator()(float v) { return v; }
    int32_t operator()(int32_t v) { return v; }
    int64_t operator()(int64_t v) { return v; }
};

template <class T> opkit_stream stream_of(T) { return nullptr; }
inline opkit_stream stream_of(opkit_stream s) { return s; }

}  // namespace fallback_detail

template <OpId Id, class... Args>
opkit_status run_on_host(Runtime& rt, opkit_device dev, Args... args) {
    log_fallback_once(rt, Id, dev);
    opkit_stream stream = nullptr;
    ((stream = fallback_detail::stream_of(args)), ...);  // the stream is the last argument
    HostStaging staging(rt, dev, stream);
    fallback_detail::ArgMapper map{staging};
    // Braced init keeps the staging order left to right.
    std::tuple<Args...> host_args{map(args)...};
    if (map.status != OPKIT_OK) return map.status;
    const auto cpu_fn = reinterpret_cast<OpFn<Id>>(rt.devices[0].ops[int32_t(Id)]
                                                       .items[rt.devices[0].ops[int32_t(Id)].count - 1]
                                                       .fn);
    const opkit_status s = std::apply(cpu_fn, host_args);
    if (s != OPKIT_OK) return s;
    return staging.write_back();
}

}  // namespace opkit
