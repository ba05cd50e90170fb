#include "openmp_team.h"

#include <dlfcn.h>

#include <algorithm>

namespace opkit_blas {
namespace {

template <class Fn>
void find(void* handle, const char* name, Fn* out) {
    *out = reinterpret_cast<Fn>(dlsym(handle, name));
}

struct Share {
    const OpenMpTeam* team;
    int64_t rows;
    void (*range)(void*, int64_t, int64_t);
    void* ctx;
};

// Run by every thread of the team, the caller too: its own slice of the rows.
void run_share(void* data) {
    const Share& s = *static_cast<const Share*>(data);
    const int64_t t = s.team->thread_num(), n = s.team->num_threads();
    const int64_t first = s.rows * t / n, end = s.rows * (t + 1) / n;
    if (first < end) s.range(s.ctx, first, end);
}

}  // namespace

OpenMpTeam find_openmp_team(void* handle) {
    OpenMpTeam t;
    find(handle, "GOMP_parallel", &t.parallel);
    find(handle, "omp_get_max_threads", &t.max_threads);
    find(handle, "omp_get_thread_num", &t.thread_num);
    find(handle, "omp_get_num_threads", &t.num_threads);
    return t.usable() ? t : OpenMpTeam{};
}

void split_rows(const OpenMpTeam* team, int64_t rows, int64_t row_elements,
                void (*range)(void* ctx, int64_t first, int64_t end), void* ctx) {
    if (rows <= 0) return;
    int64_t threads = 1;
    if (team && team->usable()) {
        const int64_t team_size = team->threads > 0 ? team->threads : team->max_threads();
        const int64_t shares = rows * std::max<int64_t>(1, row_elements) / kTeamMinElements;
        threads = std::min({team_size, shares, rows});
    }
    if (threads <= 1) {
        range(ctx, 0, rows);
        return;
    }
    Share s{team, rows, range, ctx};
    // The team may come out smaller than asked (a nested region, a thread limit):
    // run_share cuts the rows by the team's actual size, so every row is still covered.
    team->parallel(run_share, &s, unsigned(threads), 0);
}

}  // namespace opkit_blas
