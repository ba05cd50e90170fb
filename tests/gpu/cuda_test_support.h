// Test support for the cuda vendor: tensors that exist twice, as a host copy (run
// through opkit's CPU defaults, the reference) and as a device copy (run through the
// cuda vendor), with identical storage layouts, so one call shape serves both sides and
// the results compare element by element, padding included.
#pragma once

#include "opkit.h"

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

opkit_dtype f32();
opkit_dtype f16();
opkit_dtype bf16();
opkit_dtype i32();
opkit_dtype i64();
const char* dtype_name(opkit_dtype d);

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

// Host <-> storage conversions.
float load_float(opkit_dtype d, const uint8_t* p);
void store_float(opkit_dtype d, uint8_t* p, float v);
uint16_t float_to_bf16(float v);
float bf16_to_float(uint16_t b);

// How a tensor is stored: `perm` lists logical dimensions outermost first (empty =
// identity; the last logical dimension must stay innermost), each storage row is padded
// by `pad` elements, and the data starts `offset` elements after the allocation.
struct Layout {
    std::vector<int> perm;
    int64_t pad = 0;
    int64_t offset = 0;
};

class Tensor {
public:
    // The device copy lives on device `device_id` of the vendor under test (the
    // multi-GPU tests use 1; everything else 0).
    Tensor(opkit_dtype dtype, std::vector<int64_t> shape, Layout layout = {}, int32_t device_id = 0);
    ~Tensor();
    Tensor(const Tensor&) = delete;
    Tensor& operator=(const Tensor&) = delete;

    opkit_tensor* cpu() { return &cpu_; }
    opkit_tensor* gpu() { return &gpu_; }
    int64_t numel() const;
    opkit_dtype dtype() const { return dtype_; }

    // Fill the view (both copies get the same values once uploaded).
    void random(float lo, float hi, uint64_t seed);
    void random_ints(int64_t lo, int64_t hi, uint64_t seed);  // index tensors
    void set(int64_t flat, double v);                          // one element of the view
    // Every byte of the host storage 0xFF (NaN for floats): shows unwritten outputs.
    void poison();
    // Host storage -> device storage (whole allocation, padding included).
    void upload();
    // Device storage -> a host vector (synchronizes the default stream through opkit).
    std::vector<uint8_t> download() const;

    double host_value(int64_t flat) const;  // the CPU copy, logical row-major index
    double value_in(const std::vector<uint8_t>& storage, int64_t flat) const;
    int64_t offset_of(int64_t flat) const;  // elements from the start of the allocation

    const std::vector<uint8_t>& host_storage() const { return host_; }
    const std::vector<int64_t>& shape() const { return shape_; }
    size_t element_size() const { return size_t(dtype_.bits / 8); }

private:
    opkit_dtype dtype_;
    std::vector<int64_t> shape_, strides_;
    int64_t offset_ = 0;
    opkit_device device_ = kGpu;
    std::vector<uint8_t> host_;
    void* dev_ = nullptr;
    opkit_tensor cpu_{}, gpu_{};
};

// Compares the device copy against the host copy: every view element within the
// tolerance of (op, output, the tensor's dtype) from the one table (core/tolerances.def,
// docs/tolerances.md): |got - ref| <= rtol |ref| + atol S + step, S = max(max|ref|,
// scale_floor), NaN matching NaN; every byte outside the view identical. scale_floor is
// for results that cancel to ~0 from O(1) inputs (rms_norm dx at N = 1, the loss at
// V = 1). Reports the first mismatches through Catch2 and the worst error to
// OPKIT_TOLERANCE_REPORT (tests/support/tolerance_check.h); returns true when all match.
bool same(const Tensor& t, const char* op, const char* output, const std::string& what, double scale_floor = 0.0);
// Bit for bit the same (NaN matching NaN), padding included.
bool identical(const Tensor& t, const std::string& what);

std::string shape_str(const std::vector<int64_t>& s);

}  // namespace cudatest

#define REQUIRE_OK(call)                                                                  \
    do {                                                                                  \
        const opkit_status s_ = (call);                                                   \
        INFO(#call << " -> " << opkit_status_string(s_) << ": " << opkit_last_error_message()); \
        REQUIRE(s_ == OPKIT_OK);                                                          \
    } while (0)
