// HIP-over-CUDA test runtime (hipBLASLt and rocBLAS shims): declares every function of a
// blas_api.h list as extern "C" with exactly the type the vendor casts its dlsym result
// to (lt::<name>_fn / rb::<name>_fn). A shim definition whose signature differs is then
// a compile error ("conflicting declaration of C function") instead of an exported
// symbol the vendor would call with the wrong arguments.
#pragma once

#include "shim_blas_api.h"

#include <type_traits>

#define HIPSHIM_DECLARE_LT(name, pointer) extern "C" std::remove_pointer<opkit_rocm::lt::name##_fn>::type name;
OPKIT_HIPBLASLT_FUNCTIONS(HIPSHIM_DECLARE_LT)
#undef HIPSHIM_DECLARE_LT
#define HIPSHIM_DECLARE_RB(name, pointer) extern "C" std::remove_pointer<opkit_rocm::rb::name##_fn>::type name;
OPKIT_ROCBLAS_FUNCTIONS(HIPSHIM_DECLARE_RB)
#undef HIPSHIM_DECLARE_RB
