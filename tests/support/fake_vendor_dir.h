// Where the fake vendors of tests/fake_vendor were built, found from the running test
// binary (<build>/bin/..) rather than from the build directory's absolute path compiled
// in: a build tree carried to a GPU machine under another name (scripts/gpu-check.sh takes
// any build directory) must still find them. The compiled-in path is the fallback for a
// binary whose own path cannot be read.
#pragma once

#include <climits>
#include <string>
#include <unistd.h>

namespace opkit_test {

inline std::string fake_vendor_dir() {
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        std::string exe(self, static_cast<size_t>(n));
        std::string::size_type slash = exe.rfind('/');
        if (slash != std::string::npos) return exe.substr(0, slash) + "/../tests/fake_vendor";
    }
    return std::string(OPKIT_TEST_LIBDIR) + "/../tests/fake_vendor";
}

}  // namespace opkit_test
