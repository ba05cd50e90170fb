// The kernel images: one fatbin per vendors/gpu/*.cu file, built by nvcc at build time
// and embedded in the .so (fatbins.cpp), loaded per device on first use.
#pragma once

#include <cstddef>

namespace opkit_cuda {

enum class Module : int { norms, softmax, cross_entropy, elementwise, rope, embedding, count };

struct Image {
    const void* data;
    size_t size;
};

Image module_image(Module m);
const char* module_name(Module m);  // "norms", ... (the .cu file it came from)

}  // namespace opkit_cuda
