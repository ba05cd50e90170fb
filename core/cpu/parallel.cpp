#include "parallel.h"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace opkit::cpu {
namespace {

// One job at a time: concurrent callers of parallel_for from different application
// threads are serialised on job_mutex_, and a call from inside a worker runs inline.
class Pool {
public:
    ~Pool() { stop(); }

    void set_threads(int32_t n) {
        std::lock_guard<std::mutex> job(job_mutex_);
        stop();
        wanted_ = n > 0 ? n : int32_t(std::max(1u, std::thread::hardware_concurrency()));
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
            pending_ = nthreads - 1;
            ++generation_;
        }
        cv_.notify_all();
        run_chunk(0);
        std::unique_lock<std::mutex> lk(m_);
        done_cv_.wait(lk, [&] { return pending_ == 0; });
        fn_ = nullptr;
    }

    void stop() {
        {
            std::lock_guard<std::mutex> lk(m_);
            quit_ = true;
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
        uint64_t seen = 0;
        std::unique_lock<std::mutex> lk(m_);
        for (;;) {
            cv_.wait(lk, [&] { return quit_ || (generation_ != seen && next_chunk_ < chunks_); });
            if (quit_) return;
            seen = generation_;
            while (next_chunk_ < chunks_) {
                const int64_t c = next_chunk_++;
                lk.unlock();
                run_chunk(c);
                lk.lock();
                if (--pending_ == 0) done_cv_.notify_one();
            }
        }
    }

    static thread_local bool t_in_worker;
    std::mutex job_mutex_;
    std::mutex m_;
    std::condition_variable cv_, done_cv_;
    std::vector<std::thread> workers_;
    const std::function<void(int64_t, int64_t)>* fn_ = nullptr;
    int64_t n_ = 0, chunks_ = 0, next_chunk_ = 0, pending_ = 0;
    uint64_t generation_ = 0;
    bool quit_ = false;
    int32_t wanted_ = int32_t(std::max(1u, std::thread::hardware_concurrency()));
};

thread_local bool Pool::t_in_worker = false;

Pool& pool() {
    static Pool* p = new Pool();  // leaked on purpose: no static-destruction-order races
    return *p;
}

}  // namespace

void set_num_threads(int32_t n) { pool().set_threads(n); }
int32_t num_threads() { return pool().threads(); }
void parallel_for(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn) {
    pool().run(n, grain, fn);
}
void shutdown_pool() { pool().shutdown(); }

}  // namespace opkit::cpu
