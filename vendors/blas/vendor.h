// The library this vendor loaded at init (vendor.cpp); NULL before init, after shutdown,
// and when none was found (the vendor is then NO_DEVICE and libopkit calls no op).
#pragma once

#include "cblas_library.h"

namespace opkit_blas {

const Cblas* loaded_library();

}  // namespace opkit_blas
