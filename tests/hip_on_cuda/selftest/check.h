// HIP-over-CUDA self-test: a minimal check harness. Every check prints one line
// ("  ok    ...", "  FAIL  ...: detail", "  SKIPPED: ...: why", "  note  ..."), so a run's
// output is its own report; the totals decide the exit code (main.cpp).
#pragma once

#include <string>

namespace hipshim_test {

struct Totals {
    int passed = 0;
    int failed = 0;
    int skipped = 0;
};
Totals& totals();

void section(const std::string& title);
bool expect(bool ok, const std::string& what, const std::string& detail = "");
void skip(const std::string& what, const std::string& why);
void note(const std::string& text);

// printf into a std::string.
std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

}  // namespace hipshim_test
