// Where vendors are looked for: the configured path entries, then the install directory
// next to libopkit.so. Never the current directory, never a relative path.
#include "discovery.h"

#include <dirent.h>
#include <dlfcn.h>
#include <sys/stat.h>

#include <algorithm>
#include <climits>
#include <cstdlib>

namespace opkit::loader {

std::string library_directory() {
    Dl_info info{};
    if (!dladdr(reinterpret_cast<void*>(&library_directory), &info) || !info.dli_fname) return "";
    char resolved[PATH_MAX];
    if (!realpath(info.dli_fname, resolved)) return "";
    std::string path = resolved;
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? "" : path.substr(0, slash);
}

std::vector<std::string> search_locations(const Config& config) {
    std::vector<std::string> out;
    for (const std::string& p : config.search_path)
        if (!p.empty() && p[0] == '/') out.push_back(p);
    const std::string dir = library_directory();
    if (!dir.empty()) out.push_back(dir + "/opkit/vendors");
    return out;
}

bool vendor_name_from_file(const std::string& file, std::string* name) {
    static const std::string prefix = "libopkit_vendor_", suffix = ".so";
    const size_t slash = file.rfind('/');
    const std::string base = slash == std::string::npos ? file : file.substr(slash + 1);
    if (base.size() <= prefix.size() + suffix.size()) return false;
    if (base.compare(0, prefix.size(), prefix) != 0) return false;
    if (base.compare(base.size() - suffix.size(), suffix.size(), suffix) != 0) return false;
    *name = base.substr(prefix.size(), base.size() - prefix.size() - suffix.size());
    return true;
}

std::vector<std::string> candidate_files(const std::vector<std::string>& locations) {
    std::vector<std::string> files;
    for (const std::string& loc : locations) {
        struct stat st{};
        if (stat(loc.c_str(), &st) != 0) continue;  // a missing entry is not an error
        std::string name;
        if (!S_ISDIR(st.st_mode)) {
            if (vendor_name_from_file(loc, &name)) files.push_back(loc);
            continue;
        }
        DIR* d = opendir(loc.c_str());
        if (!d) continue;
        std::vector<std::string> here;
        while (dirent* e = readdir(d)) {
            const std::string entry = e->d_name;
            if (vendor_name_from_file(entry, &name)) here.push_back(loc + "/" + entry);
        }
        closedir(d);
        std::sort(here.begin(), here.end());  // readdir order is arbitrary; ours is not
        files.insert(files.end(), here.begin(), here.end());
    }
    return files;
}

}  // namespace opkit::loader
