// HIP-over-CUDA test runtime: the per-stream launch counter behind the test-only exports
//   uint64_t opkit_hipshim_launches(hipStream_t stream);  // successful hipModuleLaunchKernel
//                                                          // calls on exactly that handle
//   uint64_t opkit_hipshim_launches_total(void);           // on all streams
// A test compares them before and after an op to prove the op used the caller's stream.
#pragma once

#include <hip/hip_runtime_api.h>

namespace hipshim {

void count_launch(hipStream_t stream) noexcept;

// A new stream starts at 0 even when the handle value was used by a destroyed stream.
void reset_launch_count(hipStream_t stream) noexcept;

}  // namespace hipshim
