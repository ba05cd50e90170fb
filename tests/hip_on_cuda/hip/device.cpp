// HIP-over-CUDA test runtime: initialization, devices and contexts (see device.h), and
// the hip* entry points that are about them: hipInit, versions, device count, current
// device, names and device-wide synchronization.
//
// What this cannot prove: AMD's runtime initializes HSA, enumerates agents and keeps one
// context per device internally; none of that runs here. Only the API contract (return
// codes, per-thread device, the no-device answers) is reproduced.
#include "device.h"

#include "errors.h"

#include <hip/hip_version.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

namespace hipshim {
namespace {

struct State {
    hipError_t status = hipErrorNoDevice;
    const Driver* cu = nullptr;
    std::vector<CUdevice> devices;
    std::unique_ptr<std::atomic<CUcontext>[]> primary;  // one per device, NULL until retained
    std::mutex retain_mutex;
};

State g_state;
std::once_flag g_once;
thread_local int t_device = 0;

void initialize() noexcept {
    CUresult why = CUDA_SUCCESS;
    const Driver* cu = driver(&why);
    if (!cu) return;  // status stays hipErrorNoDevice; driver() kept the reason
    CUresult r = cu->cuInit(0);
    if (r != CUDA_SUCCESS) {
        verbose_reason(r == CUDA_ERROR_NO_DEVICE ? "cuInit: no CUDA device" : "cuInit failed");
        return;
    }
    int count = 0;
    if (cu->cuDeviceGetCount(&count) != CUDA_SUCCESS || count <= 0) {
        verbose_reason("cuDeviceGetCount found no device");
        return;
    }
    try {
        g_state.devices.resize(size_t(count));
        g_state.primary.reset(new std::atomic<CUcontext>[size_t(count)]);
    } catch (...) {
        verbose_reason("out of host memory");
        return;
    }
    for (int i = 0; i < count; ++i) {
        g_state.primary[size_t(i)].store(nullptr);
        if (cu->cuDeviceGet(&g_state.devices[size_t(i)], i) != CUDA_SUCCESS) {
            verbose_reason("cuDeviceGet failed");
            g_state.devices.clear();
            return;
        }
    }
    g_state.cu = cu;
    g_state.status = hipSuccess;
}

}  // namespace

hipError_t runtime(const Driver** cu) noexcept {
    try {
        std::call_once(g_once, initialize);
    } catch (...) {
        *cu = nullptr;
        return hipErrorNoDevice;
    }
    *cu = g_state.cu;
    return g_state.status;
}

hipError_t runtime_or_invalid_device(const Driver** cu) noexcept {
    return runtime(cu) == hipSuccess ? hipSuccess : hipErrorInvalidDevice;
}

int device_count() noexcept { return int(g_state.devices.size()); }

bool valid_device(int id) noexcept { return id >= 0 && id < device_count(); }

CUdevice cu_device(int id) noexcept { return g_state.devices[size_t(id)]; }

int current_device() noexcept { return t_device; }

void set_current_device(int id) noexcept { t_device = id; }

hipError_t primary_context(int id, CUcontext* ctx) noexcept {
    std::atomic<CUcontext>& slot = g_state.primary[size_t(id)];
    CUcontext c = slot.load(std::memory_order_acquire);
    if (!c) {
        try {
            std::lock_guard<std::mutex> lock(g_state.retain_mutex);
            c = slot.load(std::memory_order_relaxed);
            if (!c) {
                const CUresult r = g_state.cu->cuDevicePrimaryCtxRetain(&c, cu_device(id));
                if (r != CUDA_SUCCESS) return from_cu(r);
                slot.store(c, std::memory_order_release);
            }
        } catch (...) {  // mutex failure
            return hipErrorUnknown;
        }
    }
    *ctx = c;
    return hipSuccess;
}

hipError_t enter(const Driver** cu) noexcept {
    if (hipError_t e = runtime_or_invalid_device(cu)) return e;
    CUcontext want = nullptr;
    if (hipError_t e = primary_context(current_device(), &want)) return e;
    CUcontext now = nullptr;
    if ((*cu)->cuCtxGetCurrent(&now) != CUDA_SUCCESS || now != want) {
        if (CUresult r = (*cu)->cuCtxSetCurrent(want)) return from_cu(r);
    }
    return hipSuccess;
}

}  // namespace hipshim

using hipshim::Driver;
using hipshim::entry;

extern "C" hipError_t hipInit(unsigned int flags) {
    return entry([&]() -> hipError_t {
        if (flags != 0) return hipErrorInvalidValue;  // as cuInit: no flags are defined
        const Driver* cu = nullptr;
        return hipshim::runtime_or_invalid_device(&cu);
    });
}

extern "C" hipError_t hipDriverGetVersion(int* driverVersion) {
    return entry([&]() -> hipError_t {
        if (!driverVersion) return hipErrorInvalidValue;
        // Like AMD's runtime, this succeeds without a device; the value is then 0.
        *driverVersion = 0;
        CUresult why = CUDA_SUCCESS;
        if (const Driver* cu = hipshim::driver(&why)) {
            if (cu->cuDriverGetVersion(driverVersion) != CUDA_SUCCESS) *driverVersion = 0;
        }
        return hipSuccess;
    });
}

extern "C" hipError_t hipRuntimeGetVersion(int* runtimeVersion) {
    return entry([&]() -> hipError_t {
        if (!runtimeVersion) return hipErrorInvalidValue;
        *runtimeVersion = HIP_VERSION;  // the headers this was built against: 50221153 (5.2)
        return hipSuccess;
    });
}

extern "C" hipError_t hipGetDeviceCount(int* count) {
    return entry([&]() -> hipError_t {
        if (!count) return hipErrorInvalidValue;
        const Driver* cu = nullptr;
        if (hipError_t e = hipshim::runtime(&cu)) {
            *count = 0;
            return e;  // hipErrorNoDevice
        }
        *count = hipshim::device_count();
        return hipSuccess;
    });
}

extern "C" hipError_t hipGetDevice(int* deviceId) {
    return entry([&]() -> hipError_t {
        if (!deviceId) return hipErrorInvalidValue;
        const Driver* cu = nullptr;
        if (hipError_t e = hipshim::runtime_or_invalid_device(&cu)) return e;
        *deviceId = hipshim::current_device();
        return hipSuccess;
    });
}

extern "C" hipError_t hipSetDevice(int deviceId) {
    return entry([&]() -> hipError_t {
        const Driver* cu = nullptr;
        if (hipError_t e = hipshim::runtime_or_invalid_device(&cu)) return e;
        if (!hipshim::valid_device(deviceId)) return hipErrorInvalidDevice;
        hipshim::set_current_device(deviceId);
        return hipshim::enter(&cu);  // HIP creates the device's context here, so does the shim
    });
}

extern "C" hipError_t hipDeviceGet(hipDevice_t* device, int ordinal) {
    return entry([&]() -> hipError_t {
        if (!device) return hipErrorInvalidValue;
        const Driver* cu = nullptr;
        if (hipError_t e = hipshim::runtime_or_invalid_device(&cu)) return e;
        if (!hipshim::valid_device(ordinal)) return hipErrorInvalidDevice;
        *device = ordinal;  // HIP's device handle is the ordinal
        return hipSuccess;
    });
}

extern "C" hipError_t hipDeviceGetName(char* name, int len, hipDevice_t device) {
    return entry([&]() -> hipError_t {
        if (!name || len <= 0) return hipErrorInvalidValue;
        const Driver* cu = nullptr;
        if (hipError_t e = hipshim::runtime_or_invalid_device(&cu)) return e;
        if (!hipshim::valid_device(device)) return hipErrorInvalidDevice;
        return hipshim::from_cu(cu->cuDeviceGetName(name, len, hipshim::cu_device(device)));
    });
}

extern "C" hipError_t hipDeviceSynchronize(void) {
    return entry([&]() -> hipError_t {
        const Driver* cu = nullptr;
        if (hipError_t e = hipshim::enter(&cu)) return e;
        return hipshim::from_cu(cu->cuCtxSynchronize());
    });
}
