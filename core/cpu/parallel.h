// A small persistent thread pool for the CPU default kernels. parallel_for splits
// [0, n) into contiguous chunks of at least `grain` items; the calling thread takes a
// chunk too, so a one-thread pool costs no synchronisation.
#pragma once

#include <cstdint>
#include <functional>

namespace opkit::cpu {

// How long an idle worker, and a caller waiting for its workers, spin before they sleep.
constexpr int32_t kDefaultSpinMicroseconds = 100;

// Sets the worker count (OPKIT_NUM_THREADS; <= 0 = hardware threads) and the spin before
// sleeping (OPKIT_SPIN_US; 0 = sleep at once). Called at init.
void set_num_threads(int32_t n, int32_t spin_us = kDefaultSpinMicroseconds);
int32_t num_threads();

// fn(begin, end) must not throw; kernels report errors by return value before they
// start parallel work.
void parallel_for(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn);

// Stops the workers (opkit_shutdown); the next parallel_for restarts them.
void shutdown_pool();

}  // namespace opkit::cpu
