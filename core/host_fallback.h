// Host fallback (OPKIT_HOST_FALLBACK=1): when nobody serves an op on a device, copy the
// op's tensors to host memory, run the CPU default, and copy the outputs back. Slow by
// design; logged once per op so that it never goes unnoticed.
#pragma once

#include "cpu/kernels.h"
#include "runtime.h"

#include <deque>
#include <memory>
#include <type_traits>
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

// Runs the CPU default on host copies of the call's tensors: every tensor is staged
// (written ones, by their spec kind, are copied back), the stream becomes NULL (CPU),
// scalars pass through.
template <OpId Id>
opkit_status run_on_host(Runtime& rt, opkit_device dev, const OpArgs<Id>& args) {
    log_fallback_once(rt, Id, dev);
    HostStaging staging(rt, dev, args.stream);
    OpArgs<Id> host = args;
    opkit_status status = OPKIT_OK;
    OpTraits<Id>::for_each(host, [&](ParamKind kind, const char*, auto& value) {
        using T = std::decay_t<decltype(value)>;
        if constexpr (std::is_same_v<T, const opkit_tensor*> || std::is_same_v<T, opkit_tensor*>) {
            opkit_tensor* h = nullptr;
            if (status == OPKIT_OK) status = staging.stage(value, is_written(kind), &h);
            value = h;
        } else if constexpr (std::is_same_v<T, opkit_stream>) {
            value = nullptr;
        }
    });
    if (status != OPKIT_OK) return status;
    const CandidateList& cpu = rt.devices[0].ops[int32_t(Id)];
    const opkit_status s = reinterpret_cast<cpu::KernelFn<Id>>(cpu.items[cpu.count - 1].fn)(host);
    if (s != OPKIT_OK) return s;
    return staging.write_back();
}

}  // namespace opkit
