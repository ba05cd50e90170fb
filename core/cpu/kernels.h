// The built-in CPU default kernels: one per op, each with exactly the public op's
// signature (OpFn<Id>). They run only after validation, so they may assume every
// invariant validate.h establishes: consistent float dtypes, matching shapes, innermost
// stride 1, no forbidden aliasing, all tensors on the CPU. The only errors left for a
// kernel to report are data-dependent ones (a target or id out of range), which it must
// detect before writing any output.
#pragma once

#include "../op_list.h"

namespace opkit::cpu {

#define OPKIT_CPU_DECLARE(name) extern decltype(::opkit_##name) name;
OPKIT_FOR_EACH_OP(OPKIT_CPU_DECLARE)
#undef OPKIT_CPU_DECLARE

}  // namespace opkit::cpu
