// The core's shared state (inside libascend_emu.so only).
#pragma once

#include "core.h"

#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <unordered_set>

struct aclOpExecutor {
    uint64_t magic;
    std::string op;
    uint64_t workspace = 0;
    bool repeatable = false;
    int device = -1;
    std::function<std::string()> kernel;
    std::vector<const void*> handles;               // tensors/scalars/arrays of phase 1
    std::vector<std::pair<char*, size_t>> ranges;   // memory the task reads and writes
};

namespace emu {

constexpr uint64_t kTensorMagic = 0x7e9501a11ce5ull, kScalarMagic = 0x5ca1a55ca1a5ull,
                   kIntsMagic = 0x1275a7700001ull, kBoolsMagic = 0xb0015a770001ull,
                   kExecutorMagic = 0xe8ec07e8ec07ull;

struct Alloc {
    char* base;
    size_t size;  // what the caller asked for
    int device;
};

struct Task {
    std::string what;
    std::function<std::string()> run;
    std::vector<std::pair<char*, size_t>> ranges;
};

struct Stream {
    int device;
    bool is_default;
    std::deque<Task> tasks;
};

struct State {
    std::recursive_mutex mu;
    bool initialized = false;
    int64_t init_refs = 0;
    uint64_t generation = 1;  // bumped by a finalize: threads' current devices lapse
    int devices = 2;
    std::map<uintptr_t, Alloc> allocs;
    std::vector<std::unique_ptr<Stream>> defaults;  // one per device
    std::unordered_set<Stream*> streams;            // created by aclrtCreateStream
    std::unordered_set<const void*> tensors, scalars, int_arrays, bool_arrays;
    std::unordered_set<const aclOpExecutor*> executors;
    std::map<std::string, std::string> served;
    std::string last_violation;
    int64_t tasks_run = 0, violations = 0, acl_init_calls = 0, aclnn_init_calls = 0, finalize_calls = 0,
            set_device_calls = 0;
    // failures
    std::set<std::string> flags;
    std::map<std::string, int> codes;
    int64_t oom_after = -1, mallocs = 0;
    bool aclnn_initialized = false;
};

State& state();
using Lock = std::lock_guard<std::recursive_mutex>;

// The allocation holding [p, p + n) whole, or NULL.
const Alloc* find_alloc(const void* p, size_t n);
// Tasks queued anywhere that use [p, p + n).
int pending_uses(const void* p, size_t n);
Stream* stream_of(aclrtStream s, std::string* why);  // NULL -> the current device's default
aclError run_stream(Stream& s);

}  // namespace emu
