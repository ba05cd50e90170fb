// The built-in CPU default kernels: one per op of the spec, each taking the op's argument
// struct (opkit::args::<op>, fields named as the C parameters). They run only after
// validation, so they may assume every invariant validate.h establishes: consistent float
// dtypes, matching shapes, innermost stride 1, no forbidden aliasing, all tensors on the
// CPU. The only errors left for a kernel to report are data-dependent ones (a target or
// id out of range), which it must detect before writing any output.
#pragma once

#include "op_spec.hpp"

namespace opkit::cpu {

#define OPKIT_CPU_DECLARE(name) opkit_status name(const args::name& args);
OPKIT_FOR_EACH_OP(OPKIT_CPU_DECLARE)
#undef OPKIT_CPU_DECLARE

template <OpId Id> using KernelFn = opkit_status (*)(const OpArgs<Id>&);

// The CPU default of each op, indexed by OpId, as stored in the candidate lists.
extern void* const kDefaults[kOpCount];

}  // namespace opkit::cpu
