// Test support for the cuda vendor: tensors that exist twice, as a host copy (run
// through opkit's CPU defaults, the reference) and as a device copy (run through the
// cuda vendor), with identical storage layouts, so one call shape serves both sides and
// the results compare element by element, padding included.
#pragma once

#include "opkit.h"
#include "twin_checks.h"
#include "twin_tensor.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace cudatest {

// The vendor under test: one set of sources builds opkit_cuda_tests and opkit_rocm_tests
// (tests/gpu/CMakeLists.txt); the rocm binary runs on AMD GPUs and, through the
// HIP-over-CUDA test runtime (tests/hip_on_cuda), on NVIDIA ones.
#ifdef OPKIT_GPU_TEST_ROCM
#define OPKIT_GPU_TEST_VENDOR "rocm"
#define OPKIT_GPU_TEST_DEVICE OPKIT_DEVICE_ROCM
#define OPKIT_GPU_TEST_OOM_TEXT "hipErrorOutOfMemory"
#else
#define OPKIT_GPU_TEST_VENDOR "cuda"
#define OPKIT_GPU_TEST_DEVICE OPKIT_DEVICE_CUDA
#define OPKIT_GPU_TEST_OOM_TEXT "CUDA_ERROR_OUT_OF_MEMORY"
#endif
constexpr const char* kVendor = OPKIT_GPU_TEST_VENDOR;    // its name: "cuda", "rocm"
constexpr int32_t kDeviceType = OPKIT_GPU_TEST_DEVICE;    // OPKIT_DEVICE_CUDA, _ROCM
constexpr const char* kOomText = OPKIT_GPU_TEST_OOM_TEXT;  // the runtime's out-of-memory name

constexpr opkit_device kCpu{OPKIT_DEVICE_CPU, 0};
constexpr opkit_device kGpu{kDeviceType, 0};

// The twin tensor and its checks, shared with the ascend suite and opkit-conformance
// (tools/twin_tensor, tests/support/twin_checks.h).
using opkit_twin::bf16;
using opkit_twin::bf16_to_float;
using opkit_twin::dtype_name;
using opkit_twin::f16;
using opkit_twin::f32;
using opkit_twin::float_to_bf16;
using opkit_twin::i32;
using opkit_twin::i64;
using opkit_twin::Layout;
using opkit_twin::load_float;
using opkit_twin::shape_str;
using opkit_twin::store_float;
using test::identical;
using test::same;

// True when a device of the vendor under test is usable. Otherwise the test case is skipped: the reason is
// printed, the caller returns, and the test binary's main() exits with 77 (ctest's
// SKIP_RETURN_CODE) instead of 0 when no case failed, so ctest reports "Skipped", never
// "Passed" with no assertion.
bool cuda_or_skip();
// Skips the calling test case for another reason (printed), with the same effect: the
// process exits 77 unless something failed.
void skip_case(const std::string& why);
// How many test cases cuda_or_skip() skipped in this process, and why.
int skipped_cases();
const std::string& skip_reason();
// The vendor under test's detail string ("" when not loaded) and state (-1 when absent).
std::string cuda_vendor_detail(int32_t* state);

// A twin tensor whose device copy is allocated on device `device_id` of the vendor under
// test when it is made (the multi-GPU tests use 1; everything else 0); a failed
// allocation or copy fails the test case.
class Tensor : public opkit_twin::TwinTensor {
public:
    Tensor(opkit_dtype dtype, std::vector<int64_t> shape, Layout layout = {}, int32_t device_id = 0);

    opkit_tensor* cpu() { return host(); }
    opkit_tensor* gpu() { return device(); }
    // Host storage -> device storage (whole allocation, padding included).
    void upload();
    // Device storage -> a host vector (synchronizes the device through opkit).
    std::vector<uint8_t> download() const { return test::download(*this); }

private:
    opkit_device where_;
};

}  // namespace cudatest
