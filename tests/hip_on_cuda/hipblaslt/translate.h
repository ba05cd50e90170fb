// HIP-over-CUDA test runtime (libhipblaslt.so.0): hipBLASLt values -> cuBLASLt values.
//
// hipBLASLt copies cuBLASLt's API function for function, but most enum values differ
// (TRANSA is 0 here and 3 there, OP_N is 111 and 0, COMPUTE_32F is 2 and 68, the layout
// batch attributes 0/1 and 5/6). Every value the vendor passes is translated by name,
// and anything outside the subset declared in vendors/rocm/blas_api.h is refused with
// HIPBLAS_STATUS_INVALID_ENUM (an unknown enum value) or HIPBLAS_STATUS_INVALID_VALUE (a
// wrong size or an unsupported value of a known attribute). This is stricter than
// hipBLASLt on purpose: a vendor passing a cuBLASLt number by mistake (TRANSA = 3,
// CUBLAS_OP_T = 1, a MIN_ALIGNMENT preference) would work on NVIDIA and fail on AMD, so
// here it must fail.
#pragma once

#include "shim_blas_api.h"

#include <cublasLt.h>

namespace hipshim_lt {

namespace lt = opkit_rocm::lt;

lt::Status to_cu(lt::DataType t, cudaDataType_t* out) noexcept;
lt::Status to_cu(lt::ComputeType t, cublasComputeType_t* out) noexcept;

// An attribute and its value (the value's size is checked and the value itself
// translated where it is an enum), ready for the cuBLASLt setter.
struct CuAttribute {
    int attribute = 0;
    unsigned char value[8] = {};
    size_t size = 0;
};
lt::Status to_cu(lt::DescAttribute a, const void* value, size_t size, CuAttribute* out) noexcept;
lt::Status to_cu(lt::LayoutAttribute a, const void* value, size_t size, CuAttribute* out) noexcept;
lt::Status to_cu(lt::PreferenceAttribute a, const void* value, size_t size, CuAttribute* out) noexcept;

// cublasStatus_t -> hipblasStatus_t.
lt::Status from_cu(cublasStatus_t s) noexcept;

}  // namespace hipshim_lt
