#include "rows.h"

#include <cstdint>
#include <cstdlib>
#include <new>

namespace opkit::cpu {

namespace {

constexpr int kScratchSlots = 4;

// A thread's scratch rows, as a constant-initialized, trivially destructible thread-local
// block: one TLS lookup a call. (A thread_local std::vector has a destructor, so GCC wraps
// every access in an initialization test, which through the shared library made two
// __tls_get_addr calls a scratch() call: 52 instructions where this takes 28, callgrind.) What
// the rows point to is freed at thread exit by ScratchOwner, registered when a row first
// grows, as validate_cache.cpp's MemoOwner does for the validation memos.
struct ScratchRows {
    float* row[kScratchSlots];
    int64_t capacity[kScratchSlots];  // floats
};
thread_local ScratchRows t_scratch{};

struct ScratchOwner {
    ~ScratchOwner() {
        ScratchRows& s = t_scratch;
        for (int i = 0; i < kScratchSlots; ++i) {
            std::free(s.row[i]);
            s.row[i] = nullptr;
            s.capacity[i] = 0;
        }
    }
};

// Replaces slot i's row with one of at least n floats (its contents are not kept: a row
// is valid only until its slot is asked for again). Throws std::bad_alloc as the vector
// did, which the op's entry point turns into OPKIT_ERROR_OUT_OF_MEMORY.
__attribute__((noinline, cold)) float* grow(ScratchRows& s, int i, int64_t n) {
    thread_local ScratchOwner owner;
    (void)owner;
    // Rounded up to 64 floats (256 bytes), so that rows a little longer do not reallocate.
    const int64_t want = n > 64 ? (n + 63) / 64 * 64 : 64;
    if (uint64_t(want) > uint64_t(SIZE_MAX) / sizeof(float)) throw std::bad_alloc();
    float* p = static_cast<float*>(std::malloc(size_t(want) * sizeof(float)));
    if (!p) throw std::bad_alloc();
    std::free(s.row[i]);
    s.row[i] = p;
    s.capacity[i] = want;
    return p;
}

}  // namespace

float* scratch(int slot, int64_t n) {
    ScratchRows& s = t_scratch;
    const int i = slot & (kScratchSlots - 1);
    if (n <= s.capacity[i]) return s.row[i];  // a row of n <= 0 floats may be null, as the vector's was
    return grow(s, i, n);
}

}  // namespace opkit::cpu
