// The kernel modules (vendors/gpu/kernel_modules.h, the one list of them) and their
// device images: one per vendors/gpu/<module>.cu, built by the vendor's device compiler
// (CUDA fatbins, AMD code-object bundles) and embedded in the vendor .so (images.cpp),
// loaded per device on first use.
#pragma once

#include "../kernel_modules.h"

#include <cstddef>

namespace opkit_gpu {

enum class Module : int {
#define OPKIT_GPU_MODULE_ID(name) name,
    OPK_FOR_EACH_MODULE(OPKIT_GPU_MODULE_ID)
#undef OPKIT_GPU_MODULE_ID
    count
};

struct Image {
    const void* data;
    size_t size;
};

Image module_image(Module m);
const char* module_name(Module m);  // "norms", ... (the .cu file it came from)

}  // namespace opkit_gpu
