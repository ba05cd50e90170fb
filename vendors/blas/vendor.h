// The libraries this vendor loaded at init (vendor.cpp); NULL before init, after
// shutdown, and when none was found (no CBLAS: the vendor is NO_DEVICE and libopkit calls
// no op; no oneDNN: bf16 takes the CBLAS's paths).
#pragma once

#include "cblas_library.h"
#include "onednn_library.h"

namespace opkit_blas {

const Cblas* loaded_library();
const OneDnn* loaded_onednn();

}  // namespace opkit_blas
