#include "dynlib.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <vector>

namespace opkit::loader {
namespace {

#if defined(__x86_64__)
constexpr int kMachine = EM_X86_64;
#elif defined(__aarch64__)
constexpr int kMachine = EM_AARCH64;
#elif defined(__powerpc64__)
constexpr int kMachine = EM_PPC64;
#elif defined(__riscv)
constexpr int kMachine = EM_RISCV;
#else
constexpr int kMachine = -1;  // not checked here; dlopen still checks it
#endif
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
constexpr unsigned char kData = ELFDATA2LSB;
#else
constexpr unsigned char kData = ELFDATA2MSB;
#endif
constexpr unsigned char kClass = sizeof(void*) == 8 ? ELFCLASS64 : ELFCLASS32;

bool read_at(int fd, void* buf, size_t n, off_t at) {
    size_t done = 0;
    while (done < n) {
        const ssize_t r = pread(fd, static_cast<char*>(buf) + done, n - done, at + off_t(done));
        if (r <= 0) return false;
        done += size_t(r);
    }
    return true;
}

// The ELF file is one this process can load and every segment lies inside the file.
// dlopen maps segments without checking that the file holds them, and then faults
// (SIGBUS) on a truncated vendor; a foreign architecture gets a clearer reason here.
// Corrupt content inside a complete file is beyond this check (docs/security.md).
bool elf_plausible(const std::string& path, std::string* why) {
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);  // never blocks on a fifo
    if (fd < 0) return true;  // dlopen reports why it cannot open it
    struct Closer {
        int fd;
        ~Closer() { close(fd); }
    } closer{fd};
    struct stat st{};
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        *why = path + ": not a regular file";
        return false;
    }
    const uint64_t size = uint64_t(st.st_size);
    ElfW(Ehdr) eh{};
    if (size < sizeof eh || !read_at(fd, &eh, sizeof eh, 0)) {
        *why = path + ": not an ELF shared object (" + std::to_string(size) +
               " bytes, shorter than an ELF header)";
        return false;
    }
    if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) {
        *why = path + ": not an ELF shared object (no ELF magic)";
        return false;
    }
    if (eh.e_ident[EI_CLASS] != kClass || eh.e_ident[EI_DATA] != kData) {
        *why = path + ": ELF class " + std::to_string(eh.e_ident[EI_CLASS]) + ", byte order " +
               std::to_string(eh.e_ident[EI_DATA]) + "; this process needs class " + std::to_string(kClass) +
               ", byte order " + std::to_string(kData);
        return false;
    }
    if (kMachine >= 0 && eh.e_machine != kMachine) {
        *why = path + ": built for another architecture (ELF machine " + std::to_string(eh.e_machine) +
               "; this process is ELF machine " + std::to_string(kMachine) + ")";
        return false;
    }
    if (eh.e_type != ET_DYN) {
        *why = path + ": ELF type " + std::to_string(eh.e_type) + " is not a shared object";
        return false;
    }
    const uint64_t table = uint64_t(eh.e_phnum) * sizeof(ElfW(Phdr));
    if (eh.e_phentsize != sizeof(ElfW(Phdr)) || eh.e_phnum == 0 || eh.e_phoff > size ||
        table > size - eh.e_phoff) {
        *why = path + ": corrupt or truncated ELF file (its program header table lies outside the file)";
        return false;
    }
    std::vector<ElfW(Phdr)> ph(eh.e_phnum);
    if (!read_at(fd, ph.data(), size_t(table), off_t(eh.e_phoff))) {
        *why = path + ": cannot read its ELF program headers";
        return false;
    }
    for (size_t i = 0; i < ph.size(); ++i) {
        const ElfW(Phdr)& p = ph[i];
        if (p.p_type != PT_LOAD && p.p_type != PT_DYNAMIC) continue;
        if (p.p_offset > size || p.p_filesz > size - p.p_offset || p.p_filesz > p.p_memsz) {
            *why = path + ": truncated or corrupt ELF file (segment " + std::to_string(i) + " needs bytes " +
                   std::to_string(p.p_offset) + " to " + std::to_string(p.p_offset + p.p_filesz) +
                   "; the file has " + std::to_string(size) + ")";
            return false;
        }
    }
    return true;
}

}  // namespace

void* open_library(const std::string& path, std::string* error) {
    if (!elf_plausible(path, error)) return nullptr;
    dlerror();  // clear any stale message
    void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char* e = dlerror();
        *error = e ? e : "dlopen failed";
    }
    return h;
}

void* find_symbol(void* handle, const char* name) { return dlsym(handle, name); }

void close_library(void* handle) {
    if (handle) dlclose(handle);
}

}  // namespace opkit::loader
