// The public op entry points, opkit_<op>, one per op of the spec (spec/ops.h): each packs
// its arguments into the op's argument struct and hands it to run_op (op_entry.h). No
// parameter list is written here; an op added to the spec gets its entry point, and
// fails to build until it has a validate_op rule and a CPU default.
#include "op_entry.h"

#define OPKIT_DEFINE_PUBLIC_OP(name) OPKIT_SPEC_DEFINE_ENTRY(OPKIT_API, opkit_, name, opkit::run_op)
OPKIT_FOR_EACH_OP(OPKIT_DEFINE_PUBLIC_OP)
#undef OPKIT_DEFINE_PUBLIC_OP
