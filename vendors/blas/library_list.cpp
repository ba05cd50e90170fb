#include "library_list.h"

#include <cstdlib>

namespace opkit_blas {

bool library_list_from_env(const char* variable, std::vector<std::string>* out) {
    const char* v = secure_getenv(variable);
    if (!v) return false;
    out->clear();
    const std::string s = v;
    size_t start = 0;
    while (start <= s.size()) {
        const size_t end = s.find(':', start);
        const std::string part = s.substr(start, end == std::string::npos ? std::string::npos : end - start);
        if (!part.empty()) out->push_back(part);
        if (end == std::string::npos) break;
        start = end + 1;
    }
    return true;
}

}  // namespace opkit_blas
