// softmax forward and backward over the last dimension: one aclnn op each (audit:222-223).
#include "op_call.h"
#include "ops.h"

namespace opkit_ascend {

opkit_status run(const opkit::args::softmax_forward& a) {
    OpCall call("softmax_forward", a.x->device, a.stream);
    OPKIT_ASCEND_TRY(call.begin());
    OPKIT_ASCEND_TRY(call.step<acl::Op::Softmax>(call.tensor(view_of(a.x)), int64_t(a.x->ndim - 1),
                                                 call.tensor(view_of(a.y))));
    return call.run();
}

opkit_status run(const opkit::args::softmax_backward& a) {
    OpCall call("softmax_backward", a.y->device, a.stream);
    OPKIT_ASCEND_TRY(call.begin());
    OPKIT_ASCEND_TRY(call.step<acl::Op::SoftmaxBackward>(call.tensor(view_of(a.dy)), call.tensor(view_of(a.y)),
                                                         int64_t(a.y->ndim - 1), call.tensor(view_of(a.dx))));
    return call.run();
}

}  // namespace opkit_ascend
