// HIP-over-CUDA test runtime: devices, contexts and the thread's current device.
//
// HIP is runtime-style: no contexts in the API, a current device per thread (0 until
// hipSetDevice), and every call works on that device. The CUDA driver API works on the
// thread's current context. The shim bridges them the way CUDA's own runtime does: each
// device's primary context is retained on first use (once, under a lock, never
// released), and before any call that needs a context the thread's current device's
// primary context is made current (cuCtxSetCurrent, only when it is not already). It is
// left current afterwards, so cuBLASLt (the hipBLASLt/rocBLAS shims) called next on the
// same thread runs on the device HIP selected.
#pragma once

#include "driver.h"

#include <hip/hip_runtime_api.h>

namespace hipshim {

// cuInit and device discovery, once per process. hipSuccess with *cu set, or the
// "no usable device" condition: hipErrorNoDevice (driver missing, stub, cuInit failed,
// or zero devices), with *cu NULL.
hipError_t runtime(const Driver** cu) noexcept;

// For every call but hipGetDeviceCount, AMD's runtime without a GPU answers
// hipErrorInvalidDevice (measured on Debian's libamdhip64 5.2): this does the same.
hipError_t runtime_or_invalid_device(const Driver** cu) noexcept;

int device_count() noexcept;                   // after runtime() succeeded
bool valid_device(int id) noexcept;            // 0 <= id < device_count()
CUdevice cu_device(int id) noexcept;           // valid_device(id) required
int current_device() noexcept;                 // this thread's (0 by default)
void set_current_device(int id) noexcept;

// The device's primary context, retained on first use.
hipError_t primary_context(int id, CUcontext* ctx) noexcept;

// The prologue of every call that needs a context: the runtime is up and the current
// device's primary context is the thread's current context.
hipError_t enter(const Driver** cu) noexcept;

}  // namespace hipshim
