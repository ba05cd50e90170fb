/* opkit_tensor must be layout-identical to DLPack's DLTensor (Debian's libdlpack-dev),
 * so that a DLTensor* from PyTorch, JAX, CuPy or NumPy can be passed by cast. Every
 * check is a compile-time assertion; the program also prints what it checked. */
#include <dlpack/dlpack.h>
#include <stddef.h>
#include <stdio.h>

#include "opkit.h"

#define SAME_FIELD(field)                                                           \
    _Static_assert(offsetof(opkit_tensor, field) == offsetof(DLTensor, field),       \
                   "offset of " #field " differs from DLTensor");                     \
    _Static_assert(sizeof(((opkit_tensor*)0)->field) == sizeof(((DLTensor*)0)->field), \
                   "size of " #field " differs from DLTensor")

SAME_FIELD(data);
SAME_FIELD(device);
SAME_FIELD(ndim);
SAME_FIELD(dtype);
SAME_FIELD(shape);
SAME_FIELD(strides);
SAME_FIELD(byte_offset);
_Static_assert(sizeof(opkit_tensor) == sizeof(DLTensor), "opkit_tensor size differs");
_Static_assert(offsetof(opkit_device, device_id) == offsetof(DLDevice, device_id), "DLDevice");
_Static_assert(sizeof(opkit_device) == sizeof(DLDevice), "DLDevice size");
_Static_assert(offsetof(opkit_dtype, bits) == offsetof(DLDataType, bits), "DLDataType.bits");
_Static_assert(offsetof(opkit_dtype, lanes) == offsetof(DLDataType, lanes), "DLDataType.lanes");
_Static_assert(sizeof(opkit_dtype) == sizeof(DLDataType), "DLDataType size");
_Static_assert(OPKIT_DEVICE_CPU == kDLCPU && OPKIT_DEVICE_CUDA == kDLCUDA &&
                   OPKIT_DEVICE_ROCM == kDLROCM,
               "device type numbers differ from DLPack");
_Static_assert(OPKIT_DTYPE_INT == kDLInt && OPKIT_DTYPE_UINT == kDLUInt &&
                   OPKIT_DTYPE_FLOAT == kDLFloat && OPKIT_DTYPE_BFLOAT == kDLBfloat,
               "dtype codes differ from DLPack");

int main(void) {
    /* A DLTensor read through an opkit_tensor pointer sees the same values. */
    int64_t shape[2] = {3, 5}, strides[2] = {8, 1};
    float storage[24];
    DLTensor t;
    const opkit_tensor* o = (const opkit_tensor*)&t;
    t.data = storage;
    t.device.device_type = kDLCPU;
    t.device.device_id = 0;
    t.ndim = 2;
    t.dtype.code = kDLBfloat;
    t.dtype.bits = 16;
    t.dtype.lanes = 1;
    t.shape = shape;
    t.strides = strides;
    t.byte_offset = 12;
    if (o->data != storage || o->ndim != 2 || o->shape[1] != 5 || o->strides[0] != 8 ||
        o->byte_offset != 12 || o->dtype.code != OPKIT_DTYPE_BFLOAT || o->dtype.bits != 16) {
        printf("FAIL: fields read through opkit_tensor differ\n");
        return 1;
    }
    printf("opkit_tensor is layout-identical to DLTensor (dlpack %d, %zu bytes)\n", DLPACK_VERSION,
           sizeof(DLTensor));
    return 0;
}
