// The fake libnnopbase.so: tensors, scalars, arrays, executors and aclnnInit (signatures
// from ascend-audit.md §D), forwarding to the shared core.
#include "core.h"

#define EMU_EXPORT extern "C" __attribute__((visibility("default")))
#define SERVED(fn) emu::served(#fn, reinterpret_cast<const void*>(&fn))

EMU_EXPORT aclTensor* aclCreateTensor(const int64_t* viewDims, uint64_t viewDimsNum, int dataType,
                                      const int64_t* stride, int64_t offset, int format, const int64_t* storageDims,
                                      uint64_t storageDimsNum, void* tensorData) {
    SERVED(aclCreateTensor);
    return emu::nn_create_tensor(viewDims, viewDimsNum, dataType, stride, offset, format, storageDims,
                                 storageDimsNum, tensorData);
}
EMU_EXPORT aclnnStatus aclDestroyTensor(const aclTensor* tensor) {
    SERVED(aclDestroyTensor);
    return emu::nn_destroy_tensor(tensor);
}
EMU_EXPORT aclScalar* aclCreateScalar(void* value, int dataType) {
    SERVED(aclCreateScalar);
    return emu::nn_create_scalar(value, dataType);
}
EMU_EXPORT aclnnStatus aclDestroyScalar(const aclScalar* scalar) {
    SERVED(aclDestroyScalar);
    return emu::nn_destroy_scalar(scalar);
}
EMU_EXPORT aclIntArray* aclCreateIntArray(const int64_t* value, uint64_t size) {
    SERVED(aclCreateIntArray);
    return emu::nn_create_int_array(value, size);
}
EMU_EXPORT aclnnStatus aclDestroyIntArray(const aclIntArray* array) {
    SERVED(aclDestroyIntArray);
    return emu::nn_destroy_int_array(array);
}
EMU_EXPORT aclBoolArray* aclCreateBoolArray(const bool* value, uint64_t size) {
    SERVED(aclCreateBoolArray);
    return emu::nn_create_bool_array(value, size);
}
EMU_EXPORT aclnnStatus aclDestroyBoolArray(const aclBoolArray* array) {
    SERVED(aclDestroyBoolArray);
    return emu::nn_destroy_bool_array(array);
}
EMU_EXPORT aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor* executor) {
    SERVED(aclSetAclOpExecutorRepeatable);
    return emu::nn_set_repeatable(executor);
}
EMU_EXPORT aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor* executor) {
    SERVED(aclDestroyAclOpExecutor);
    return emu::nn_destroy_executor(executor);
}
EMU_EXPORT aclnnStatus aclnnInit(const char* configPath) {
    SERVED(aclnnInit);
    return emu::nn_init(configPath);
}
