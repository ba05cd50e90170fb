// HIP-over-CUDA test runtime: error codes.
//
// HIP took CUDA's numbers for the codes both have (1, 2, 3, 100, 101, 200, 209, 218,
// 400, 500, 700, ...), so CUresult -> hipError_t is the identity where AMD's enum has the
// value, plus special cases for codes only CUDA has (CUDA_ERROR_STUB_LIBRARY means "no
// device" to a HIP caller; CUDA_ERROR_UNSUPPORTED_PTX_VERSION is an unusable kernel file;
// ...) and hipErrorUnknown for the rest. Like HIP, a failed call records its code
// per thread; hipGetLastError returns it and resets it to hipSuccess.
#pragma once

#include <hip/hip_runtime_api.h>

#include <cuda.h>

#include <new>

namespace hipshim {

hipError_t from_cu(CUresult r) noexcept;

// Records e as the thread's last error when it is not hipSuccess; returns e.
hipError_t record(hipError_t e) noexcept;

// hipGetLastError: the thread's last error, reset to hipSuccess.
hipError_t take_last_error() noexcept;

// AMD's name ("hipErrorOutOfMemory"; "hipErrorUnknown" for values HIP 5.2 does not
// define, as AMD's runtime answers) and a one-line description.
const char* error_name(hipError_t e) noexcept;
const char* error_text(hipError_t e) noexcept;

// Runs one hip* entry point's body: its result is recorded, and nothing thrown escapes
// into the C caller (allocation failure becomes hipErrorOutOfMemory, anything else
// hipErrorUnknown).
template <class Body>
hipError_t entry(Body&& body) noexcept {
    try {
        return record(body());
    } catch (const std::bad_alloc&) {
        return record(hipErrorOutOfMemory);
    } catch (...) {
        return record(hipErrorUnknown);
    }
}

}  // namespace hipshim
