// The op exports of a GPU vendor: opkit_vendor_<op> for every op of the spec, each with
// exactly the public op's parameters (written by OPKIT_SPEC_DEFINE_ENTRY from
// spec/ops.h), calling the op's host function (host_ops.h) inside the exception guard.
#include "host_ops.h"
#include "status.h"

namespace opkit_gpu {
namespace {

template <class Args>
opkit_status guarded_run(const Args& a) {
    return guarded(opkit::OpTraits<opkit::OpIdOf<Args>::value>::kName, [&] { return run(a); });
}

}  // namespace
}  // namespace opkit_gpu

#define OPKIT_GPU_EXPORT_OP(name) \
    OPKIT_SPEC_DEFINE_ENTRY(OPKIT_VENDOR_EXPORT, opkit_vendor_, name, opkit_gpu::guarded_run)
OPKIT_FOR_EACH_OP(OPKIT_GPU_EXPORT_OP)
#undef OPKIT_GPU_EXPORT_OP
