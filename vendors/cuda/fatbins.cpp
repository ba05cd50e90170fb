// Embeds the fatbins with the assembler's .incbin: no generated C arrays to compile, and
// the build only has to re-assemble this file when a fatbin changes (CMake's
// OBJECT_DEPENDS). OPKIT_FATBIN_DIR comes from CMakeLists.txt.
#include "fatbins.h"

#ifndef OPKIT_FATBIN_DIR
#error "OPKIT_FATBIN_DIR must name the directory holding the built .fatbin files"
#endif

// The symbols are global for the assembler but hidden for the linker: never exported.
#define OPKIT_EMBED(name)                                                       \
    asm(".section .rodata.opkit_fatbin_" #name ",\"a\",@progbits\n"             \
        ".globl opkit_fatbin_" #name "\n"                                       \
        ".hidden opkit_fatbin_" #name "\n"                                      \
        ".globl opkit_fatbin_" #name "_end\n"                                   \
        ".hidden opkit_fatbin_" #name "_end\n"                                  \
        ".balign 64\n"                                                          \
        "opkit_fatbin_" #name ":\n"                                             \
        ".incbin \"" OPKIT_FATBIN_DIR "/" #name ".fatbin\"\n"                   \
        "opkit_fatbin_" #name "_end:\n"                                         \
        ".previous\n");                                                         \
    extern "C" __attribute__((visibility("hidden"))) const unsigned char        \
        opkit_fatbin_##name[], opkit_fatbin_##name##_end[];

OPKIT_EMBED(norms)
OPKIT_EMBED(softmax)
OPKIT_EMBED(cross_entropy)
OPKIT_EMBED(elementwise)
OPKIT_EMBED(rope)
OPKIT_EMBED(embedding)

namespace opkit_cuda {

#define OPKIT_IMAGE(name) \
    Image { opkit_fatbin_##name, size_t(opkit_fatbin_##name##_end - opkit_fatbin_##name) }

Image module_image(Module m) {
    switch (m) {
        case Module::norms: return OPKIT_IMAGE(norms);
        case Module::softmax: return OPKIT_IMAGE(softmax);
        case Module::cross_entropy: return OPKIT_IMAGE(cross_entropy);
        case Module::elementwise: return OPKIT_IMAGE(elementwise);
        case Module::rope: return OPKIT_IMAGE(rope);
        case Module::embedding: return OPKIT_IMAGE(embedding);
        case Module::count: break;
    }
    return Image{nullptr, 0};
}

const char* module_name(Module m) {
    static const char* const names[] = {"norms", "softmax", "cross_entropy", "elementwise", "rope",
                                        "embedding"};
    const int i = int(m);
    return i >= 0 && i < int(Module::count) ? names[i] : "?";
}

}  // namespace opkit_cuda
