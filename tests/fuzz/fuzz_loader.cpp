// libFuzzer target: the loader against arbitrary "vendor files".
//
// Each input becomes the whole content of libopkit_vendor_fuzz.so in a fresh private
// directory (mkdtemp: mode 0700, owned by the effective user, under /tmp's sticky bit),
// then opkit_init(vendor_path = that directory), opkit_vendor_get_info for every vendor,
// and opkit_shutdown. Seeds (tests/fuzz/corpus/fuzz_loader): an empty file, a fake
// vendor truncated to 64 and 4096 bytes, the fake vendor rebuilt for aarch64 (e_machine
// flipped), random bytes and a complete fake vendor (tests/fuzz/make_loader_seeds.py).
// Invariants: nothing crashes or hangs; every vendor record reads back with a pinned
// state, and any state but READY comes with a reason.
//
// Vendor "files" that are not bytes (a directory, a fifo, a symlink loop, a dangling
// link, a socket, a group-writable file) are a fixed set of cases run once in
// LLVMFuzzerInitialize, before fuzzing: each must be refused before dlopen (state
// LOAD_FAILED, reason naming it). Every fuzz run starts with them, so a regression stops
// the run at once.
//
// Scope: dlopen trusts the content of a complete ELF file (glibc's loader faults on a
// corrupt dynamic section or relocation; a vendor's constructors run inside dlopen), so
// the loader checks, before dlopen, only what makes a file loadable at all: the ELF
// header, this machine's class/byte order/architecture, a shared object, and program
// headers and segments inside the file (loader/dynlib.cpp). Its content is trusted once
// the ownership/mode rule passed (docs/security.md). This target therefore hands
// opkit_init every input that is NOT such a complete ELF file, and the loader must
// refuse each with a reason, without crashing; an input that is a complete ELF for this
// machine is skipped (complete_elf() below decides, independently of the loader's own
// check, so a gap in that check shows up as a crash). A complete, valid vendor is loaded
// once in LLVMFuzzerInitialize (it must come up READY).
#include "opkit.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

constexpr const char* kFileName = "libopkit_vendor_fuzz.so";

[[noreturn]] void die(const std::string& what) {
    std::fprintf(stderr, "fuzz_loader: INVARIANT VIOLATED: %s\n", what.c_str());
    std::abort();
}

std::string make_private_dir() {
    char tmpl[] = "/tmp/opkit-fuzz-loader-XXXXXX";
    if (!mkdtemp(tmpl)) die(std::string("mkdtemp: ") + std::strerror(errno));
    return tmpl;  // mode 0700, ours
}

void write_all(const std::string& path, const uint8_t* data, size_t size, mode_t mode) {
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
    if (fd < 0) die("open " + path + ": " + std::strerror(errno));
    size_t done = 0;
    while (done < size) {
        const ssize_t n = write(fd, data + done, size - done);
        if (n <= 0) die("write " + path + ": " + std::strerror(errno));
        done += size_t(n);
    }
    if (fchmod(fd, mode) != 0) die("fchmod " + path);  // the umask does not apply
    close(fd);
}

// Loads the directory's vendors and reads every record back. Returns the state and
// reason of the vendor named "fuzz" (state -1 when there is none).
int32_t load_and_check(const std::string& dir, std::string* detail) {
    opkit_init_options o{};
    o.struct_size = sizeof o;
    o.vendor_path = dir.c_str();
    o.vendors = nullptr;
    o.vendors_disable = nullptr;
    o.host_fallback = 0;
    o.log_level = OPKIT_LOG_OFF;
    const opkit_status s = opkit_init(&o);
    if (s != OPKIT_OK) die(std::string("opkit_init failed: ") + opkit_last_error_message());
    int32_t state = -1;
    const int32_t n = opkit_vendor_count();
    for (int32_t i = 0; i < n; ++i) {
        opkit_vendor_info info;
        std::memset(&info, 0xA5, sizeof info);  // poisoned: every field must be written
        info.struct_size = sizeof info;
        if (opkit_vendor_get_info(i, &info) != OPKIT_OK)
            die(std::string("opkit_vendor_get_info failed: ") + opkit_last_error_message());
        if (!info.name || !info.path || !info.version || !info.detail) die("a vendor string is NULL");
        if (info.state < OPKIT_VENDOR_READY || info.state > OPKIT_VENDOR_DISABLED)
            die("vendor state " + std::to_string(info.state) + " is not a pinned value");
        if (info.state != OPKIT_VENDOR_READY && !*info.detail)
            die(std::string("vendor ") + info.name + " has state " + std::to_string(info.state) +
                " but no reason");
        if (std::strcmp(info.name, "fuzz") == 0) {
            state = info.state;
            *detail = info.detail;
        }
        (void)std::strlen(info.path);
        (void)std::strlen(info.version);
    }
    opkit_shutdown();
    return state;
}

// A complete ELF shared object for this machine: header, class, byte order, machine,
// type, and every PT_LOAD/PT_DYNAMIC segment and the program header table inside the
// file. Written here independently of loader/dynlib.cpp.
#if defined(__x86_64__)
constexpr int kMachine = EM_X86_64;
#elif defined(__aarch64__)
constexpr int kMachine = EM_AARCH64;
#else
#error "fuzz_loader: add this architecture's ELF machine"
#endif

bool complete_elf(const uint8_t* d, size_t n) {
    ElfW(Ehdr) eh;
    if (n < sizeof eh) return false;
    std::memcpy(&eh, d, sizeof eh);
    if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_machine != kMachine || eh.e_type != ET_DYN)
        return false;
    if (eh.e_phentsize != sizeof(ElfW(Phdr)) || eh.e_phnum == 0) return false;
    const unsigned __int128 end = (unsigned __int128)eh.e_phoff + (unsigned __int128)eh.e_phnum * sizeof(ElfW(Phdr));
    if (end > n) return false;
    for (int i = 0; i < eh.e_phnum; ++i) {
        ElfW(Phdr) p;
        std::memcpy(&p, d + eh.e_phoff + size_t(i) * sizeof p, sizeof p);
        if (p.p_type != PT_LOAD && p.p_type != PT_DYNAMIC) continue;
        if ((unsigned __int128)p.p_offset + p.p_filesz > n || p.p_filesz > p.p_memsz) return false;
    }
    return true;
}

// ------------------------------------------------------------- fixed cases -----------
struct FixedCase {
    const char* what;
    const char* expect;  // a part of the reason
    void (*make)(const std::string& path);
};

void make_directory(const std::string& p) {
    if (mkdir(p.c_str(), 0755) != 0) die("mkdir");
}
void make_fifo(const std::string& p) {
    if (mkfifo(p.c_str(), 0644) != 0) die("mkfifo");
}
void make_self_loop(const std::string& p) {
    if (symlink(kFileName, p.c_str()) != 0) die("symlink");
}
void make_two_link_loop(const std::string& p) {
    const std::string other = p.substr(0, p.rfind('/')) + "/other.so";
    if (symlink(kFileName, other.c_str()) != 0 || symlink("other.so", p.c_str()) != 0) die("symlink");
}
void make_dangling(const std::string& p) {
    if (symlink("/nonexistent-opkit-fuzz/none.so", p.c_str()) != 0) die("symlink");
}
void make_socket(const std::string& p) {
    const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (fd < 0 || p.size() >= sizeof addr.sun_path) die("socket");
    std::memcpy(addr.sun_path, p.c_str(), p.size() + 1);
    if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) die("bind");
    close(fd);
}
void make_group_writable(const std::string& p) {
    static const uint8_t elf[] = {0x7f, 'E', 'L', 'F'};
    write_all(p, elf, sizeof elf, 0664);
}
void make_link_to_directory(const std::string& p) {
    if (symlink("/tmp", p.c_str()) != 0) die("symlink");
}

const FixedCase kFixedCases[] = {
    {"a directory", "is a directory, not a regular file", make_directory},
    {"a fifo", "is a fifo, not a regular file", make_fifo},
    {"a symlink to itself", "cannot", make_self_loop},
    {"a two-link symlink loop", "cannot", make_two_link_loop},
    {"a dangling symlink", "cannot", make_dangling},
    {"a unix socket", "is a socket, not a regular file", make_socket},
    {"a group-writable file", "is group-writable", make_group_writable},
    {"a symlink to a directory", "not a regular file", make_link_to_directory},
};

void remove_tree(const std::string& dir) {
    for (const char* name : {kFileName, "other.so"}) {
        const std::string p = dir + "/" + name;
        struct stat st{};
        if (lstat(p.c_str(), &st) != 0) continue;
        if (S_ISDIR(st.st_mode) ? rmdir(p.c_str()) : unlink(p.c_str())) die("cannot remove " + p);
    }
    if (rmdir(dir.c_str()) != 0) die("cannot remove " + dir + ": " + std::strerror(errno));
}

void run_fixed_cases() {
    // A loader that opened the fifo would block forever: a hang becomes a crash.
    alarm(30);
    for (const FixedCase& c : kFixedCases) {
        const std::string dir = make_private_dir();
        c.make(dir + "/" + kFileName);
        std::string detail;
        const int32_t state = load_and_check(dir, &detail);
        if (state != OPKIT_VENDOR_LOAD_FAILED || detail.find(c.expect) == std::string::npos)
            die(std::string(c.what) + " as a vendor file: expected LOAD_FAILED with \"" + c.expect +
                "\", got state " + std::to_string(state) + ": " + detail);
        std::fprintf(stderr, "fuzz_loader: %s refused: %s\n", c.what, detail.c_str());
        remove_tree(dir);
    }
    alarm(0);
}

// The fake vendor built next to this target loads READY through the same path.
void load_valid_vendor() {
    FILE* f = std::fopen(OPKIT_FUZZ_VALID_VENDOR, "rb");
    if (!f) die(std::string("cannot open ") + OPKIT_FUZZ_VALID_VENDOR);
    std::string bytes;
    char chunk[65536];
    size_t n;
    while ((n = std::fread(chunk, 1, sizeof chunk, f)) > 0) bytes.append(chunk, n);
    std::fclose(f);
    const auto* d = reinterpret_cast<const uint8_t*>(bytes.data());
    if (!complete_elf(d, bytes.size())) die("the valid fake vendor is not a complete ELF file?");
    const std::string dir = make_private_dir();
    write_all(dir + "/" + kFileName, d, bytes.size(), 0755);
    std::string detail;
    const int32_t state = load_and_check(dir, &detail);
    if (state != OPKIT_VENDOR_READY) die("the valid fake vendor did not load READY: " + detail);
    std::fprintf(stderr, "fuzz_loader: a valid vendor loads READY\n");
    remove_tree(dir);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    run_fixed_cases();
    load_valid_vendor();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (complete_elf(data, size)) return 0;  // trusted content: out of scope (see the top)
    const std::string dir = make_private_dir();
    const std::string path = dir + "/" + kFileName;
    write_all(path, data, size, 0755);
    std::string detail;
    const int32_t state = load_and_check(dir, &detail);
    if (state < 0) die("the vendor file was not found at all");
    remove_tree(dir);
    return 0;
}
