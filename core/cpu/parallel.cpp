#include "parallel.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace opkit::cpu {
namespace {

// Polls done() for at most `budget`; true if it held. Between polls the thread yields
// rather than pausing: on an idle core sched_yield returns at once, and on a loaded one it
// hands the core to a runnable thread, which may be the worker being waited for. Measured
// on the 2-core build VM with two busy processes beside the benchmark: a pause loop made
// small row ops anywhere from 2x faster to 2.5x slower than sleeping at once, the yield
// loop kept them where sleeping had them; on the idle VM both halved them.
template <class Done>
bool spin_until(std::chrono::microseconds budget, Done&& done) {
    if (budget.count() <= 0) return done();
    const auto deadline = std::chrono::steady_clock::now() + budget;
    for (;;) {
        for (int k = 0; k < 8; ++k) {
            if (done()) return true;
            std::this_thread::yield();
        }
        if (std::chrono::steady_clock::now() >= deadline) return done();
    }
}

// One job at a time: concurrent callers of parallel_for from different application
// threads are serialised on job_mutex_, and a call from inside a worker runs inline.
//
// A job is published in one atomic word, work_: its generation, its chunk count and the
// next unclaimed chunk. The caller and the workers claim chunks with a compare-and-swap on
// that word, with no lock on the way: the first version handed chunks out under a mutex,
// and 15 workers that woke together queued on it, each hand-off a futex wake and a
// reschedule (on the 16-core host the bf16 embedding forward at 16 threads, a 0.1 ms
// gather, went 0.18-0.19 -> 0.11-0.13 ms without the lock; docs/PERFORMANCE.md).
// The caller claims too, so a chunk whose worker is slow to start (or asleep) is run by
// the caller rather than waited for. A compare-and-swap that succeeds proves the job is
// still the one its generation names, so a worker that was descheduled between two jobs
// can never run a chunk of the wrong one.
//
// Waiting spins before it sleeps. A worker that finds nothing to claim watches the
// generation for spin_ (OPKIT_SPIN_US) before it blocks on cv_, and the caller watches
// pending_ as long before it blocks on done_cv_: a model calls op after op, and a thread
// asleep on a condition variable takes a futex wake and a reschedule to start, tens of
// microseconds on a VM. OpenMP runtimes (which PyTorch's CPU kernels use) spin the same
// way. The job word is stored under m_, so a worker going to sleep cannot miss it, and a
// notify on a condition variable nobody waits on makes no system call.
class Pool {
public:
    ~Pool() { stop(); }

    void set_threads(int32_t n, int32_t spin_us) {
        std::lock_guard<std::mutex> job(job_mutex_);
        stop();
        wanted_ = n > 0 ? n : int32_t(std::max(1u, std::thread::hardware_concurrency()));
        spin_ = std::chrono::microseconds(std::max(spin_us, 0));
    }
    int32_t threads() {
        std::lock_guard<std::mutex> job(job_mutex_);
        return wanted_;
    }

    void run(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn) {
        if (n <= 0) return;
        grain = std::max<int64_t>(grain, 1);
        if (t_in_worker || n <= grain) {
            fn(0, n);
            return;
        }
        std::unique_lock<std::mutex> job(job_mutex_, std::try_to_lock);
        if (!job.owns_lock()) {  // another thread's job is running: don't queue behind it
            fn(0, n);
            return;
        }
        const int64_t max_chunks = std::min<int64_t>((n + grain - 1) / grain, kMaxChunks);
        const int32_t nthreads = int32_t(std::min<int64_t>(wanted_, max_chunks));
        if (nthreads <= 1) {
            fn(0, n);
            return;
        }
        start(nthreads - 1);
        fn_ = &fn;
        n_ = n;
        pending_.store(nthreads, std::memory_order_relaxed);
        uint32_t gen;
        {
            std::lock_guard<std::mutex> lk(m_);
            gen = generation(work_.load(std::memory_order_relaxed)) + 1;
            work_.store(pack(gen, uint32_t(nthreads)), std::memory_order_release);
        }
        cv_.notify_all();
        run_chunks(gen, false);
        spin_until(spin_, [&] { return pending_.load(std::memory_order_acquire) == 0; });
        {
            std::unique_lock<std::mutex> lk(m_);
            done_cv_.wait(lk, [&] { return pending_.load(std::memory_order_acquire) == 0; });
        }
        fn_ = nullptr;
    }

    void stop() {
        {
            std::lock_guard<std::mutex> lk(m_);
            quit_.store(true, std::memory_order_relaxed);
            // A job of no chunks in a new generation wakes every worker, spinning or
            // asleep; the release store makes quit_ visible to those that see it.
            work_.store(pack(generation(work_.load(std::memory_order_relaxed)) + 1, 0), std::memory_order_release);
        }
        cv_.notify_all();
        for (auto& t : workers_) t.join();
        workers_.clear();
        quit_.store(false, std::memory_order_relaxed);
    }

    void shutdown() {
        std::lock_guard<std::mutex> job(job_mutex_);
        stop();
    }

private:
    // work_'s fields: generation (bits 63-32), chunk count (31-16), next chunk (15-0).
    static constexpr int64_t kMaxChunks = 0xffff;
    static uint64_t pack(uint32_t gen, uint32_t chunks) { return uint64_t(gen) << 32 | uint64_t(chunks) << 16; }
    static uint32_t generation(uint64_t w) { return uint32_t(w >> 32); }
    static uint32_t chunk_count(uint64_t w) { return uint32_t(w >> 16) & 0xffff; }
    static uint32_t next_chunk(uint64_t w) { return uint32_t(w) & 0xffff; }

    // Claims and runs chunks of job `gen` until none is left unclaimed. The thread that
    // finishes the job's last chunk wakes a sleeping caller (`notify`: unless it is the caller).
    void run_chunks(uint32_t gen, bool notify) {
        uint64_t w = work_.load(std::memory_order_acquire);
        while (generation(w) == gen && next_chunk(w) < chunk_count(w)) {
            if (!work_.compare_exchange_weak(w, w + 1, std::memory_order_acq_rel, std::memory_order_acquire))
                continue;  // w now holds the current word
            const int64_t c = next_chunk(w), chunks = chunk_count(w);
            const int64_t begin = n_ * c / chunks, end = n_ * (c + 1) / chunks;
            if (begin < end) (*fn_)(begin, end);
            if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1 && notify) {
                { std::lock_guard<std::mutex> lk(m_); }  // the caller is waiting on done_cv_, or sees pending_ 0
                done_cv_.notify_one();
            }
            w = work_.load(std::memory_order_acquire);
        }
    }

    void start(int32_t workers) {
        const uint32_t seen = generation(work_.load(std::memory_order_relaxed));
        while (int32_t(workers_.size()) < workers) workers_.emplace_back([this, seen] { loop(seen); });
    }

    void loop(uint32_t seen) {  // seen: the last generation this worker took part in
        t_in_worker = true;
        const std::chrono::microseconds spin = spin_;  // set before the workers start
        const auto moved_on = [&] { return generation(work_.load(std::memory_order_acquire)) != seen; };
        for (;;) {
            if (!spin_until(spin, moved_on)) {
                std::unique_lock<std::mutex> lk(m_);
                cv_.wait(lk, moved_on);
            }
            seen = generation(work_.load(std::memory_order_acquire));
            // After that load: once it returns stop()'s generation, the acquire makes quit_
            // visible; an older one means stop()'s is still ahead, and the next wait ends.
            if (quit_.load(std::memory_order_relaxed)) return;
            run_chunks(seen, true);
        }
    }

    static thread_local bool t_in_worker;
    std::mutex job_mutex_;
    std::mutex m_;  // guards the stores of work_ and the sleeps on cv_ / done_cv_
    std::condition_variable cv_, done_cv_;
    std::vector<std::thread> workers_;
    // The job: written by the caller before work_ publishes it, read by the claimers.
    const std::function<void(int64_t, int64_t)>* fn_ = nullptr;
    int64_t n_ = 0;
    std::atomic<uint64_t> work_{0};
    std::atomic<int64_t> pending_{0};  // the job's chunks not finished yet
    std::atomic<bool> quit_{false};
    int32_t wanted_ = int32_t(std::max(1u, std::thread::hardware_concurrency()));
    std::chrono::microseconds spin_{kDefaultSpinMicroseconds};
};

thread_local bool Pool::t_in_worker = false;

Pool& pool() {
    static Pool* p = new Pool();  // leaked on purpose: no static-destruction-order races
    return *p;
}

}  // namespace

void set_num_threads(int32_t n, int32_t spin_us) { pool().set_threads(n, spin_us); }
int32_t num_threads() { return pool().threads(); }
void parallel_for(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn) {
    pool().run(n, grain, fn);
}
void shutdown_pool() { pool().shutdown(); }

}  // namespace opkit::cpu
