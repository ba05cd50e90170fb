#include "parallel.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <sched.h>
#endif

namespace opkit::cpu {
namespace {

// Where a worker and the caller share a CPU. The scheduler may wake a sleeping worker on
// the CPU of the thread that woke it, or leave a spinning one there, while another CPU
// idles; the worker then runs only when the caller waits or is preempted, after the caller
// has taken the worker's chunk itself, and the op runs serially. On the 2-core build VM the
// bf16 softmax backward at two threads read either ~1.4 ms or exactly its serial ~3.0 ms
// from call to call (docs/PERFORMANCE.md, "The pool's same-CPU wakes"); a probe showed
// worker and caller on one vCPU in every slow call. So the caller publishes its CPU with
// each job (current_cpu: -1 where unknown), and a worker that finds itself on that CPU,
// when it starts a job or while it spins between jobs, moves itself off it
// (move_off_cpu). Only the pool's own workers move: the caller is the application's
// thread. Probe: serial readings 9-10 of 30 before, 3 of 30 with this. (A first version
// also had the caller yield once after each notify, so that a worker just woken onto its
// CPU ran at once: 0 of 30; but beside busy processes the yield handed the caller's CPU to
// them for a whole time slice, small ops up to 30x slower, so the caller never yields.
// On that VM an idle vCPU is likely reported as preempted, which keeps the scheduler from
// waking a thread onto it.)
int current_cpu() {
#if defined(__linux__)
    return sched_getcpu();
#else
    return -1;
#endif
}

// Moves the calling thread to another of the CPUs it may run on, if there is one, and
// leaves it free to run on all of them again. False where it could not (one CPU, an
// affinity call refused, e.g. by a seccomp filter). Setting the mask back also records it
// as the thread's own (Linux 6.2+): a cpuset that later grows does not widen this worker
// until the pool restarts (set_threads, opkit_shutdown).
bool move_off_cpu(int cpu) {
#if defined(__linux__)
    cpu_set_t allowed;
    if (cpu < 0 || cpu >= CPU_SETSIZE || sched_getaffinity(0, sizeof allowed, &allowed) != 0) return false;
    if (!CPU_ISSET(cpu, &allowed) || CPU_COUNT(&allowed) < 2) return false;
    cpu_set_t others = allowed;
    CPU_CLR(cpu, &others);
    if (sched_setaffinity(0, sizeof others, &others) != 0) return false;  // migrates before returning
    return sched_setaffinity(0, sizeof allowed, &allowed) == 0;
#else
    (void)cpu;
    return false;
#endif
}

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
// A job is published in one atomic word, work_: its generation and its chunk count. Chunk
// c is claimed by raising taken_[c] from an older generation to the job's with a
// compare-and-swap, with no lock on the way (the first version handed chunks out under a
// mutex, and 15 workers that woke together queued on it, each hand-off a futex wake and
// a reschedule: on the 16-core host the bf16 embedding forward at 16 threads, a 0.1 ms
// gather, went 0.18-0.19 -> 0.11-0.13 ms without the lock). Generations only grow (48 bits: years of jobs), so a worker that was
// descheduled between two jobs finds every chunk of its old job at that generation or
// later and claims nothing: a chunk is only ever run by its own job.
//
// Worker i claims chunk i + 1 first and the caller chunk 0, so an op split the same way
// as the one before it gives each thread the same part of the tensors, the part its core
// has just had in cache (OpenMP's static schedule, which PyTorch's CPU kernels use, does
// the same). Then each claims whatever is left, so a chunk whose worker is slow to wake
// is run by someone else instead of waited for. On the 16-core host at 16 threads, against
// claiming in order (alternating twice, docs/PERFORMANCE.md): swiglu/geglu backward f32
// 1.37-1.75 -> 1.10-1.38 ms, bf16 embedding forward 0.12-0.14 -> 0.09-0.10 ms; f32
// layer_norm backward 1.19-1.33 -> 1.47-1.51 ms the one op slower.
//
// Waiting spins before it sleeps. A worker that finds nothing to claim watches the
// generation for spin_ (OPKIT_SPIN_US) before it blocks on cv_, and the caller watches
// pending_ as long before it blocks on done_cv_: a model calls op after op, and a thread
// asleep on a condition variable takes a futex wake and a reschedule to start, tens of
// microseconds on a VM. OpenMP runtimes spin the same way. The job word is stored under
// m_, so a worker going to sleep cannot miss it, and a notify on a condition variable
// nobody waits on makes no system call.
class Pool {
public:
    Pool() { size_claims(); }
    ~Pool() { stop(); }

    void set_threads(int32_t n, int32_t spin_us) {
        std::lock_guard<std::mutex> job(job_mutex_);
        stop();
        wanted_ = n > 0 ? n : int32_t(std::max(1u, std::thread::hardware_concurrency()));
        spin_ = std::chrono::microseconds(std::max(spin_us, 0));
        size_claims();
    }
    int32_t threads() {
        std::lock_guard<std::mutex> job(job_mutex_);
        return wanted_;
    }

    void run(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn) {
        if (n <= 0) return;
        grain = std::max<int64_t>(grain, 1);
        // n <= grain first: the tiny calls that run inline anyway skip the thread-local
        // lookup (a __tls_get_addr call in the shared library, ~11 instructions).
        if (n <= grain || t_in_worker) {
            fn(0, n);
            return;
        }
        std::unique_lock<std::mutex> job(job_mutex_, std::try_to_lock);
        if (!job.owns_lock()) {  // another thread's job is running: don't queue behind it
            fn(0, n);
            return;
        }
        const int64_t max_chunks = std::min<int64_t>((n + grain - 1) / grain, claims_);
        const int32_t nthreads = int32_t(std::min<int64_t>(wanted_, max_chunks));
        if (nthreads <= 1) {
            fn(0, n);
            return;
        }
        start(nthreads - 1);
        fn_ = &fn;
        n_ = n;
        pending_.store(nthreads, std::memory_order_relaxed);
        caller_cpu_.store(current_cpu(), std::memory_order_relaxed);
        uint64_t gen;
        {
            std::lock_guard<std::mutex> lk(m_);
            gen = generation(work_.load(std::memory_order_relaxed)) + 1;
            work_.store(pack(gen, uint32_t(nthreads)), std::memory_order_release);
        }
        cv_.notify_all();
        run_chunks(gen, uint32_t(nthreads), 0, false);
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
    // work_'s fields: generation (bits 63-16), chunk count (15-0).
    static constexpr int64_t kMaxChunks = 0xffff;
    static uint64_t pack(uint64_t gen, uint32_t chunks) { return gen << 16 | chunks; }
    static uint64_t generation(uint64_t w) { return w >> 16; }
    static uint32_t chunk_count(uint64_t w) { return uint32_t(w) & 0xffff; }

    // One claim slot per chunk a job can have (wanted_, at most kMaxChunks); called with
    // no worker running. Slots hold the generation that last claimed them (0: none).
    void size_claims() {
        claims_ = std::min<int64_t>(std::max(wanted_, 1), kMaxChunks);
        taken_.reset(new Slot[size_t(claims_)]);
        for (int64_t c = 0; c < claims_; ++c) taken_[c].gen.store(0, std::memory_order_relaxed);
    }

    bool claim(uint32_t c, uint64_t gen) {
        std::atomic<uint64_t>& slot = taken_[c].gen;
        uint64_t v = slot.load(std::memory_order_relaxed);
        while (v < gen)
            if (slot.compare_exchange_weak(v, gen, std::memory_order_acq_rel, std::memory_order_relaxed)) return true;
        return false;  // claimed in this job, or the job is over (a later one reached it)
    }

    // Runs chunk `first` of job `gen` if still unclaimed, then any other unclaimed chunk.
    // The thread that finishes the job's last chunk wakes a sleeping caller (`notify`:
    // unless it is the caller).
    void run_chunks(uint64_t gen, uint32_t chunks, uint32_t first, bool notify) {
        const auto run_one = [&](uint32_t c) {
            const int64_t begin = n_ * c / chunks, end = n_ * (c + 1) / chunks;
            if (begin < end) (*fn_)(begin, end);
            if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1 && notify) {
                { std::lock_guard<std::mutex> lk(m_); }  // the caller is waiting on done_cv_, or sees pending_ 0
                done_cv_.notify_one();
            }
        };
        if (first < chunks && claim(first, gen)) run_one(first);
        for (uint32_t c = 0; c < chunks; ++c)
            if (c != first && claim(c, gen)) run_one(c);
    }

    void start(int32_t workers) {
        const uint64_t seen = generation(work_.load(std::memory_order_relaxed));
        while (int32_t(workers_.size()) < workers) {
            const uint32_t own = uint32_t(workers_.size()) + 1;  // the caller's is chunk 0
            workers_.emplace_back([this, seen, own] { loop(seen, own); });
        }
    }

    // Moves this worker off the CPU the last job's caller published, if it is on it: at
    // most once a job (`moved` holds the generation it last moved in), so a caller that
    // follows it to its new CPU does not make it move on every poll.
    void leave_caller_cpu(uint64_t gen, uint64_t& moved) {
        if (moved == gen) return;
        const int cpu = current_cpu();
        if (cpu < 0 || cpu != caller_cpu_.load(std::memory_order_relaxed)) return;
        moved = gen;
        move_off_cpu(cpu);
    }

    void loop(uint64_t seen, uint32_t own) {  // seen: the last generation this worker took part in
        t_in_worker = true;
        const std::chrono::microseconds spin = spin_;  // set before the workers start
        uint64_t moved = 0;
        const auto moved_on = [&] { return generation(work_.load(std::memory_order_acquire)) != seen; };
        // While spinning: sharing the caller's CPU, it would only take turns with it.
        const auto poll = [&] {
            if (moved_on()) return true;
            leave_caller_cpu(seen, moved);
            return false;
        };
        for (;;) {
            if (!spin_until(spin, poll)) {
                std::unique_lock<std::mutex> lk(m_);
                cv_.wait(lk, moved_on);
            }
            const uint64_t w = work_.load(std::memory_order_acquire);
            seen = generation(w);
            // After that load: once it returns stop()'s generation, the acquire makes quit_
            // visible; an older one means stop()'s is still ahead, and the next wait ends.
            if (quit_.load(std::memory_order_relaxed)) return;
            leave_caller_cpu(seen, moved);
            run_chunks(seen, chunk_count(w), own, true);
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
    struct alignas(64) Slot {  // a cache line each: claimers of different chunks don't contend
        std::atomic<uint64_t> gen;
    };
    std::unique_ptr<Slot[]> taken_;  // claims_ slots
    std::atomic<int> caller_cpu_{-1};  // the CPU the last job's caller published it from
    int64_t claims_ = 0;
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
