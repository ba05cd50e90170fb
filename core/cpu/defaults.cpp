// The candidate-list entries of the built-in CPU defaults, one per op of the spec.
#include "kernels.h"

namespace opkit::cpu {

void* const kDefaults[kOpCount] = {
#define OPKIT_CPU_DEFAULT(name) reinterpret_cast<void*>(static_cast<KernelFn<OpId::name>>(&name)),
    OPKIT_FOR_EACH_OP(OPKIT_CPU_DEFAULT)
#undef OPKIT_CPU_DEFAULT
};

}  // namespace opkit::cpu
