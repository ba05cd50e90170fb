#include "dynlib.h"

#include <dlfcn.h>

namespace opkit::loader {

void* open_library(const std::string& path, std::string* error) {
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
