// HIP-over-CUDA test runtime: streams.
//
// hipStream_t is the CUstream itself. Flags are translated by name: hipStreamDefault ->
// CU_STREAM_DEFAULT, hipStreamNonBlocking -> CU_STREAM_NON_BLOCKING (a stream that does
// not synchronize with the null stream, on both platforms); anything else is rejected.
// The null stream is CUDA's legacy default stream of the current device's primary
// context, which orders against blocking streams as HIP's null stream does.
//
// What this cannot prove: AMD's hardware queues (how many streams run concurrently) or
// its stream priorities.
#include "device.h"
#include "errors.h"
#include "launch_count.h"

using hipshim::Driver;
using hipshim::entry;

extern "C" hipError_t hipStreamCreateWithFlags(hipStream_t* stream, unsigned int flags) {
    return entry([&]() -> hipError_t {
        if (!stream) return hipErrorInvalidValue;
        unsigned cu_flags = 0;
        switch (flags) {
            case hipStreamDefault: cu_flags = CU_STREAM_DEFAULT; break;
            case hipStreamNonBlocking: cu_flags = CU_STREAM_NON_BLOCKING; break;
            default: return hipErrorInvalidValue;
        }
        const Driver* cu = nullptr;
        if (hipError_t e = hipshim::enter(&cu)) return e;
        CUstream s = nullptr;
        if (CUresult r = cu->cuStreamCreate(&s, cu_flags)) return hipshim::from_cu(r);
        *stream = reinterpret_cast<hipStream_t>(s);
        hipshim::reset_launch_count(*stream);
        return hipSuccess;
    });
}

extern "C" hipError_t hipStreamDestroy(hipStream_t stream) {
    return entry([&]() -> hipError_t {
        const Driver* cu = nullptr;
        if (hipError_t e = hipshim::enter(&cu)) return e;
        if (!stream) return hipErrorInvalidHandle;  // the null stream cannot be destroyed
        return hipshim::from_cu(cu->cuStreamDestroy(reinterpret_cast<CUstream>(stream)));
    });
}

extern "C" hipError_t hipStreamSynchronize(hipStream_t stream) {
    return entry([&]() -> hipError_t {
        const Driver* cu = nullptr;
        if (hipError_t e = hipshim::enter(&cu)) return e;
        return hipshim::from_cu(cu->cuStreamSynchronize(reinterpret_cast<CUstream>(stream)));
    });
}
