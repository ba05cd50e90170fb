// The host function of every op: takes the op's arguments by name (opkit::args::<op>,
// derived from spec/ops.h), checks what only a device cares about (dtype, alignment),
// and launches. exports.cpp defines each opkit_vendor_<op> from the spec and calls the
// overload for its argument struct, so an op added to the spec does not compile until
// it has one here.
#pragma once

#include "op_spec.hpp"

namespace opkit_gpu {

namespace args = opkit::args;

// ops_norms.cpp
opkit_status run(const args::rms_norm_forward& a);
opkit_status run(const args::rms_norm_backward& a);
opkit_status run(const args::layer_norm_forward& a);
opkit_status run(const args::layer_norm_backward& a);
// ops_softmax.cpp
opkit_status run(const args::softmax_forward& a);
opkit_status run(const args::softmax_backward& a);
// ops_elementwise.cpp
opkit_status run(const args::swiglu_forward& a);
opkit_status run(const args::swiglu_backward& a);
opkit_status run(const args::geglu_forward& a);
opkit_status run(const args::geglu_backward& a);
opkit_status run(const args::axpy& a);
// ops_rope.cpp
opkit_status run(const args::rope_forward& a);
opkit_status run(const args::rope_backward& a);
opkit_status run(const args::rope_qk_forward& a);
opkit_status run(const args::rope_qk_backward& a);
// ops_cross_entropy.cpp
opkit_status run(const args::cross_entropy_forward& a);
opkit_status run(const args::cross_entropy_backward& a);
// ops_embedding.cpp
opkit_status run(const args::embedding_forward& a);
opkit_status run(const args::embedding_backward& a);
// ops_matmul.cpp (the BLAS call itself is the vendor's: Runtime::blas_matmul)
opkit_status run(const args::matmul& a);

}  // namespace opkit_gpu
