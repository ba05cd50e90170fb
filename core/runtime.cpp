#include "runtime.h"

#include "cpu/kernels.h"
#include "cpu/parallel.h"
#include "error.h"
#include "log.h"
#include "verify.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>
#include <stdexcept>

namespace opkit {

std::atomic<Runtime*> g_runtime{nullptr};  // runtime.h

namespace {

std::mutex g_init_mutex;
uint64_t g_generation = 0;  // guarded by g_init_mutex

void vendor_log(int32_t level, const char* message) {
    if (message) log_message(level, std::string("vendor: ") + message);
}

const opkit_vendor_host& vendor_host() {
    static const opkit_vendor_host host = {sizeof(opkit_vendor_host), OPKIT_VENDOR_ABI_VERSION,
                                           OPKIT_VERSION_NUMBER, vendor_log};
    return host;
}

// Position of `name` in the OPKIT_VENDORS list, or the list's size when absent.
size_t order_of(const Settings& s, const std::string& name) {
    auto it = std::find(s.vendors.begin(), s.vendors.end(), name);
    return size_t(it - s.vendors.begin());
}

DeviceEntry& device_entry(Runtime& rt, int32_t type) {
    for (DeviceEntry& d : rt.devices)
        if (d.device_type == type) return d;
    rt.devices.emplace_back();
    rt.devices.back().device_type = type;
    return rt.devices.back();
}

void build_candidates(Runtime& rt) {
    device_entry(rt, OPKIT_DEVICE_CPU).device_count = 1;  // always devices[0]

    std::vector<int32_t> ready;
    for (int32_t i = 0; i < int32_t(rt.vendors.size()); ++i)
        if (rt.vendors[i].state == OPKIT_VENDOR_READY) ready.push_back(i);
    std::stable_sort(ready.begin(), ready.end(), [&](int32_t a, int32_t b) {
        const loader::Vendor &va = rt.vendors[a], &vb = rt.vendors[b];
        const size_t oa = order_of(rt.settings, va.name), ob = order_of(rt.settings, vb.name);
        if (oa != ob) return oa < ob;
        if (va.priority != vb.priority) return va.priority > vb.priority;
        return va.name < vb.name;
    });

    for (int32_t vi : ready) {
        const loader::Vendor& v = rt.vendors[vi];
        DeviceEntry& d = device_entry(rt, canonical_device_type(v.device_type));
        d.vendors.push_back(vi);
        if (d.device_type != OPKIT_DEVICE_CPU && d.memory_vendor < 0 && v.memory.complete()) {
            d.memory_vendor = vi;
            d.device_count = v.device_count;
        }
        for (int32_t op = 0; op < kOpCount; ++op) {
            CandidateList& list = d.ops[op];
            if (v.ops[op] && list.count < kMaxCandidates) list.items[list.count++] = {v.ops[op], vi};
        }
    }

    // The built-in defaults come last on the CPU. (Looked up only now: adding device
    // entries above may have moved the vector.)
    DeviceEntry& cpu = device_entry(rt, OPKIT_DEVICE_CPU);
    for (int32_t op = 0; op < kOpCount; ++op) {
        CandidateList& list = cpu.ops[op];
        if (list.count == kMaxCandidates) --list.count;  // the default always has a place
        list.items[list.count++] = {cpu::kDefaults[op], -1};
    }
}

opkit_status do_init(const opkit_init_options* options) {
    const auto t0 = std::chrono::steady_clock::now();
    if (testing::throw_in_next_init.exchange(false)) throw std::runtime_error("fault injected by a test");
    auto rt = std::make_unique<Runtime>();
    OPKIT_TRY(read_settings(options, &rt->settings));
    // A level the application set with opkit_set_log_level before this (implicit) init
    // stays: only an explicit init option replaces it (the environment does not).
    if (rt->settings.log_level_from_options || !log_level_set_by_application())
        set_log_level(rt->settings.log_level);
    cpu::set_num_threads(rt->settings.num_threads, rt->settings.spin_us);
    rt->generation = ++g_generation;
    if (rt->settings.verify > 0.0) rt->verify = make_verify_state(rt->settings.verify);

    loader::Config lc;
    for (const std::string& p : rt->settings.vendor_path) {
        if (p.empty() || p[0] != '/') {
            logf(OPKIT_LOG_WARN, "ignoring vendor path entry \"%s\": only absolute paths are searched",
                 p.c_str());
            continue;
        }
        lc.search_path.push_back(p);
    }
    lc.allow = rt->settings.vendors;
    lc.deny = rt->settings.vendors_disable;
    rt->search_locations = loader::search_locations(lc);
    rt->vendors = loader::load_vendors(lc, vendor_host());
    for (const loader::Vendor& v : rt->vendors) {
        if (v.state == OPKIT_VENDOR_READY)
            logf(OPKIT_LOG_INFO, "vendor %s %s ready: %s, %d device(s), %d op(s)", v.name.c_str(),
                 v.version.c_str(), device_type_name(v.device_type), int(v.device_count),
                 int(v.op_count));
        else
            logf(v.state == OPKIT_VENDOR_NO_DEVICE || v.state == OPKIT_VENDOR_DISABLED
                     ? OPKIT_LOG_INFO
                     : OPKIT_LOG_WARN,
                 "vendor %s (%s) not used: %s", v.name.c_str(), v.path.c_str(), v.detail.c_str());
    }
    build_candidates(*rt);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    logf(OPKIT_LOG_DEBUG, "initialized in %.2f ms with %zu vendor candidate(s)", ms,
         rt->vendors.size());
    g_runtime.store(rt.release(), std::memory_order_release);
    return OPKIT_OK;
}

}  // namespace

Runtime* runtime_if_initialized() { return g_runtime.load(std::memory_order_acquire); }

namespace testing {
std::atomic<bool> throw_in_next_init{false};
}

Runtime* runtime_slow() {
    Runtime* rt;
    std::lock_guard<std::mutex> lock(g_init_mutex);
    rt = g_runtime.load(std::memory_order_acquire);
    if (rt) return rt;
    // Callers outside a guard (opkit_vendor_count, ...) rely on this never throwing.
    if (guard("implicit initialization", [] { return do_init(nullptr); }) != OPKIT_OK) {
        prefix_error("implicit initialization failed: ");
        return nullptr;
    }
    return g_runtime.load(std::memory_order_acquire);
}

const char* device_type_name(int32_t t) {
    switch (canonical_device_type(t)) {
    case OPKIT_DEVICE_CPU: return "cpu";
    case OPKIT_DEVICE_CUDA: return "cuda";
    case OPKIT_DEVICE_ROCM: return "rocm";
    case OPKIT_DEVICE_ASCEND: return "ascend";
    default: {
        static thread_local char buf[32];
        snprintf(buf, sizeof buf, "device type %d", int(t));
        return buf;
    }
    }
}

}  // namespace opkit

using namespace opkit;

extern "C" OPKIT_API opkit_status opkit_init(const opkit_init_options* options) {
    return guard("opkit_init", [&]() -> opkit_status {
        std::lock_guard<std::mutex> lock(g_init_mutex);
        if (g_runtime.load(std::memory_order_acquire))
            return fail(OPKIT_ERROR_INVALID_ARGUMENT,
                        "opkit_init: already initialized; call opkit_shutdown first");
        return do_init(options);
    });
}

extern "C" OPKIT_API void opkit_shutdown(void) {
    guard("opkit_shutdown", []() -> opkit_status {
        std::lock_guard<std::mutex> lock(g_init_mutex);
        Runtime* rt = g_runtime.exchange(nullptr, std::memory_order_acq_rel);
        if (rt) {
            loader::unload_vendors(rt->vendors);
            delete rt;
        }
        cpu::shutdown_pool();
        return OPKIT_OK;
    });
}
