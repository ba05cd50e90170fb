// The libraries this vendor loaded at init (vendor.cpp); NULL before init, after
// shutdown, and when none was found (no CBLAS: the vendor is NO_DEVICE and libopkit calls
// no op; no oneDNN: bf16 takes the CBLAS's paths).
#pragma once

#include "cblas_library.h"
#include "onednn_library.h"

namespace opkit_blas {

const Cblas* loaded_library();
const OneDnn* loaded_onednn();
// oneDNN for f32 products (beta 0) where the CBLAS is no tuned library: an OpenBLAS on its
// generic kernels (its warning says so) or a library that identifies as none; NULL
// otherwise, and the CBLAS multiplies f32 (a tuned OpenBLAS measured as fast as PyTorch,
// and shares NumPy's thread pool).
const OneDnn* onednn_for_f32();

}  // namespace opkit_blas
