// The emulated ACL runtime: aclInit and its reference count, devices, memory, streams and
// the per-thread error text, plus the failure injection and statistics of emu_control.h.
#include "core_internal.h"
#include "emu_control.h"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <sstream>

namespace emu {
namespace {

thread_local int t_device = -1;
thread_local uint64_t t_generation = 0;
thread_local std::string t_pending;   // newest message first
thread_local std::string t_returned;  // what the last aclGetRecentErrMsg handed out

std::string hex(const void* p) {
    std::ostringstream o;
    o << p;
    return o.str();
}

// The default streams of a freshly initialized runtime.
void reset_devices(State& s) {
    s.defaults.clear();
    for (int d = 0; d < s.devices; ++d) s.defaults.push_back(std::unique_ptr<Stream>(new Stream{d, true, {}}));
}

int parse_failures(State& s, const std::string& spec) {
    std::set<std::string> flags;
    std::map<std::string, int> codes;
    int64_t oom_after = -1;
    std::stringstream in(spec);
    std::string item;
    while (std::getline(in, item, ',')) {
        if (item.empty()) continue;
        const size_t eq = item.find('=');
        if (eq == std::string::npos) {
            if (item == "no_device" || item == "device_count_error" || item == "init_error" || item == "oom" ||
                item.rfind("kernel:", 0) == 0)
                flags.insert(item);
            else
                return -1;
            continue;
        }
        const std::string key = item.substr(0, eq);
        char* end = nullptr;
        const long long v = std::strtoll(item.c_str() + eq + 1, &end, 10);
        if (!end || *end) return -1;
        if (key == "oom_after") oom_after = v;
        else if (key.rfind("ws:", 0) == 0 || key.rfind("exec:", 0) == 0) codes[key] = int(v);
        else return -1;
    }
    s.flags = flags;
    s.codes = codes;
    s.oom_after = oom_after;
    s.mallocs = 0;
    return 0;
}

struct Boot {
    Boot() {
        State& s = state();
        if (const char* d = std::getenv("ASCEND_EMU_DEVICES")) s.devices = std::atoi(d);
        if (const char* f = std::getenv("ASCEND_EMU_FAIL"))
            if (parse_failures(s, f) != 0) std::fprintf(stderr, "ascend emulator: bad ASCEND_EMU_FAIL '%s'\n", f);
    }
} g_boot;

}  // namespace

State& state() {
    static State* s = new State;  // never destroyed: tasks may hold it at exit
    return *s;
}

int fail(int code, const std::string& message) {
    t_pending = t_pending.empty() ? message : message + "\n" + t_pending;
    return code;
}

int violation(int code, const std::string& message) {
    State& s = state();
    {
        Lock lock(s.mu);
        ++s.violations;
        s.last_violation = message;
    }
    return fail(code, message);
}

void served(const char* symbol, const void* address) {
    Dl_info info{};
    std::string lib = "?";
    if (dladdr(address, &info) && info.dli_fname) {
        lib = info.dli_fname;
        const size_t slash = lib.rfind('/');
        if (slash != std::string::npos) lib = lib.substr(slash + 1);
    }
    State& s = state();
    Lock lock(s.mu);
    s.served[symbol] = lib;
}

bool inject(const std::string& key) {
    State& s = state();
    Lock lock(s.mu);
    return s.flags.count(key) > 0;
}

int inject_code(const std::string& key) {
    State& s = state();
    Lock lock(s.mu);
    auto it = s.codes.find(key);
    return it == s.codes.end() ? 0 : it->second;
}

bool initialized() {
    State& s = state();
    Lock lock(s.mu);
    return s.initialized;
}

int current_device() { return t_generation == state().generation ? t_device : -1; }
int device_count() { return state().devices; }

const Alloc* find_alloc(const void* p, size_t n) {
    State& s = state();
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);
    auto it = s.allocs.upper_bound(a);
    if (it == s.allocs.begin()) return nullptr;
    --it;
    const Alloc& al = it->second;
    if (a < it->first || a + n > it->first + al.size) return nullptr;
    return &al;
}

int pending_uses(const void* p, size_t n) {
    State& s = state();
    const char* lo = static_cast<const char*>(p);
    int uses = 0;
    auto scan = [&](const Stream& st) {
        for (const Task& t : st.tasks)
            for (const auto& r : t.ranges)
                if (r.first < lo + n && lo < r.first + r.second) {
                    ++uses;
                    break;
                }
    };
    for (const auto& d : s.defaults) scan(*d);
    for (const Stream* st : s.streams) scan(*st);
    return uses;
}

Stream* stream_of(aclrtStream h, std::string* why) {
    State& s = state();
    const int dev = current_device();
    if (dev < 0) {
        *why = "no device is set on this thread (aclrtSetDevice)";
        return nullptr;
    }
    if (!h) return s.defaults[size_t(dev)].get();
    Stream* st = static_cast<Stream*>(h);
    if (!s.streams.count(st)) {
        *why = "stream " + hex(h) + " is not a live stream (destroyed, or never created by aclrtCreateStream)";
        return nullptr;
    }
    if (st->device != dev) {
        *why = "stream " + hex(h) + " belongs to device " + std::to_string(st->device) + " but device " +
               std::to_string(dev) + " is current";
        return nullptr;
    }
    return st;
}

aclError run_stream(Stream& st) {
    State& s = state();
    while (!st.tasks.empty()) {
        Task t = std::move(st.tasks.front());
        st.tasks.pop_front();
        for (const auto& r : t.ranges)
            if (!find_alloc(r.first, r.second)) {
                st.tasks.clear();
                return violation(kAivecException, "EZ9999: " + t.what + " ran on memory at " + hex(r.first) +
                                                      " that was freed after the task was queued");
            }
        const std::string err = t.run();
        ++s.tasks_run;
        if (!err.empty()) {
            st.tasks.clear();  // the stream is in error: what was queued behind it never runs
            return fail(kAivecException, "EZ9999: Inner Error! there is an aivec error exception in " + t.what +
                                             ": " + err);
        }
    }
    return kOk;
}

// ---------------------------------------------------------------- runtime ------------

aclError rt_init(const char* config) {
    State& s = state();
    Lock lock(s.mu);
    ++s.acl_init_calls;
    if (config && *config) {
        FILE* f = std::fopen(config, "r");
        if (!f) return fail(kInvalidParam, std::string("aclInit: cannot read the config file ") + config);
        std::fclose(f);
    }
    if (s.flags.count("init_error"))
        return fail(kFailure, "EE1001: aclInit failed: the NPU driver could not be opened (injected)");
    ++s.init_refs;  // every aclInit takes a reference (9.x; audit:170)
    if (s.initialized) return fail(kRepeatInitialize, "aclInit: already initialized, repeated call ignored");
    s.initialized = true;
    ++s.generation;
    reset_devices(s);
    return kOk;
}

aclError rt_finalize_reference(uint64_t* refs) {
    State& s = state();
    Lock lock(s.mu);
    ++s.finalize_calls;
    if (!s.initialized || s.init_refs <= 0)
        return violation(kUninitialize, "aclFinalizeReference without a matching aclInit");
    --s.init_refs;
    if (refs) *refs = uint64_t(s.init_refs);
    if (s.init_refs == 0) {
        // The last reference: the runtime goes down with what it held.
        for (auto& kv : s.allocs) std::free(kv.second.base);
        s.allocs.clear();
        for (Stream* st : s.streams) delete st;
        s.streams.clear();
        s.defaults.clear();
        s.initialized = false;
        s.aclnn_initialized = false;
        ++s.generation;
    }
    return kOk;
}

const char* rt_recent_error() {
    // Only the latest pointer is valid (audit:171): the previous text is overwritten.
    std::fill(t_returned.begin(), t_returned.end(), '#');
    t_returned = t_pending;
    t_pending.clear();
    return t_returned.empty() ? nullptr : t_returned.c_str();
}

aclError rt_set_device(int32_t id) {
    State& s = state();
    Lock lock(s.mu);
    ++s.set_device_calls;
    if (!s.initialized) return violation(kUninitialize, "aclrtSetDevice before aclInit");
    if (id < 0 || id >= s.devices)
        return fail(kRtInvalidDevice, "aclrtSetDevice: device " + std::to_string(id) + " does not exist (" +
                                          std::to_string(s.devices) + " devices)");
    t_device = id;
    t_generation = s.generation;
    return kOk;
}

aclError rt_get_device(int32_t* id) {
    if (!id) return fail(kInvalidParam, "aclrtGetDevice: NULL");
    const int d = current_device();
    if (d < 0) return fail(kRtContextNull, "aclrtGetDevice: no device is set on this thread");
    *id = d;
    return kOk;
}

aclError rt_get_device_count(uint32_t* count) {
    State& s = state();
    Lock lock(s.mu);
    if (!count) return fail(kInvalidParam, "aclrtGetDeviceCount: NULL");
    if (!s.initialized) return violation(kUninitialize, "aclrtGetDeviceCount before aclInit");
    if (s.flags.count("device_count_error"))
        return fail(kRtNoDevice, "EE1001: no NPU device found: drvGetDevNum failed (injected)");
    *count = s.flags.count("no_device") ? 0u : uint32_t(s.devices);
    return kOk;
}

aclError rt_synchronize_device() {
    State& s = state();
    Lock lock(s.mu);
    const int dev = current_device();
    if (dev < 0) return violation(kRtContextNull, "aclrtSynchronizeDevice: no device is set on this thread");
    aclError first = kOk;
    auto sync = [&](Stream& st) {
        const aclError e = run_stream(st);
        if (first == kOk) first = e;
    };
    sync(*s.defaults[size_t(dev)]);
    for (Stream* st : s.streams)
        if (st->device == dev) sync(*st);
    return first;
}

aclError rt_malloc(void** ptr, size_t size, int policy) {
    State& s = state();
    Lock lock(s.mu);
    const int dev = current_device();
    if (!ptr) return fail(kInvalidParam, "aclrtMalloc: devPtr is NULL");
    if (dev < 0) return violation(kRtContextNull, "aclrtMalloc: no device is set on this thread");
    if (size == 0) return violation(kInvalidParam, "aclrtMalloc: size 0");
    // aclrtMemMallocPolicy (audit:177): 0..7, optionally with the bandwidth/read-only flags.
    const int base = policy & 0xff, flags = policy & ~0xff;
    if (base > 7 || (flags & ~(0x100 | 0x1000 | 0x100000)))
        return violation(kInvalidParam, "aclrtMalloc: " + std::to_string(policy) + " is not an aclrtMemMallocPolicy");
    ++s.mallocs;
    if (s.flags.count("oom") || (s.oom_after >= 0 && s.mallocs > s.oom_after))
        return fail(kRtMemoryAllocation, "EL0004: aclrtMalloc failed to allocate " + std::to_string(size) +
                                             " bytes of device memory: out of memory (injected)");
    // Aligned to 64 and padded by 32 bytes, as the runtime does (audit:165).
    const size_t total = (size + 32 + 63) / 64 * 64;
    char* p = static_cast<char*>(std::aligned_alloc(64, total));
    if (!p) return fail(kRtMemoryAllocation, "aclrtMalloc: host allocation failed");
    std::memset(p, 0xCD, total);  // fresh device memory is garbage, not zeros
    s.allocs[reinterpret_cast<uintptr_t>(p)] = Alloc{p, size, dev};
    *ptr = p;
    return kOk;
}

aclError rt_free(void* ptr) {
    State& s = state();
    Lock lock(s.mu);
    auto it = s.allocs.find(reinterpret_cast<uintptr_t>(ptr));
    if (it == s.allocs.end())
        return violation(kInvalidParam, "aclrtFree(" + hex(ptr) + "): not the start of a live aclrtMalloc block");
    if (it->second.device != current_device())
        return violation(kRtContextNull, "aclrtFree(" + hex(ptr) + "): the block is on device " +
                                             std::to_string(it->second.device) + " but device " +
                                             std::to_string(current_device()) + " is current");
    if (const int uses = pending_uses(ptr, it->second.size))
        return violation(kInvalidParam, "aclrtFree(" + hex(ptr) + "): " + std::to_string(uses) +
                                            " queued task(s) still use the block; synchronize first");
    std::free(it->second.base);
    s.allocs.erase(it);
    return kOk;
}

namespace {

// Checks a copy's two sides against its kind; the device side must be the current device's.
aclError check_copy(const char* fn, void* dst, size_t dest_max, const void* src, size_t count, int kind) {
    if (!dst || !src) return violation(kInvalidParam, std::string(fn) + ": NULL pointer");
    if (dest_max < count)
        return violation(kInvalidParam, std::string(fn) + ": count " + std::to_string(count) + " > destMax " +
                                            std::to_string(dest_max));
    if (kind < 0 || kind > 3)  // the vendor has no use for DEFAULT (4) or the internal kinds
        return violation(kInvalidParam, std::string(fn) + ": kind " + std::to_string(kind) +
                                            " is not host/device to host/device");
    const bool dst_dev = kind == 1 || kind == 3, src_dev = kind == 2 || kind == 3;
    const int dev = current_device();
    auto side = [&](const void* p, bool device, const char* what) -> aclError {
        const Alloc* a = find_alloc(p, count);
        if (device && !a)
            return violation(kInvalidParam, std::string(fn) + ": " + what + " " + hex(p) + " + " +
                                                std::to_string(count) + " is not inside one aclrtMalloc block");
        if (device && a->device != dev)
            return violation(kRtContextNull, std::string(fn) + ": " + what + " is memory of device " +
                                                 std::to_string(a->device) + " but device " + std::to_string(dev) +
                                                 " is current");
        if (!device && find_alloc(p, 1))
            return violation(kInvalidParam, std::string(fn) + ": " + what + " is device memory but kind " +
                                                std::to_string(kind) + " says host");
        return kOk;
    };
    if (const aclError e = side(dst, dst_dev, "dst")) return e;
    return side(src, src_dev, "src");
}

}  // namespace

aclError rt_memcpy(void* dst, size_t dest_max, const void* src, size_t count, int kind) {
    State& s = state();
    Lock lock(s.mu);
    if (current_device() < 0) return violation(kRtContextNull, "aclrtMemcpy: no device is set on this thread");
    if (const aclError e = check_copy("aclrtMemcpy", dst, dest_max, src, count, kind)) return e;
    // Synchronous, and not ordered with any stream: whoever needs queued work done first
    // synchronizes first.
    std::memmove(dst, src, count);
    return kOk;
}

aclError rt_memcpy_async(void* dst, size_t dest_max, const void* src, size_t count, int kind, aclrtStream stream) {
    State& s = state();
    Lock lock(s.mu);
    std::string why;
    Stream* st = stream_of(stream, &why);
    if (!st) return violation(kRtStreamContext, "aclrtMemcpyAsync: " + why);
    if (const aclError e = check_copy("aclrtMemcpyAsync", dst, dest_max, src, count, kind)) return e;
    if (kind == 3 && ((reinterpret_cast<uintptr_t>(dst) | reinterpret_cast<uintptr_t>(src)) & 63))
        return violation(kInvalidParam, "aclrtMemcpyAsync: device-to-device copies need 64-byte aligned src and dst "
                                        "(" + hex(src) + " -> " + hex(dst) + ")");
    Task t;
    t.what = "aclrtMemcpyAsync";
    std::vector<std::pair<char*, size_t>> ranges;
    if (kind == 1 || kind == 3) t.ranges.push_back({static_cast<char*>(dst), count});
    if (kind == 2 || kind == 3) t.ranges.push_back({const_cast<char*>(static_cast<const char*>(src)), count});
    t.run = [dst, src, count]() {
        std::memmove(dst, src, count);  // host memory is read when the copy runs, not now
        return std::string();
    };
    st->tasks.push_back(std::move(t));
    return kOk;
}

aclError rt_create_stream(aclrtStream* stream) {
    State& s = state();
    Lock lock(s.mu);
    if (!stream) return fail(kInvalidParam, "aclrtCreateStream: NULL");
    const int dev = current_device();
    if (dev < 0) return violation(kRtContextNull, "aclrtCreateStream: no device is set on this thread");
    Stream* st = new Stream{dev, false, {}};
    s.streams.insert(st);
    *stream = st;
    return kOk;
}

aclError rt_destroy_stream(aclrtStream stream) {
    State& s = state();
    Lock lock(s.mu);
    std::string why;
    if (!stream) return violation(kInvalidParam, "aclrtDestroyStream(NULL): the default stream is not destroyed");
    Stream* st = stream_of(stream, &why);
    if (!st) return violation(kRtStreamContext, "aclrtDestroyStream: " + why);
    if (!st->tasks.empty())
        return violation(kInvalidParam, "aclrtDestroyStream: " + std::to_string(st->tasks.size()) +
                                            " task(s) still queued; synchronize the stream first (audit:167)");
    s.streams.erase(st);
    delete st;
    return kOk;
}

aclError rt_synchronize_stream(aclrtStream stream) {
    State& s = state();
    Lock lock(s.mu);
    std::string why;
    Stream* st = stream_of(stream, &why);
    if (!st) return violation(kRtStreamContext, "aclrtSynchronizeStream: " + why);
    return run_stream(*st);
}

const char* rt_soc_name() { return "Ascend910B3"; }  // an Atlas A2: the products the docs cite most

}  // namespace emu

// ---------------------------------------------------------------- control API --------
using namespace emu;

extern "C" EMU_API int ascend_emu_set_failures(const char* spec) {
    State& s = state();
    Lock lock(s.mu);
    return parse_failures(s, spec ? spec : "");
}

extern "C" EMU_API void ascend_emu_get_stats(ascend_emu_stats* out) {
    State& s = state();
    Lock lock(s.mu);
    *out = ascend_emu_stats{};
    out->live_tensors = int64_t(s.tensors.size());
    out->live_scalars = int64_t(s.scalars.size());
    out->live_int_arrays = int64_t(s.int_arrays.size());
    out->live_bool_arrays = int64_t(s.bool_arrays.size());
    out->live_executors = int64_t(s.executors.size());
    out->live_allocations = int64_t(s.allocs.size());
    for (const auto& d : s.defaults) out->pending_tasks += int64_t(d->tasks.size());
    for (const Stream* st : s.streams) out->pending_tasks += int64_t(st->tasks.size());
    out->tasks_run = s.tasks_run;
    out->violations = s.violations;
    out->acl_init_calls = s.acl_init_calls;
    out->aclnn_init_calls = s.aclnn_init_calls;
    out->finalize_reference_calls = s.finalize_calls;
    out->init_refs = s.init_refs;
    out->set_device_calls = s.set_device_calls;
}

extern "C" EMU_API const char* ascend_emu_last_violation(void) {
    static thread_local std::string copy;
    State& s = state();
    Lock lock(s.mu);
    copy = s.last_violation;
    return copy.c_str();
}

extern "C" EMU_API const char* ascend_emu_served_by(const char* symbol) {
    static thread_local std::string copy;
    State& s = state();
    Lock lock(s.mu);
    auto it = s.served.find(symbol ? symbol : "");
    copy = it == s.served.end() ? "" : it->second;
    return copy.c_str();
}

extern "C" EMU_API void ascend_emu_reset_counters(void) {
    State& s = state();
    Lock lock(s.mu);
    s.served.clear();
    s.tasks_run = 0;
    s.violations = 0;
    s.last_violation.clear();
}
