// Allocation of this thread's validation memos (validate_cache.h): one MemoCall per op,
// on a thread's first op call, freed when the thread exits.
#include "validate_cache.h"

#include <new>

namespace opkit::validate {

thread_local MemoCall* t_memos = nullptr;

namespace {
// Touched only when the memos are allocated, so only then does the thread register a
// destructor; t_memos itself stays a plain TLS pointer.
struct MemoOwner {
    ~MemoOwner() {
        delete[] t_memos;
        t_memos = nullptr;
    }
};
}  // namespace

__attribute__((noinline, cold)) MemoCall* allocate_memos() {
    thread_local MemoOwner owner;
    t_memos = new (std::nothrow) MemoCall[kOpCount];
    return t_memos;
}

}  // namespace opkit::validate
