#include "rows.h"

namespace opkit::cpu {

float* scratch(int slot, int64_t n) {
    thread_local std::vector<float> buffers[4];
    std::vector<float>& b = buffers[slot & 3];
    if (int64_t(b.size()) < n) b.resize(size_t(n));
    return b.data();
}

}  // namespace opkit::cpu
