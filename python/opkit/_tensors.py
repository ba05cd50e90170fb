"""Python objects -> opkit_tensor pointers, and the stream an op runs on.

Any object with __dlpack__/__dlpack_device__ (PyTorch, NumPy, CuPy, JAX) goes in through
DLPack: the producer's DLManagedTensor starts with a DLTensor, which is layout-identical to
opkit_tensor, so its address is passed to C as is, without copying. The capsule stays
owned by its producer (it is never renamed "used_dltensor"), so the producer frees it when
the last Python reference goes; the caller keeps it alive for the duration of the call.

CPU arrays DLPack cannot express — NumPy bfloat16 from ml_dtypes, read-only arrays — go
in through __array_interface__ instead.
"""
import ctypes
import sys

from ._library import Tensor

DEVICE_CPU = 1
DEVICE_CUDA = 2
DEVICE_ROCM = 10
DEVICE_ASCEND = 21

DTYPE_INT = 0
DTYPE_UINT = 1
DTYPE_FLOAT = 2
DTYPE_BFLOAT = 4

_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_get_pointer.restype = ctypes.c_void_p
_get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]

_TensorPtr = ctypes.POINTER(Tensor)


def device_of(obj):
    """(device_type, device_id) of a tensor-like object."""
    dev = getattr(obj, "__dlpack_device__", None)
    if dev is not None:
        t, i = dev()
        return int(t), int(i)
    if hasattr(obj, "__array_interface__"):
        return DEVICE_CPU, 0
    raise TypeError(f"opkit: {type(obj).__name__} is not a tensor: it has neither "
                    "__dlpack__ nor __array_interface__")


def current_stream(obj):
    """The stream the framework owning obj would run its next kernel on (0 when unknown,
    i.e. the device's default stream)."""
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(obj, torch.Tensor):
        return torch.cuda.current_stream(obj.device).cuda_stream
    cupy = sys.modules.get("cupy")
    if cupy is not None and isinstance(obj, cupy.ndarray):
        return cupy.cuda.get_current_stream().ptr
    return 0


def _dtype_code(dtype):
    if dtype.name == "bfloat16":
        return DTYPE_BFLOAT
    codes = {"f": DTYPE_FLOAT, "i": DTYPE_INT, "u": DTYPE_UINT}
    if dtype.kind not in codes:
        raise TypeError(f"opkit: unsupported array dtype {dtype}")
    return codes[dtype.kind]


def _from_array_interface(obj):
    """A host opkit_tensor describing obj's memory (no copy)."""
    ai = obj.__array_interface__
    dtype = getattr(obj, "dtype", None)
    if dtype is None:
        raise TypeError("opkit: __array_interface__ objects need a .dtype")
    shape = tuple(ai["shape"])
    itemsize = dtype.itemsize
    t = Tensor()
    t.data = ai["data"][0]
    t.device.device_type, t.device.device_id = DEVICE_CPU, 0
    t.ndim = len(shape)
    t.dtype.code, t.dtype.bits, t.dtype.lanes = _dtype_code(dtype), itemsize * 8, 1
    shape_arr = (ctypes.c_int64 * max(1, len(shape)))(*shape)
    t.shape = shape_arr
    keep = [t, shape_arr]
    if ai.get("strides") is not None:
        if any(s % itemsize for s in ai["strides"]):
            raise ValueError("opkit: strides must be whole elements")
        strides_arr = (ctypes.c_int64 * len(shape))(*(s // itemsize for s in ai["strides"]))
        t.strides = strides_arr
        keep.append(strides_arr)
    return ctypes.pointer(t), keep


def to_tensor(obj, device, producer_stream):
    """(pointer, keep-alive) for obj; producer_stream is what __dlpack__ gets for device
    tensors (-1: no synchronisation needed)."""
    if hasattr(obj, "__dlpack__"):
        try:
            if device[0] == DEVICE_CPU:
                capsule = obj.__dlpack__()
            else:
                capsule = obj.__dlpack__(stream=producer_stream)
        except (BufferError, TypeError):
            if not hasattr(obj, "__array_interface__"):
                raise
        else:
            address = _get_pointer(capsule, b"dltensor")
            return ctypes.cast(address, _TensorPtr), capsule
    if hasattr(obj, "__array_interface__"):
        return _from_array_interface(obj)
    raise TypeError(f"opkit: {type(obj).__name__} is not a tensor")


def prepare(stream, objs):
    """Converts the tensor arguments of one call and picks its stream.

    stream None = the current stream of the framework owning the first device tensor
    (PyTorch, CuPy), else the default stream. Returns (stream handle, pointers,
    keep-alive); the caller holds keep-alive until the C call returns."""
    devices = [None if o is None else device_of(o) for o in objs]
    producer_stream = -1  # we run on the producer's current stream: ordered already
    if stream is None:
        stream = 0
        for o, d in zip(objs, devices):
            if d is not None and d[0] != DEVICE_CPU:
                stream = current_stream(o)
                break
    else:
        stream = int(stream)
        # DLPack's stream numbers: 1 is the legacy default stream, 0 is ambiguous.
        producer_stream = stream if stream != 0 else 1
    pointers, keep = [], []
    for o, d in zip(objs, devices):
        if o is None:
            pointers.append(None)
            continue
        p, k = to_tensor(o, d, producer_stream)
        pointers.append(p)
        keep.append(k)
    return stream, pointers, keep
