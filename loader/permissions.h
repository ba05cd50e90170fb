// Whether a candidate vendor file may be dlopen'ed: the ownership and mode rule of
// DESIGN §4 [2] (the rule OpenSSH's StrictModes applies), checked before any byte of
// the file is mapped. docs/security.md explains the rule and what it leaves open.
#pragma once

#include <string>

namespace opkit::loader {

// True when `path` (an absolute candidate vendor file, as discovery found it) may be
// loaded. Otherwise false, with *why naming the offending path and the reason.
//
// Two chains are checked, the file first and then each directory above it up to "/":
//  - the path as written (the directory the user listed, the entry found in it): every
//    symbolic link met on it must be owned by root or the effective user (its own mode
//    means nothing); every directory and the file itself obey the rule below;
//  - the path realpath() resolves it to (what dlopen will actually map): the real file
//    and every real directory above it obey the rule below.
// The rule: owned by root or by the effective user, and writable by no one else (no
// group or other write bit); a directory with a group or other write bit passes only
// with the sticky bit (like /tmp), where no one else can remove or rename our entries.
// The vendor file must be a regular file (a fifo, device or directory is refused rather
// than handed to dlopen).
bool vendor_file_trusted(const std::string& path, std::string* why);

}  // namespace opkit::loader
