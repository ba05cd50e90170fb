// HIP-over-CUDA self-test: ELF dynamic symbols, DT_NEEDED and DT_SONAME (see elf_info.h).
#include "elf_info.h"

#include <elf.h>

#include <cstring>
#include <fstream>
#include <iterator>

namespace hipshim_test {
namespace {

template <class T>
bool at(const std::vector<char>& f, size_t offset, T* out) {
    if (offset > f.size() || f.size() - offset < sizeof(T)) return false;
    std::memcpy(out, f.data() + offset, sizeof(T));
    return true;
}

std::string string_at(const std::vector<char>& f, const Elf64_Shdr& strtab, size_t index) {
    const size_t off = size_t(strtab.sh_offset) + index;
    if (index >= strtab.sh_size || off >= f.size()) return {};
    const char* s = f.data() + off;
    return std::string(s, strnlen(s, f.size() - off));
}

}  // namespace

bool read_elf(const std::string& path, ElfInfo* out, std::string* why) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        *why = "cannot open " + path;
        return false;
    }
    const std::vector<char> f((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    Elf64_Ehdr eh;
    if (!at(f, 0, &eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64) {
        *why = path + " is not a 64-bit ELF file";
        return false;
    }
    std::vector<Elf64_Shdr> sections(eh.e_shnum);
    for (size_t i = 0; i < sections.size(); ++i)
        if (!at(f, size_t(eh.e_shoff) + i * sizeof(Elf64_Shdr), &sections[i])) {
            *why = path + ": truncated section headers";
            return false;
        }
    *out = ElfInfo{};
    for (const Elf64_Shdr& s : sections) {
        if (s.sh_link >= sections.size()) continue;
        const Elf64_Shdr& strtab = sections[s.sh_link];
        if (s.sh_type == SHT_DYNSYM) {
            for (size_t off = 0; off + sizeof(Elf64_Sym) <= s.sh_size; off += sizeof(Elf64_Sym)) {
                Elf64_Sym sym;
                if (!at(f, size_t(s.sh_offset) + off, &sym)) break;
                const int bind = ELF64_ST_BIND(sym.st_info), type = ELF64_ST_TYPE(sym.st_info);
                // SHN_ABS entries are version-node names (e.g. hip_4.2), not symbols.
                if (sym.st_shndx == SHN_UNDEF || sym.st_shndx == SHN_ABS) continue;
                if (bind != STB_GLOBAL && bind != STB_WEAK) continue;
                if (type != STT_FUNC && type != STT_OBJECT && type != STT_GNU_IFUNC) continue;
                out->exports.insert(string_at(f, strtab, sym.st_name));
            }
        } else if (s.sh_type == SHT_DYNAMIC) {
            for (size_t off = 0; off + sizeof(Elf64_Dyn) <= s.sh_size; off += sizeof(Elf64_Dyn)) {
                Elf64_Dyn d;
                if (!at(f, size_t(s.sh_offset) + off, &d) || d.d_tag == DT_NULL) break;
                if (d.d_tag == DT_NEEDED) out->needed.push_back(string_at(f, strtab, d.d_un.d_val));
                if (d.d_tag == DT_SONAME) out->soname = string_at(f, strtab, d.d_un.d_val);
            }
        }
    }
    return true;
}

}  // namespace hipshim_test
