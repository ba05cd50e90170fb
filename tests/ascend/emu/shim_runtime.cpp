// The fake ACL runtime: libacl_rt.so / libascendcl.so. Each export is the CANN function
// of the same name (signatures from ascend-audit.md §C), forwarding to the shared core;
// the version script of each library exports exactly the subset the vendor declares.
#include "core.h"

#define EMU_EXPORT extern "C" __attribute__((visibility("default")))
#define SERVED(fn) emu::served(#fn, reinterpret_cast<const void*>(&fn))

EMU_EXPORT aclError aclInit(const char* configPath) {
    SERVED(aclInit);
    return emu::rt_init(configPath);
}
EMU_EXPORT aclError aclFinalizeReference(uint64_t* refCount) {
    SERVED(aclFinalizeReference);
    return emu::rt_finalize_reference(refCount);
}
EMU_EXPORT const char* aclGetRecentErrMsg() {
    SERVED(aclGetRecentErrMsg);
    return emu::rt_recent_error();
}
EMU_EXPORT aclError aclrtSetDevice(int32_t deviceId) {
    SERVED(aclrtSetDevice);
    return emu::rt_set_device(deviceId);
}
EMU_EXPORT aclError aclrtGetDevice(int32_t* deviceId) {
    SERVED(aclrtGetDevice);
    return emu::rt_get_device(deviceId);
}
EMU_EXPORT aclError aclrtGetDeviceCount(uint32_t* count) {
    SERVED(aclrtGetDeviceCount);
    return emu::rt_get_device_count(count);
}
EMU_EXPORT aclError aclrtSynchronizeDevice(void) {
    SERVED(aclrtSynchronizeDevice);
    return emu::rt_synchronize_device();
}
// aclrtMemMallocPolicy and aclrtMemcpyKind are C enums: int-sized arguments.
EMU_EXPORT aclError aclrtMalloc(void** devPtr, size_t size, int policy) {
    SERVED(aclrtMalloc);
    return emu::rt_malloc(devPtr, size, policy);
}
EMU_EXPORT aclError aclrtFree(void* devPtr) {
    SERVED(aclrtFree);
    return emu::rt_free(devPtr);
}
EMU_EXPORT aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count, int kind) {
    SERVED(aclrtMemcpy);
    return emu::rt_memcpy(dst, destMax, src, count, kind);
}
EMU_EXPORT aclError aclrtMemcpyAsync(void* dst, size_t destMax, const void* src, size_t count, int kind,
                                     aclrtStream stream) {
    SERVED(aclrtMemcpyAsync);
    return emu::rt_memcpy_async(dst, destMax, src, count, kind, stream);
}
EMU_EXPORT aclError aclrtCreateStream(aclrtStream* stream) {
    SERVED(aclrtCreateStream);
    return emu::rt_create_stream(stream);
}
EMU_EXPORT aclError aclrtDestroyStream(aclrtStream stream) {
    SERVED(aclrtDestroyStream);
    return emu::rt_destroy_stream(stream);
}
EMU_EXPORT aclError aclrtSynchronizeStream(aclrtStream stream) {
    SERVED(aclrtSynchronizeStream);
    return emu::rt_synchronize_stream(stream);
}
EMU_EXPORT const char* aclrtGetSocName() {
    SERVED(aclrtGetSocName);
    return emu::rt_soc_name();
}
