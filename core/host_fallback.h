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

// Host copies of a call's device tensors. The byte ranges of all views are collected
// first; overlapping ranges become one host region, so the host mirrors device memory
// exactly: an in-place op stays in place, and outputs whose ranges interleave (the two
// halves of a fused [rows, 2N] gradient) are written back as one region instead of each
// copying stale bytes over the other's rows.
class HostStaging {
public:
    HostStaging(const Runtime& rt, opkit_device device, opkit_stream stream);
    // Pass 1: each tensor of the call, in parameter order (NULL allowed).
    void add(const opkit_tensor* t, bool output);
    // Copies every region to the host.
    opkit_status copy_in();
    // Pass 2: the host twin of the next tensor added (NULL stays NULL), same order.
    opkit_tensor* next_host();
    // Copies every region holding an output back to the device.
    opkit_status write_back();

private:
    struct View {
        const opkit_tensor* t;
        uintptr_t lo, hi;  // device bytes [lo, hi); empty for no elements
        bool output;
        size_t region;
    };
    struct Region {
        uintptr_t lo, hi;
        std::unique_ptr<char[]> storage;
        char* host;  // lo's twin: same address modulo 64, so every view keeps its alignment
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
    std::vector<View> views_;
    std::vector<Region> regions_;
    std::deque<Shadow> shadows_;
    size_t next_ = 0;
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
    OpTraits<Id>::for_each(host, [&](ParamKind kind, const char*, auto& value) {
        using T = std::decay_t<decltype(value)>;
        if constexpr (std::is_same_v<T, const opkit_tensor*> || std::is_same_v<T, opkit_tensor*>)
            staging.add(value, is_written(kind));
    });
    if (const opkit_status in = staging.copy_in(); in != OPKIT_OK) return in;
    OpTraits<Id>::for_each(host, [&](ParamKind, const char*, auto& value) {
        using T = std::decay_t<decltype(value)>;
        if constexpr (std::is_same_v<T, const opkit_tensor*> || std::is_same_v<T, opkit_tensor*>)
            value = staging.next_host();
        else if constexpr (std::is_same_v<T, opkit_stream>)
            value = nullptr;
    });
    const CandidateList& cpu = rt.devices[0].ops[int32_t(Id)];
    const opkit_status s = reinterpret_cast<cpu::KernelFn<Id>>(cpu.items[cpu.count - 1].fn)(host);
    if (s != OPKIT_OK) return s;
    return staging.write_back();
}

}  // namespace opkit
