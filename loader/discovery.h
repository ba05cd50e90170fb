// Finding candidate vendor files (whether one may be loaded: permissions.h).
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

}  // namespace opkit::loader
