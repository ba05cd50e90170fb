// HIP-over-CUDA self-test: the groups of checks (each prints its own section).
#pragma once

#include "shims.h"

#include <string>

namespace hipshim_test {

// no_device.cpp: need no GPU.
void check_exports(const std::string& dir);
// HIP shim in its "no device" state; driver_absent: no libcuda at all (the driver
// version must then read 0).
void check_no_driver(const Shims& s, bool driver_absent);
void check_blas_no_driver(const Shims& s);     // BLAS shims with the HIP shim driverless
void check_lt_strict_enums(const Shims& s);    // needs cuBLASLt, not a device
void check_stub_driver(const Shims& s);        // OPKIT_HIPSHIM_LIBCUDA = the toolkit stub
void check_no_cublaslt(const Shims& s);        // OPKIT_HIPSHIM_CUBLASLT = a missing file
void check_against_amd(const Shims& s, const std::string& amd_path);

// gpu_runtime.cpp and gpu_blas.cpp: need a CUDA device (hipGetDeviceCount > 0).
void check_gpu_runtime(const Shims& s);
void check_gpu_blas(const Shims& s);

}  // namespace hipshim_test
