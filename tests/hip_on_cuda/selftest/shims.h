// HIP-over-CUDA self-test: the three shim libraries, loaded the way the rocm vendor
// loads the real ones — dlopen (here by path, so the test never picks up Debian's real
// libamdhip64 by accident) and dlsym of every name in the contract, typed by
// vendors/rocm/hip_api.h and blas_api.h. The test is a HIP host program like the vendor:
// built against AMD's headers, no CUDA header or library in sight.
#pragma once

#include "blas_api.h"
#include "hip_api.h"

#include <cstdint>
#include <string>
#include <vector>

namespace hipshim_test {

namespace lt = opkit_rocm::lt;
namespace rb = opkit_rocm::rb;

struct LtApi {
#define HIPSHIM_TEST_LT_MEMBER(name, pointer) lt::name##_fn name = nullptr;
    OPKIT_HIPBLASLT_FUNCTIONS(HIPSHIM_TEST_LT_MEMBER)
#undef HIPSHIM_TEST_LT_MEMBER
};

struct RbApi {
#define HIPSHIM_TEST_RB_MEMBER(name, pointer) rb::name##_fn name = nullptr;
    OPKIT_ROCBLAS_FUNCTIONS(HIPSHIM_TEST_RB_MEMBER)
#undef HIPSHIM_TEST_RB_MEMBER
};

struct Shims {
    std::string dir;  // holds hip/, hipblaslt/, rocblas/
    opkit_rocm::Hip hip;
    uint64_t (*launches)(hipStream_t) = nullptr;
    uint64_t (*launches_total)() = nullptr;
    LtApi lt;
    RbApi rb;
    std::vector<std::string> missing;  // names dlsym did not find
};

// Paths of the three libraries under dir.
std::string hip_path(const std::string& dir);
std::string hipblaslt_path(const std::string& dir);
std::string rocblas_path(const std::string& dir);

// The exported names each library must have: exactly these.
std::vector<std::string> hip_contract();
std::vector<std::string> hipblaslt_contract();
std::vector<std::string> rocblas_contract();

// dlopens the three by path and resolves every contract name. False with *why when a
// library does not load; a missing name is listed in out->missing (a failed check).
bool load_shims(const std::string& dir, Shims* out, std::string* why);

// "100 (hipErrorNoDevice)", named by the loaded shim.
std::string err(const Shims& s, hipError_t e);

// One check that a call returned `want` ("what -> 100 (hipErrorNoDevice)").
bool expect_code(const Shims& s, hipError_t got, hipError_t want, const std::string& what);

// Whether a real CUDA driver library can be opened in this process (without
// initializing it): decides what the BLAS shims must answer when the HIP shim has been
// told there is no driver.
bool real_libcuda_present();

}  // namespace hipshim_test
