// The kernel modules: one vendors/gpu/<name>.cu each, compiled to one device image per
// module (a CUDA fatbin, an AMD code-object bundle). This is the only list of them: the
// host code expands it (module ids, embedded images) and the build scripts read the
// OPK_MODULE lines below (vendors/*/CMakeLists.txt, scripts/hip-device-compile.sh), so
// keep one OPK_MODULE(name) per line.
#pragma once

#define OPK_FOR_EACH_MODULE(OPK_MODULE) \
    OPK_MODULE(norms)                   \
    OPK_MODULE(softmax)                 \
    OPK_MODULE(cross_entropy)           \
    OPK_MODULE(elementwise)             \
    OPK_MODULE(rope)                    \
    OPK_MODULE(embedding)
