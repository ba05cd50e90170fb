// The CPU pool (core/cpu/parallel.cpp): every index of a job runs exactly once, whether
// the workers sleep between jobs (spin 0), poll longer than the gaps between jobs, or
// the pool is torn down and resized between jobs; jobs back to back from one thread and
// from several application threads at once.
#include "cpu/parallel.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

namespace {

// Runs one job of n items and counts how often each item ran; true when each ran once.
bool each_index_once(int64_t n, int64_t grain) {
    std::vector<std::atomic<int>> hits(size_t(n > 0 ? n : 0));
    for (auto& h : hits) h.store(0);
    opkit::cpu::parallel_for(n, grain, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) hits[size_t(i)].fetch_add(1);
    });
    for (auto& h : hits)
        if (h.load() != 1) return false;
    return true;
}

}  // namespace

TEST_CASE("parallel_for covers each index once under every spin setting", "[parallel]") {
    for (const int32_t spin_us : {0, 100, 5000}) {
        for (const int32_t threads : {1, 3, 8}) {
            opkit::cpu::set_num_threads(threads, spin_us);
            REQUIRE(opkit::cpu::num_threads() == threads);
            int failures = 0;
            // Sizes below, at and above the grain, back to back: the workers find each new
            // job while polling (spin > 0) or asleep (spin 0).
            for (int job = 0; job < 200; ++job) failures += !each_index_once(1 + (job * 37) % 3000, 1 + job % 50);
            CHECK(failures == 0);
            CHECK(each_index_once(0, 1));  // an empty job runs nothing
        }
    }
    opkit::cpu::set_num_threads(0);
}

TEST_CASE("parallel_for from several application threads at once", "[parallel]") {
    for (const int32_t spin_us : {0, 5000}) {
        opkit::cpu::set_num_threads(4, spin_us);
        std::atomic<int> failures{0};
        std::vector<std::thread> callers;
        for (int t = 0; t < 4; ++t)
            callers.emplace_back([&, t] {
                // One caller at a time owns the pool; the others run their job inline.
                for (int job = 0; job < 100; ++job) failures += !each_index_once(500 + 13 * t + job, 16);
            });
        for (auto& c : callers) c.join();
        CHECK(failures.load() == 0);
    }
    opkit::cpu::shutdown_pool();
    CHECK(each_index_once(4096, 64));  // the next job restarts the workers
    opkit::cpu::set_num_threads(0);
}

TEST_CASE("the pool stops right after jobs its caller may have finished alone", "[parallel]") {
    // Chunks are claimed by whoever gets there first, so a worker can wake to a job whose
    // chunks are all taken, or to the stop itself; every stop must still join every worker
    // (a hang here is the failure) and the next job must still cover each index once.
    for (const int32_t spin_us : {0, 5000}) {
        opkit::cpu::set_num_threads(8, spin_us);
        int failures = 0;
        for (int round = 0; round < 300; ++round) {
            failures += !each_index_once(64 + round % 7, 1);
            if (round % 3 == 0) opkit::cpu::shutdown_pool();
        }
        CHECK(failures == 0);
    }
    opkit::cpu::set_num_threads(0);
}
