// One opkit op call on the NPU: the descriptors it creates, the temporaries it needs, and
// its aclnn steps, each a two-phase call (audit:209-210).
//
// Every step's phase 1 (aclnn<Op>GetWorkspaceSize) runs before any step's phase 2, so a
// step that is not available (its symbols missing, or a 561xxx "kernel not found" from
// its workspace query) declines the whole call before anything was written: a decline
// must leave every output untouched (opkit_vendor.h). run() then takes one workspace as
// large as the largest step needs from the stream's cache and runs the steps in order on
// the call's stream; they share it, since a stream runs its work in order.
//
// The destructor releases everything on every path: executors that never ran (made
// repeatable, then destroyed: audit:190, 195), tensors, scalars and arrays (each create
// paired with its destroy, audit:192), the stream's cache, and the caller's device.
#pragma once

#include "cann_library.h"
#include "device.h"
#include "errors.h"
#include "view.h"

#include <initializer_list>
#include <utility>
#include <vector>

namespace opkit_ascend {

class OpCall {
public:
    OpCall(const char* op, opkit_device device, opkit_stream stream);
    ~OpCall();
    OpCall(const OpCall&) = delete;
    OpCall& operator=(const OpCall&) = delete;

    // Makes the device current and takes the stream's cache.
    opkit_status begin();

    // Descriptors; a creation that fails is remembered and fails the next step.
    acl::aclTensor* tensor(const View& v);
    acl::aclScalar* scalar(float value);
    acl::aclIntArray* ints(const std::vector<int64_t>& values);
    acl::aclBoolArray* bools(std::initializer_list<bool> values);

    // Device temporaries, all from one block of the stream's cache: each (bytes, &ptr)
    // gets a 512-byte aligned start. Call once, before the first step.
    opkit_status temps(std::initializer_list<std::pair<size_t, void**>> requests);
    // n ones of a float dtype (0 f32, 1 f16, 2 bf16), cached per device.
    opkit_status ones(int float_type, int64_t n, void** out);

    // Phase 1 of one step: aclnn<id>GetWorkspaceSize(args..., &size, &executor).
    template <acl::Op id, class... A>
    opkit_status step(A... args) {
        if (status_ != OPKIT_OK) return status_;
        const OpEntry& e = cann()->ops[int(id)];
        if (!e.workspace) return missing(id);
        uint64_t size = 0;
        acl::aclOpExecutor* executor = nullptr;
        const acl::Status s = reinterpret_cast<acl::WorkspaceFn<id>>(e.workspace)(args..., &size, &executor);
        return phase1_done(id, s, size, executor);
    }
    // Phase 2 of every step, in order, on the call's stream.
    opkit_status run();

    // OPKIT_ERROR_UNSUPPORTED before anything ran, with the reason.
    opkit_status decline(const char* fmt, ...) __attribute__((format(printf, 2, 3)));

    const char* op() const { return op_; }

private:
    opkit_status missing(acl::Op id);
    opkit_status phase1_done(acl::Op id, acl::Status s, uint64_t size, acl::aclOpExecutor* executor);

    struct Step {
        acl::Op op;
        uint64_t workspace;
        acl::aclOpExecutor* executor;  // NULL once phase 2 took it
    };
    const char* op_;
    opkit_device device_;
    acl::Stream stream_;
    opkit_status status_ = OPKIT_OK;
    DeviceScope scope_;  // declared before lease_: the cache is released first
    StreamLease lease_;
    bool begun_ = false;
    std::vector<Step> steps_;
    std::vector<acl::aclTensor*> tensors_;
    std::vector<acl::aclScalar*> scalars_;
    std::vector<acl::aclIntArray*> ints_;
    std::vector<acl::aclBoolArray*> bools_;
};

}  // namespace opkit_ascend
