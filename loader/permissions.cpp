// The vendor file permission rule (see permissions.h and docs/security.md). Only lstat
// and realpath: nothing here opens or maps the candidate.
#include "permissions.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace opkit::loader {
namespace {

std::string errno_text(int e) {
    char buf[256];
    // GNU strerror_r (g++ defines _GNU_SOURCE): returns the message, maybe not in buf.
    return strerror_r(e, buf, sizeof buf);
}

std::string octal_mode(mode_t m) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%04o", unsigned(m & 07777));
    return buf;
}

// "root" when we run as root, else "root or uid N".
std::string trusted_owners() {
    const uid_t euid = geteuid();
    return euid == 0 ? std::string("root") : "root or uid " + std::to_string(euid);
}

bool trusted_owner(uid_t uid) { return uid == 0 || uid == geteuid(); }

const char* file_kind(mode_t m) {
    if (S_ISDIR(m)) return "a directory";
    if (S_ISFIFO(m)) return "a fifo";
    if (S_ISSOCK(m)) return "a socket";
    if (S_ISCHR(m)) return "a character device";
    if (S_ISBLK(m)) return "a block device";
    if (S_ISLNK(m)) return "a symbolic link";
    return "not a regular file";
}

// The owner and mode rule for one file or directory (not a symbolic link).
bool owner_and_mode_ok(const std::string& path, const struct stat& st, std::string* why) {
    if (!trusted_owner(st.st_uid)) {
        *why = "refused: " + path + " is owned by uid " + std::to_string(st.st_uid) +
               "; a vendor file and every directory above it must be owned by " + trusted_owners();
        return false;
    }
    const mode_t w = st.st_mode & (S_IWGRP | S_IWOTH);
    const bool dir = S_ISDIR(st.st_mode);
    if (w == 0 || (dir && (st.st_mode & S_ISVTX))) return true;  // sticky: others cannot replace our entries
    const char* what = w == S_IWGRP   ? "group-writable"
                       : w == S_IWOTH ? "writable by every user"
                                      : "group-writable and writable by every user";
    *why = "refused: " + path + " is " + what + " (mode " + octal_mode(st.st_mode) +
           "); a vendor file and every directory above it must be writable only by its owner (" +
           trusted_owners() + ")" + (dir ? ", or carry the sticky bit like /tmp" : "");
    return false;
}

// "/a/b/c" -> {"/a/b/c", "/a/b", "/a", "/"}: the path itself, then each directory above.
std::vector<std::string> path_and_parents(const std::string& path) {
    std::vector<std::string> out;
    std::string p = path;
    while (p.size() > 1 && p.back() == '/') p.pop_back();
    for (;;) {
        out.push_back(p);
        if (p == "/") break;
        size_t slash = p.rfind('/');
        if (slash == std::string::npos) break;  // not absolute: discovery never gives one
        while (slash > 0 && p[slash - 1] == '/') --slash;  // "a//b": one step up
        p = slash == 0 ? "/" : p.substr(0, slash);
    }
    return out;
}

// Checks `path` and each directory above it. `resolved`: the path came from realpath,
// so a symbolic link on it means it changed under us.
bool chain_ok(const std::string& path, bool resolved, std::string* why) {
    const std::vector<std::string> chain = path_and_parents(path);
    for (size_t i = 0; i < chain.size(); ++i) {
        const std::string& p = chain[i];
        struct stat st{};
        if (lstat(p.c_str(), &st) != 0) {
            *why = "cannot check " + p + ": " + errno_text(errno);
            return false;
        }
        if (S_ISLNK(st.st_mode)) {
            if (resolved) {
                *why = "refused: " + p + " changed while being checked (it is now a symbolic link)";
                return false;
            }
            if (!trusted_owner(st.st_uid)) {
                *why = "refused: " + p + " is a symbolic link owned by uid " + std::to_string(st.st_uid) +
                       "; a symbolic link on the way to a vendor file must be owned by " + trusted_owners();
                return false;
            }
            continue;  // where it leads is checked on the resolved chain
        }
        if (i == 0 && !S_ISREG(st.st_mode)) {
            *why = "refused: " + p + " is " + file_kind(st.st_mode) + ", not a regular file";
            return false;
        }
        if (i > 0 && !S_ISDIR(st.st_mode)) {  // lstat of the child would have failed
            *why = "refused: " + p + " changed while being checked (it is no longer a directory)";
            return false;
        }
        if (!owner_and_mode_ok(p, st, why)) return false;
    }
    return true;
}

}  // namespace

bool vendor_file_trusted(const std::string& path, std::string* why) {
    if (path.empty() || path[0] != '/') {
        *why = "refused: " + path + " is not an absolute path";
        return false;
    }
    if (!chain_ok(path, /*resolved=*/false, why)) return false;
    char real[PATH_MAX];
    if (!realpath(path.c_str(), real)) {
        *why = "cannot resolve " + path + ": " + errno_text(errno);
        return false;
    }
    return path == real || chain_ok(real, /*resolved=*/true, why);
}

}  // namespace opkit::loader
