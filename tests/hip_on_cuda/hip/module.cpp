// HIP-over-CUDA test runtime: the module API and kernel launches.
//
// hipModuleLoadData takes whatever image the caller embeds; in the test build of the
// rocm vendor those are nvcc cubins/fatbins of the same vendors/gpu sources, passed to
// cuModuleLoadData unchanged. Handles are cast (hipModule_t <-> CUmodule, hipFunction_t
// <-> CUfunction, hipStream_t <-> CUstream; NULL is the null stream in both, and
// hipStreamPerThread == CU_STREAM_PER_THREAD == 2).
//
// The one translation in a launch: the `extra` array. Its buffer-pointer (1) and
// buffer-size (2) markers agree, but HIP_LAUNCH_PARAM_END is 3 where CU_LAUNCH_PARAM_END
// is 0, so the array is copied with the end marker rewritten (and any other key
// rejected).
//
// Test hook: every successful hipModuleLaunchKernel is counted per stream handle, so a
// test can prove an op ran on the caller's stream (opkit_hipshim_launches).
//
// What this cannot prove: AMD code objects (hipcc bundles) are never loaded, so kernel
// metadata, wave64, LDS limits and AMD numerics stay untested here.
#include "device.h"
#include "errors.h"
#include "launch_count.h"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <unordered_map>

namespace hipshim {
namespace {

std::mutex g_count_mutex;
std::unordered_map<hipStream_t, uint64_t> g_counts;
std::atomic<uint64_t> g_total{0};

// Longest `extra` accepted: pointer + size + end take 5 entries; a longer array is a bug.
constexpr int kMaxExtra = 16;

hipError_t translate_extra(void** extra, void** out) noexcept {
    for (int i = 0; i < kMaxExtra; i += 2) {
        void* key = extra[i];
        if (key == HIP_LAUNCH_PARAM_END) {
            out[i] = CU_LAUNCH_PARAM_END;
            return hipSuccess;
        }
        if (key == HIP_LAUNCH_PARAM_BUFFER_POINTER) {
            out[i] = CU_LAUNCH_PARAM_BUFFER_POINTER;
        } else if (key == HIP_LAUNCH_PARAM_BUFFER_SIZE) {
            out[i] = CU_LAUNCH_PARAM_BUFFER_SIZE;
        } else {
            return hipErrorInvalidValue;  // includes CU_LAUNCH_PARAM_END (0) passed by mistake
        }
        out[i + 1] = extra[i + 1];
    }
    return hipErrorInvalidValue;  // no HIP_LAUNCH_PARAM_END within kMaxExtra entries
}

}  // namespace

void reset_launch_count(hipStream_t stream) noexcept {
    try {
        std::lock_guard<std::mutex> lock(g_count_mutex);
        g_counts.erase(stream);
    } catch (...) {
    }
}

void count_launch(hipStream_t stream) noexcept {
    g_total.fetch_add(1, std::memory_order_relaxed);
    try {
        std::lock_guard<std::mutex> lock(g_count_mutex);
        ++g_counts[stream];
    } catch (...) {  // a lost count only weakens the test hook
    }
}

}  // namespace hipshim

using hipshim::Driver;
using hipshim::entry;

extern "C" hipError_t hipModuleLoadData(hipModule_t* module, const void* image) {
    return entry([&]() -> hipError_t {
        if (!module || !image) return hipErrorInvalidValue;
        const Driver* cu = nullptr;
        if (hipError_t e = hipshim::enter(&cu)) return e;
        CUmodule m = nullptr;
        if (CUresult r = cu->cuModuleLoadData(&m, image)) return hipshim::from_cu(r);
        *module = reinterpret_cast<hipModule_t>(m);
        return hipSuccess;
    });
}

extern "C" hipError_t hipModuleUnload(hipModule_t module) {
    return entry([&]() -> hipError_t {
        const Driver* cu = nullptr;
        if (hipError_t e = hipshim::enter(&cu)) return e;
        if (!module) return hipErrorInvalidHandle;
        return hipshim::from_cu(cu->cuModuleUnload(reinterpret_cast<CUmodule>(module)));
    });
}

extern "C" hipError_t hipModuleGetFunction(hipFunction_t* function, hipModule_t module, const char* kname) {
    return entry([&]() -> hipError_t {
        if (!function || !kname) return hipErrorInvalidValue;
        const Driver* cu = nullptr;
        if (hipError_t e = hipshim::enter(&cu)) return e;
        if (!module) return hipErrorInvalidHandle;
        CUfunction f = nullptr;
        if (CUresult r = cu->cuModuleGetFunction(&f, reinterpret_cast<CUmodule>(module), kname))
            return hipshim::from_cu(r);  // CUDA_ERROR_NOT_FOUND (500) = hipErrorNotFound
        *function = reinterpret_cast<hipFunction_t>(f);
        return hipSuccess;
    });
}

extern "C" hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned int gridDimX, unsigned int gridDimY,
                                            unsigned int gridDimZ, unsigned int blockDimX,
                                            unsigned int blockDimY, unsigned int blockDimZ,
                                            unsigned int sharedMemBytes, hipStream_t stream,
                                            void** kernelParams, void** extra) {
    return entry([&]() -> hipError_t {
        const Driver* cu = nullptr;
        if (hipError_t e = hipshim::enter(&cu)) return e;
        if (!f) return hipErrorInvalidHandle;
        if (kernelParams && extra) return hipErrorInvalidValue;  // exactly one way to pass arguments
        void* cu_extra[hipshim::kMaxExtra];
        void** extra_arg = nullptr;
        if (extra) {
            if (hipError_t e = hipshim::translate_extra(extra, cu_extra)) return e;
            extra_arg = cu_extra;
        }
        const CUresult r = cu->cuLaunchKernel(reinterpret_cast<CUfunction>(f), gridDimX, gridDimY, gridDimZ,
                                              blockDimX, blockDimY, blockDimZ, sharedMemBytes,
                                              reinterpret_cast<CUstream>(stream), kernelParams, extra_arg);
        if (r != CUDA_SUCCESS) return hipshim::from_cu(r);
        hipshim::count_launch(stream);
        return hipSuccess;
    });
}

// ---- test-only exports ----

extern "C" uint64_t opkit_hipshim_launches(hipStream_t stream) {
    try {
        std::lock_guard<std::mutex> lock(hipshim::g_count_mutex);
        auto it = hipshim::g_counts.find(stream);
        return it == hipshim::g_counts.end() ? 0 : it->second;
    } catch (...) {
        return 0;
    }
}

extern "C" uint64_t opkit_hipshim_launches_total(void) {
    return hipshim::g_total.load(std::memory_order_relaxed);
}
