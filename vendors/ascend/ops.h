// The op implementations: one run() per op of the spec (spec/ops.h), each mapping the
// opkit op to aclnn calls (docs/ascend-vendor.md has the table). exports.cpp defines an
// opkit_vendor_<op> for every op of the spec and calls these, so an op added to the spec
// fails to link here until it has one.
#pragma once

#include "op_spec.hpp"

namespace opkit_ascend {

#define OPKIT_ASCEND_DECLARE_RUN_(name) opkit_status run(const opkit::args::name& a);
OPKIT_FOR_EACH_OP(OPKIT_ASCEND_DECLARE_RUN_)
#undef OPKIT_ASCEND_DECLARE_RUN_

}  // namespace opkit_ascend
