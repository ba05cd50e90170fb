// Allocation of this thread's validation memos (validate_cache.h): one MemoCall per op,
// on a thread's first op call, freed when the thread exits.
#include "validate_cache.h"

#include <new>

namespace opkit::validate {

namespace {
// Touched only when the memos are allocated, so only then does the thread register a
// destructor; ThreadState itself stays trivially destructible, a plain TLS block.
struct MemoOwner {
    ~MemoOwner() {
        ThreadState& ts = t_state;
        delete[] ts.memos;
        ts.memos = nullptr;
    }
};
}  // namespace

__attribute__((noinline, cold)) MemoCall* allocate_memos(ThreadState& ts) {
    thread_local MemoOwner owner;
    ts.memos = new (std::nothrow) MemoCall[kOpCount];
    return ts.memos;
}

}  // namespace opkit::validate
