// Embeds the device images with the assembler's .incbin: no generated C arrays to
// compile, and the build only has to re-assemble this file when an image changes (CMake's
// OBJECT_DEPENDS). Each vendor compiles it with its own image directory and extension
// (vendors/gpu/host/gpu_host.cmake): OPKIT_GPU_IMAGE_DIR/<module>OPKIT_GPU_IMAGE_EXT.
#include "images.h"

#if !defined(OPKIT_GPU_IMAGE_DIR) || !defined(OPKIT_GPU_IMAGE_EXT)
#error "OPKIT_GPU_IMAGE_DIR and OPKIT_GPU_IMAGE_EXT must name the built device images"
#endif

// The symbols are global for the assembler but hidden for the linker: never exported.
#define OPKIT_GPU_EMBED(name)                                                   \
    asm(".section .rodata.opkit_image_" #name ",\"a\",@progbits\n"              \
        ".globl opkit_image_" #name "\n"                                        \
        ".hidden opkit_image_" #name "\n"                                       \
        ".globl opkit_image_" #name "_end\n"                                    \
        ".hidden opkit_image_" #name "_end\n"                                   \
        ".balign 64\n"                                                          \
        "opkit_image_" #name ":\n"                                              \
        ".incbin \"" OPKIT_GPU_IMAGE_DIR "/" #name OPKIT_GPU_IMAGE_EXT "\"\n"   \
        "opkit_image_" #name "_end:\n"                                          \
        ".previous\n");                                                         \
    extern "C" __attribute__((visibility("hidden"))) const unsigned char        \
        opkit_image_##name[], opkit_image_##name##_end[];

OPK_FOR_EACH_MODULE(OPKIT_GPU_EMBED)

namespace opkit_gpu {

Image module_image(Module m) {
    switch (m) {
#define OPKIT_GPU_IMAGE_CASE(name) \
    case Module::name: return Image{opkit_image_##name, size_t(opkit_image_##name##_end - opkit_image_##name)};
        OPK_FOR_EACH_MODULE(OPKIT_GPU_IMAGE_CASE)
#undef OPKIT_GPU_IMAGE_CASE
        case Module::count: break;
    }
    return Image{nullptr, 0};
}

const char* module_name(Module m) {
    static const char* const names[] = {
#define OPKIT_GPU_MODULE_NAME(name) #name,
        OPK_FOR_EACH_MODULE(OPKIT_GPU_MODULE_NAME)
#undef OPKIT_GPU_MODULE_NAME
    };
    const int i = int(m);
    return i >= 0 && i < int(Module::count) ? names[i] : "?";
}

}  // namespace opkit_gpu
