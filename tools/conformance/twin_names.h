// The twin tensor (tools/twin_tensor, shared with the vendors' test suites) under the
// names the conformance tool uses.
#pragma once

#include "twin_tensor.h"

namespace conformance {

using opkit_twin::bf16;
using opkit_twin::dtype_name;
using opkit_twin::f16;
using opkit_twin::f32;
using opkit_twin::i32;
using opkit_twin::i64;
using opkit_twin::is_float;
using opkit_twin::Layout;
using opkit_twin::load_float;
using opkit_twin::shape_str;
using opkit_twin::store_float;
using opkit_twin::TwinTensor;

}  // namespace conformance
