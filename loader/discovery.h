// Finding candidate vendor files and judging whether they may be loaded.
#pragma once

#include "loader.h"

#include <string>
#include <vector>

namespace opkit::loader {

// "<dir>/libopkit_vendor_cuda.so" -> "cuda"; false for any other file name.
bool vendor_name_from_file(const std::string& file, std::string* name);
// Vendor files in search order: each location is a directory (its matching entries,
// sorted by name) or a file (itself, if its name matches). Missing locations are skipped.
std::vector<std::string> candidate_files(const std::vector<std::string>& locations);
// True (with a reason) when path may have been planted by another user: writable by
// everyone, or owned by someone other than root or us.
bool writable_by_others(const std::string& path, std::string* why);

}  // namespace opkit::loader
