// The directory of the running test binary, from /proc/self/exe. Tests find what the build
// put beside them (<build>/bin/../tests/fake_vendor, the shim's libraries) from there rather
// than from the build directory's absolute path compiled in: a build tree carried to a GPU
// machine under another name (scripts/gpu-check.sh takes any build directory) must still
// find them. Header-only, so that test programs outside opkit_test_support (the
// HIP-over-CUDA self-test) share it.
#pragma once

#include <climits>
#include <string>
#include <unistd.h>

namespace opkit_test {

// `fallback` when the binary's own path cannot be read.
inline std::string own_directory(const std::string& fallback) {
    char self[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) return fallback;
    const std::string exe(self, static_cast<size_t>(n));
    const std::string::size_type slash = exe.rfind('/');
    return slash == std::string::npos ? fallback : exe.substr(0, slash);
}

#ifdef OPKIT_TEST_LIBDIR
// The fake vendors of tests/fake_vendor; the compiled-in build path where the binary's own
// path cannot be read.
inline std::string fake_vendor_dir() {
    const std::string bin = own_directory("");
    return (bin.empty() ? std::string(OPKIT_TEST_LIBDIR) : bin) + "/../tests/fake_vendor";
}
#endif

}  // namespace opkit_test
