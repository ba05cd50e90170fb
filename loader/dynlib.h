// Thin wrapper over dlopen/dlsym/dlerror so the rest of the loader reads as policy.
#pragma once

#include <string>

namespace opkit::loader {

// dlopen(path, RTLD_NOW | RTLD_LOCAL); on failure returns nullptr and sets *error to
// dlerror()'s text.
void* open_library(const std::string& path, std::string* error);
void* find_symbol(void* handle, const char* name);
void close_library(void* handle);

}  // namespace opkit::loader
