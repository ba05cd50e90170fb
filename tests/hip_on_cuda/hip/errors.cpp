// HIP-over-CUDA test runtime: error translation, names and the per-thread last error
// (see errors.h). Names are AMD's spelling as HIP 5.2's runtime returns them (for the
// aliases 2, 3, 205 and 400 the first name in hip_runtime_api.h); the descriptions are
// this shim's own words (HIP 5.2's hipGetErrorString returns the name again; newer HIP
// returns a description, which the vendor's messages expect).
//
// What this cannot prove: which code AMD's runtime returns for a given failure. Where
// both runtimes have a code the numbers agree, but the situations that produce them
// differ (e.g. AMD reports hipErrorInvalidImage or hipErrorNoBinaryForGpu for a code
// object without the device's gfx target; CUDA decides the same for a cubin).
#include "errors.h"

#include <hip/hip_runtime_api.h>

namespace hipshim {
namespace {

thread_local hipError_t t_last_error = hipSuccess;

struct ErrorInfo {
    hipError_t code;
    const char* name;
    const char* text;
};

// Every value of HIP 5.2's hipError_t, in enum order.
constexpr ErrorInfo kErrors[] = {
    {hipSuccess, "hipSuccess", "no error"},
    {hipErrorInvalidValue, "hipErrorInvalidValue", "an argument is NULL or out of its accepted range"},
    {hipErrorOutOfMemory, "hipErrorOutOfMemory", "out of memory"},
    {hipErrorNotInitialized, "hipErrorNotInitialized", "the runtime is not initialized"},
    {hipErrorDeinitialized, "hipErrorDeinitialized", "the runtime is shutting down"},
    {hipErrorProfilerDisabled, "hipErrorProfilerDisabled", "profiling is disabled"},
    {hipErrorProfilerNotInitialized, "hipErrorProfilerNotInitialized", "the profiler is not initialized"},
    {hipErrorProfilerAlreadyStarted, "hipErrorProfilerAlreadyStarted", "the profiler is already running"},
    {hipErrorProfilerAlreadyStopped, "hipErrorProfilerAlreadyStopped", "the profiler is already stopped"},
    {hipErrorInvalidConfiguration, "hipErrorInvalidConfiguration", "invalid launch configuration"},
    {hipErrorInvalidPitchValue, "hipErrorInvalidPitchValue", "invalid pitch"},
    {hipErrorInvalidSymbol, "hipErrorInvalidSymbol", "invalid device symbol"},
    {hipErrorInvalidDevicePointer, "hipErrorInvalidDevicePointer", "invalid device pointer"},
    {hipErrorInvalidMemcpyDirection, "hipErrorInvalidMemcpyDirection", "invalid copy direction"},
    {hipErrorInsufficientDriver, "hipErrorInsufficientDriver", "the driver is older than the runtime needs"},
    {hipErrorMissingConfiguration, "hipErrorMissingConfiguration", "launch configuration missing"},
    {hipErrorPriorLaunchFailure, "hipErrorPriorLaunchFailure", "an earlier launch failed"},
    {hipErrorInvalidDeviceFunction, "hipErrorInvalidDeviceFunction", "invalid device function"},
    {hipErrorNoDevice, "hipErrorNoDevice", "no GPU device was found"},
    {hipErrorInvalidDevice, "hipErrorInvalidDevice", "invalid device ordinal"},
    {hipErrorInvalidImage, "hipErrorInvalidImage", "the kernel image is invalid"},
    {hipErrorInvalidContext, "hipErrorInvalidContext", "invalid context"},
    {hipErrorContextAlreadyCurrent, "hipErrorContextAlreadyCurrent", "the context is already current"},
    {hipErrorMapFailed, "hipErrorMapFailed", "mapping failed"},
    {hipErrorUnmapFailed, "hipErrorUnmapFailed", "unmapping failed"},
    {hipErrorArrayIsMapped, "hipErrorArrayIsMapped", "the array is mapped"},
    {hipErrorAlreadyMapped, "hipErrorAlreadyMapped", "already mapped"},
    {hipErrorNoBinaryForGpu, "hipErrorNoBinaryForGpu", "the image has no code for this GPU"},
    {hipErrorAlreadyAcquired, "hipErrorAlreadyAcquired", "already acquired"},
    {hipErrorNotMapped, "hipErrorNotMapped", "not mapped"},
    {hipErrorNotMappedAsArray, "hipErrorNotMappedAsArray", "not mapped as an array"},
    {hipErrorNotMappedAsPointer, "hipErrorNotMappedAsPointer", "not mapped as a pointer"},
    {hipErrorECCNotCorrectable, "hipErrorECCNotCorrectable", "uncorrectable ECC error"},
    {hipErrorUnsupportedLimit, "hipErrorUnsupportedLimit", "unsupported limit"},
    {hipErrorContextAlreadyInUse, "hipErrorContextAlreadyInUse", "the context is in use by another thread"},
    {hipErrorPeerAccessUnsupported, "hipErrorPeerAccessUnsupported", "peer access is not supported"},
    {hipErrorInvalidKernelFile, "hipErrorInvalidKernelFile", "the kernel file is invalid (cannot be compiled)"},
    {hipErrorInvalidGraphicsContext, "hipErrorInvalidGraphicsContext", "invalid graphics context"},
    {hipErrorInvalidSource, "hipErrorInvalidSource", "invalid kernel source"},
    {hipErrorFileNotFound, "hipErrorFileNotFound", "file not found"},
    {hipErrorSharedObjectSymbolNotFound, "hipErrorSharedObjectSymbolNotFound", "shared object symbol not found"},
    {hipErrorSharedObjectInitFailed, "hipErrorSharedObjectInitFailed", "shared object initialization failed"},
    {hipErrorOperatingSystem, "hipErrorOperatingSystem", "an operating system call failed"},
    {hipErrorInvalidHandle, "hipErrorInvalidHandle", "invalid handle"},
    {hipErrorIllegalState, "hipErrorIllegalState", "the resource is not in a valid state"},
    {hipErrorNotFound, "hipErrorNotFound", "named symbol not found"},
    {hipErrorNotReady, "hipErrorNotReady", "the operation has not completed yet"},
    {hipErrorIllegalAddress, "hipErrorIllegalAddress", "a kernel accessed an illegal address"},
    {hipErrorLaunchOutOfResources, "hipErrorLaunchOutOfResources", "the launch needs more resources than are available"},
    {hipErrorLaunchTimeOut, "hipErrorLaunchTimeOut", "the kernel ran past the time limit"},
    {hipErrorPeerAccessAlreadyEnabled, "hipErrorPeerAccessAlreadyEnabled", "peer access is already enabled"},
    {hipErrorPeerAccessNotEnabled, "hipErrorPeerAccessNotEnabled", "peer access is not enabled"},
    {hipErrorSetOnActiveProcess, "hipErrorSetOnActiveProcess", "cannot change this on an active process"},
    {hipErrorContextIsDestroyed, "hipErrorContextIsDestroyed", "the context was destroyed"},
    {hipErrorAssert, "hipErrorAssert", "a kernel assertion failed"},
    {hipErrorHostMemoryAlreadyRegistered, "hipErrorHostMemoryAlreadyRegistered", "host memory is already registered"},
    {hipErrorHostMemoryNotRegistered, "hipErrorHostMemoryNotRegistered", "host memory is not registered"},
    {hipErrorLaunchFailure, "hipErrorLaunchFailure", "a kernel failed while running"},
    {hipErrorCooperativeLaunchTooLarge, "hipErrorCooperativeLaunchTooLarge", "too many blocks for a cooperative launch"},
    {hipErrorNotSupported, "hipErrorNotSupported", "operation not supported"},
    {hipErrorStreamCaptureUnsupported, "hipErrorStreamCaptureUnsupported", "not allowed while the stream is capturing"},
    {hipErrorStreamCaptureInvalidated, "hipErrorStreamCaptureInvalidated", "the stream capture was invalidated"},
    {hipErrorStreamCaptureMerge, "hipErrorStreamCaptureMerge", "would merge two stream captures"},
    {hipErrorStreamCaptureUnmatched, "hipErrorStreamCaptureUnmatched", "the capture did not begin on this stream"},
    {hipErrorStreamCaptureUnjoined, "hipErrorStreamCaptureUnjoined", "the capture has an unjoined fork"},
    {hipErrorStreamCaptureIsolation, "hipErrorStreamCaptureIsolation", "the dependency crosses a capture boundary"},
    {hipErrorStreamCaptureImplicit, "hipErrorStreamCaptureImplicit", "implicit dependency on a capturing stream"},
    {hipErrorCapturedEvent, "hipErrorCapturedEvent", "the event was recorded in a capturing stream"},
    {hipErrorStreamCaptureWrongThread, "hipErrorStreamCaptureWrongThread", "the capture belongs to another thread"},
    {hipErrorGraphExecUpdateFailure, "hipErrorGraphExecUpdateFailure", "the graph update was not performed"},
    {hipErrorUnknown, "hipErrorUnknown", "unknown error"},
    {hipErrorRuntimeMemory, "hipErrorRuntimeMemory", "a runtime memory call failed"},
    {hipErrorRuntimeOther, "hipErrorRuntimeOther", "a runtime call failed"},
    {hipErrorTbd, "hipErrorTbd", "reserved error code"},
};

const ErrorInfo* find(int code) noexcept {
    for (const ErrorInfo& e : kErrors)
        if (int(e.code) == code) return &e;
    return nullptr;
}

}  // namespace

hipError_t from_cu(CUresult r) noexcept {
    switch (r) {
        // Codes CUDA has and HIP 5.2 does not: the nearest HIP meaning.
        case CUDA_ERROR_STUB_LIBRARY:           // toolkit stub instead of a driver
        case CUDA_ERROR_SYSTEM_NOT_READY:       // e.g. fabric manager not running
            return hipErrorNoDevice;
        case CUDA_ERROR_DEVICE_UNAVAILABLE:     // exclusive-process device in use
        case CUDA_ERROR_DEVICE_NOT_LICENSED:
            return hipErrorInvalidDevice;
        case CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER:
        case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
        case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
            return hipErrorInsufficientDriver;
        case CUDA_ERROR_JIT_COMPILER_NOT_FOUND:  // the PTX in the image cannot be used
        case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
        case CUDA_ERROR_JIT_COMPILATION_DISABLED:
            return hipErrorInvalidKernelFile;
        case CUDA_ERROR_NVLINK_UNCORRECTABLE:
            return hipErrorECCNotCorrectable;
        case CUDA_ERROR_LOSSY_QUERY:
        case CUDA_ERROR_INVALID_RESOURCE_TYPE:
        case CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION:
            return hipErrorInvalidValue;
        case CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING:
        case CUDA_ERROR_HARDWARE_STACK_ERROR:   // device faults: AMD reports a failed launch
        case CUDA_ERROR_ILLEGAL_INSTRUCTION:
        case CUDA_ERROR_MISALIGNED_ADDRESS:
        case CUDA_ERROR_INVALID_ADDRESS_SPACE:
        case CUDA_ERROR_INVALID_PC:
        case CUDA_ERROR_CONTAINED:
        case CUDA_ERROR_TENSOR_MEMORY_LEAK:
            return hipErrorLaunchFailure;
        case CUDA_ERROR_INVALID_CLUSTER_SIZE:
            return hipErrorInvalidConfiguration;
        case CUDA_ERROR_FUNCTION_NOT_LOADED:
            return hipErrorInvalidDeviceFunction;
        case CUDA_ERROR_NOT_PERMITTED:
        case CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY:
        case CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC:
        case CUDA_ERROR_CDP_NOT_SUPPORTED:
            return hipErrorNotSupported;
        default:
            break;
    }
    // CUDA_ERROR_INVALID_PTX (218) -> hipErrorInvalidKernelFile and
    // CUDA_ERROR_NO_BINARY_FOR_GPU (209) -> hipErrorNoBinaryForGpu fall here: same numbers.
    return find(int(r)) ? hipError_t(r) : hipErrorUnknown;
}

hipError_t record(hipError_t e) noexcept {
    if (e != hipSuccess) t_last_error = e;
    return e;
}

hipError_t take_last_error() noexcept {
    const hipError_t e = t_last_error;
    t_last_error = hipSuccess;
    return e;
}

const char* error_name(hipError_t e) noexcept {
    const ErrorInfo* i = find(int(e));
    return i ? i->name : "hipErrorUnknown";
}

const char* error_text(hipError_t e) noexcept {
    const ErrorInfo* i = find(int(e));
    return i ? i->text : "unknown error";
}

}  // namespace hipshim

// ---- exported entry points: extern "C" on each definition, so a signature that differs
// from AMD's declaration is a compile error instead of a silent C++ overload ----

// Needs no runtime state: works without a driver (unlike AMD's runtime without a GPU,
// which answers every call, this one included, with hipErrorInvalidDevice).
extern "C" hipError_t hipGetLastError(void) { return hipshim::take_last_error(); }

extern "C" const char* hipGetErrorName(hipError_t hip_error) { return hipshim::error_name(hip_error); }

extern "C" const char* hipGetErrorString(hipError_t hipError) { return hipshim::error_text(hipError); }
