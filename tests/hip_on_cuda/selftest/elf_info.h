// HIP-over-CUDA self-test: what a shared library exports and needs, read from its ELF
// dynamic section (no readelf/nm at test time), to prove each shim exports exactly its
// contract and links no CUDA or ROCm library.
#pragma once

#include <set>
#include <string>
#include <vector>

namespace hipshim_test {

struct ElfInfo {
    std::string soname;
    std::vector<std::string> needed;  // DT_NEEDED
    std::set<std::string> exports;    // defined global/weak functions and objects
};

// False with *why set when the file is unreadable or not a 64-bit ELF shared object.
bool read_elf(const std::string& path, ElfInfo* out, std::string* why);

}  // namespace hipshim_test
