// The OpenMP thread team of the loaded oneDNN, borrowed for the vendor's own row loops:
// the fp32 C block of a bf16 product rounded back to bf16 (and c widened where beta != 0).
// On one thread that rounding took about half of a 1024^3 bf16 product on sixteen
// (the H200 machine's Xeon, 2026-11-30: 1.05 ms through oneDNN against PyTorch's 0.51).
//
// Debian's oneDNN runs on GNU OpenMP; its entry points are found through oneDNN's own
// handle (dlsym searches the library's dependencies), so the vendor links no OpenMP and
// starts no thread: the loops run in the very team the GEMM just used. GOMP_parallel is
// what `#pragma omp parallel` compiles to with GCC; LLVM's and Intel's runtimes export it
// as well. Without an OpenMP oneDNN the loops stay on the calling thread.
#pragma once

#include <cstdint>
#include <type_traits>

namespace opkit_blas {

struct OpenMpTeam {
    void (*parallel)(void (*fn)(void*), void* data, unsigned threads, unsigned flags) = nullptr;  // GOMP_parallel
    int (*max_threads)() = nullptr;  // omp_get_max_threads
    int (*thread_num)() = nullptr;   // omp_get_thread_num
    int (*num_threads)() = nullptr;  // omp_get_num_threads
    int threads = 0;                 // OPKIT_NUM_THREADS applied to oneDNN (0: OpenMP's own count)

    bool usable() const { return parallel && max_threads && thread_num && num_threads; }
};

// The team's entry points in an open library (or its dependencies); an empty team where
// any of them is missing.
OpenMpTeam find_openmp_team(void* handle);

// Rows of at least this many elements a team thread: below it, waking the team costs more
// than the loop (a 16-thread team wakes in a few microseconds; 64K elements take ~10 us).
constexpr int64_t kTeamMinElements = int64_t(64) << 10;

// range(ctx, first, end) over [0, rows) cut into contiguous ranges, one a team thread,
// each of about kTeamMinElements or more; on the calling thread alone (one range) where
// team is NULL or not usable, or the work is too small to share. range must not throw.
void split_rows(const OpenMpTeam* team, int64_t rows, int64_t row_elements,
                void (*range)(void* ctx, int64_t first, int64_t end), void* ctx);

template <class Range>
void for_row_ranges(const OpenMpTeam* team, int64_t rows, int64_t row_elements, Range&& range) {
    using R = std::remove_reference_t<Range>;
    split_rows(team, rows, row_elements,
               [](void* ctx, int64_t first, int64_t end) { (*static_cast<R*>(ctx))(first, end); },
               const_cast<void*>(static_cast<const void*>(&range)));
}

}  // namespace opkit_blas
