// HIP-over-CUDA self-test: the check harness (see check.h).
#include "check.h"

#include <cstdarg>
#include <cstdio>
#include <vector>

namespace hipshim_test {

Totals& totals() {
    static Totals t;
    return t;
}

void section(const std::string& title) {
    std::printf("\n== %s\n", title.c_str());
    std::fflush(stdout);
}

bool expect(bool ok, const std::string& what, const std::string& detail) {
    if (ok) {
        ++totals().passed;
        std::printf("  ok    %s\n", what.c_str());
    } else {
        ++totals().failed;
        std::printf("  FAIL  %s%s%s\n", what.c_str(), detail.empty() ? "" : ": ", detail.c_str());
    }
    std::fflush(stdout);
    return ok;
}

void skip(const std::string& what, const std::string& why) {
    ++totals().skipped;
    std::printf("  SKIPPED: %s: %s\n", what.c_str(), why.c_str());
    std::fflush(stdout);
}

void note(const std::string& text) {
    std::printf("  note  %s\n", text.c_str());
    std::fflush(stdout);
}

std::string format(const char* fmt, ...) {
    va_list args;
    va_start(args, fmt);
    va_list copy;
    va_copy(copy, args);
    const int n = std::vsnprintf(nullptr, 0, fmt, copy);
    va_end(copy);
    std::vector<char> buf(size_t(n > 0 ? n : 0) + 1);
    std::vsnprintf(buf.data(), buf.size(), fmt, args);
    va_end(args);
    return std::string(buf.data());
}

}  // namespace hipshim_test
