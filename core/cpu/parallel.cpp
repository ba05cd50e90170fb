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
// Waiting spins before it sleeps. A worker that finishes a job watches generation_ for
// spin_ (OPKIT_SPIN_US) before it blocks on cv_, and the caller watches pending_ before it
// blocks on done_cv_: a model calls op after op, and a thread asleep on a condition
// variable takes a futex wake and a reschedule to start, tens of microseconds on a VM,
// which is a visible part of a 0.3 ms op split over 16 threads. OpenMP runtimes (which
// PyTorch's CPU kernels use) spin the same way. A waiter that finds its condition while
// spinning never touches the futex, and notify on a condition variable nobody waits on
// makes no system call.
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
        const int64_t max_chunks = (n + grain - 1) / grain;
        const int32_t nthreads = int32_t(std::min<int64_t>(wanted_, max_chunks));
        if (nthreads <= 1) {
            fn(0, n);
            return;
        }
        start(nthreads - 1);
        {
            std::lock_guard<std::mutex> lk(m_);
            fn_ = &fn;
            n_ = n;
            chunks_ = nthreads;
            next_chunk_ = 1;  // chunk 0 is the caller's
            pending_.store(nthreads - 1);
            generation_.store(generation_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
        }
        cv_.notify_all();
        run_chunk(0);
        spin_until(spin_, [&] { return pending_.load(std::memory_order_acquire) == 0; });
        std::unique_lock<std::mutex> lk(m_);
        done_cv_.wait(lk, [&] { return pending_.load(std::memory_order_relaxed) == 0; });
        fn_ = nullptr;
    }

    void stop() {
        {
            std::lock_guard<std::mutex> lk(m_);
            quit_ = true;
            // Spinning workers watch the generation: a new one sends them to the lock,
            // where they find quit_.
            generation_.store(generation_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
        }
        cv_.notify_all();
        for (auto& t : workers_) t.join();
        workers_.clear();
        quit_ = false;
    }

    void shutdown() {
        std::lock_guard<std::mutex> job(job_mutex_);
        stop();
    }

private:
    void run_chunk(int64_t c) {
        const int64_t begin = n_ * c / chunks_, end = n_ * (c + 1) / chunks_;
        if (begin < end) (*fn_)(begin, end);
    }

    void start(int32_t workers) {
        while (int32_t(workers_.size()) < workers) workers_.emplace_back([this] { loop(); });
    }

    void loop() {
        t_in_worker = true;
        uint64_t seen = 0;  // the generation this worker last took part in or found empty
        const std::chrono::microseconds spin = spin_;  // set before the workers start
        std::unique_lock<std::mutex> lk(m_);
        for (;;) {
            const auto ready = [&] {
                return quit_ || (generation_.load(std::memory_order_relaxed) != seen && next_chunk_ < chunks_);
            };
            if (!ready()) {
                seen = generation_.load(std::memory_order_relaxed);  // it has nothing left for us
                lk.unlock();
                spin_until(spin, [&] { return generation_.load(std::memory_order_acquire) != seen; });
                lk.lock();
                cv_.wait(lk, ready);
            }
            if (quit_) return;
            seen = generation_.load(std::memory_order_relaxed);
            while (next_chunk_ < chunks_) {
                const int64_t c = next_chunk_++;
                lk.unlock();
                run_chunk(c);
                lk.lock();
                if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) done_cv_.notify_one();
            }
        }
    }

    static thread_local bool t_in_worker;
    std::mutex job_mutex_;
    std::mutex m_;
    std::condition_variable cv_, done_cv_;
    std::vector<std::thread> workers_;
    const std::function<void(int64_t, int64_t)>* fn_ = nullptr;
    int64_t n_ = 0, chunks_ = 0, next_chunk_ = 0;
    // Written under m_; also read without it by spinning waiters.
    std::atomic<int64_t> pending_{0};
    std::atomic<uint64_t> generation_{0};
    bool quit_ = false;
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
