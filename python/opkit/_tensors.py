"""Python objects -> opkit_tensor addresses, and the stream an op runs on.

Any object with __dlpack__/__dlpack_device__ (PyTorch, NumPy, CuPy, JAX) goes in through
DLPack: the producer's DLManagedTensor starts with a DLTensor, which is layout-identical to
opkit_tensor, so its address is passed to C as is, without copying. The capsule stays
owned by its producer (it is never renamed "used_dltensor"), so the producer frees it when
the last Python reference goes; the caller keeps it alive for the duration of the call.

CPU arrays DLPack cannot express — NumPy bfloat16 from ml_dtypes, read-only arrays — go
in through __array_interface__ instead.

This is the per-call path of every op, so it is written for speed (see docs/decisions.md,
"Python binding"): the kind of each argument is looked up by its exact type in a cache;
NumPy arrays skip __dlpack_device__ (they are host memory); plain PyTorch tensors get the
checks Tensor.__dlpack__ makes and torch's C exporter (torch.utils.dlpack.to_dlpack)
instead of the Python-level Tensor.__dlpack__/__dlpack_device__ (about 1 us each), and
their stream from the raw current-stream query; an explicit stream= orders torch's work
before it once per call, not once per tensor, and not at all when it is the current
stream. Tensors of any CUDA device take that path, the current device's or not: the
stream is that device's current stream. Anything out of the ordinary (autograd, pinned
memory, subclasses, CuPy, JAX, ...) takes the general path: the DLPack protocol as
written, where a PyTorch tensor of a non-current device is exported from under
torch.cuda.device(its device), since Tensor.__dlpack__ refuses it otherwise.
"""
import ctypes
import sys
import threading

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
    i.e. the device's default stream). PyTorch's CUDA and ROCm (HIP) streams come from
    torch.cuda; Ascend NPU tensors' (torch_npu) from torch_npu.npu, when it is imported."""
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(obj, torch.Tensor):
        if getattr(obj.device, "type", None) == "npu":
            torch_npu = sys.modules.get("torch_npu")
            if torch_npu is None:
                return 0
            return torch_npu.npu.current_stream(obj.device).npu_stream
        return torch.cuda.current_stream(obj.device).cuda_stream
    cupy = sys.modules.get("cupy")
    if cupy is not None and isinstance(obj, cupy.ndarray):
        return cupy.cuda.get_current_stream().ptr
    return 0


_KIND_CODES = {"f": DTYPE_FLOAT, "i": DTYPE_INT, "u": DTYPE_UINT}


def _dtype_code(dtype):
    if dtype.name == "bfloat16":
        return DTYPE_BFLOAT
    code = _KIND_CODES.get(dtype.kind)
    if code is None:
        raise TypeError(f"opkit: unsupported array dtype {dtype}")
    return code


def _from_array_interface(obj):
    """(address, keep-alive) of a host opkit_tensor describing obj's memory (no copy)."""
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
    return ctypes.addressof(t), keep


def _device_export(obj, device, producer_stream):
    """obj.__dlpack__(stream=producer_stream) for a tensor of GPU `device`. PyTorch exports
    only tensors of its current device (BufferError otherwise); opkit takes any, so a
    PyTorch tensor it refuses is exported again from under torch.cuda.device(its device),
    where stream= is ordered after that device's current stream, as __dlpack__ does."""
    try:
        return obj.__dlpack__(stream=producer_stream)
    except BufferError:
        torch = sys.modules.get("torch")
        tensor_type = getattr(torch, "Tensor", None)
        if device[0] not in (DEVICE_CUDA, DEVICE_ROCM) or not (
                isinstance(tensor_type, type) and isinstance(obj, tensor_type)):
            raise
        with torch.cuda.device(device[1]):
            return obj.__dlpack__(stream=producer_stream)


def _convert(obj, device, producer_stream):
    """(address, keep-alive) for obj through the DLPack protocol (or
    __array_interface__); producer_stream is what __dlpack__ gets for device tensors
    (-1: no synchronisation needed)."""
    if hasattr(obj, "__dlpack__"):
        try:
            if device[0] == DEVICE_CPU:
                capsule = obj.__dlpack__()
            else:
                capsule = _device_export(obj, device, producer_stream)
        except (BufferError, TypeError):
            if not hasattr(obj, "__array_interface__"):
                raise
        else:
            return _get_pointer(capsule, b"dltensor"), capsule
    if hasattr(obj, "__array_interface__"):
        return _from_array_interface(obj)
    raise TypeError(f"opkit: {type(obj).__name__} is not a tensor")


def to_tensor(obj, device, producer_stream):
    """(pointer, keep-alive) for obj; producer_stream is what __dlpack__ gets for device
    tensors (-1: no synchronisation needed)."""
    address, keep = _convert(obj, device, producer_stream)
    return ctypes.cast(address, _TensorPtr), keep


# ------------------------------------------------------------------ kinds of argument ----
# Looked up by exact type: _GENERIC (the DLPack protocol as written), _NUMPY (a host
# array: no __dlpack_device__ call), _TORCH (plain torch.Tensor / nn.Parameter: the fast
# path in prepare). Filled lazily; torch and numpy are never imported here, only
# recognised once the program has imported them.
_GENERIC, _NUMPY, _TORCH = 0, 1, 2
_kinds = {}


class _Torch:
    """What the torch fast path needs, looked up once when the first torch.Tensor shows
    up (attribute lookups on the torch module cost as much as the work itself)."""

    def __init__(self, torch):
        self.torch = torch
        self.to_dlpack = torch.utils.dlpack.to_dlpack  # torch's C exporter
        self.strided = torch.strided
        self.complex = frozenset(getattr(torch, n) for n in (
            "complex32", "complex64", "complex128") if hasattr(torch, n))
        self.hip = getattr(torch.version, "hip", None) is not None
        c = torch._C
        # The raw query behind torch.cuda.current_stream(d).cuda_stream (which builds a
        # Python object); the public one when a torch build lacks it.
        self.raw_stream = getattr(c, "_cuda_getCurrentRawStream", None) or (
            lambda d: torch.cuda.current_stream(d).cuda_stream)
        self.external = {}  # stream handle -> torch.cuda.ExternalStream
        self.local = threading.local()  # .events: device -> torch.cuda.Event

    def order_before(self, device, stream):
        """Makes `stream` (an int handle; 1 = the legacy default stream) wait for the
        work queued so far on `device`'s current stream: what Tensor.__dlpack__(stream=)
        does for every tensor, done once."""
        torch = self.torch
        if stream == 1:
            target = torch.cuda.default_stream(device)
        else:
            target = self.external.get((device, stream))
            if target is None:
                if len(self.external) > 64:
                    self.external.clear()
                target = torch.cuda.ExternalStream(stream, device=device)
                self.external[(device, stream)] = target
        events = getattr(self.local, "events", None)
        if events is None:
            events = self.local.events = {}
        event = events.get(device)
        if event is None:
            event = events[device] = torch.cuda.Event()
        # The wait captures the event as recorded now, so reusing it (per thread) is safe.
        event.record(torch.cuda.current_stream(device))
        target.wait_event(event)


_torch = None
# Its most used members, as module globals (one lookup each, not two).
_torch_to_dlpack = _torch_strided = _torch_complex = None


def _torch_usable(torch):
    """Whether this torch has what the fast path uses (any 2.x does)."""
    try:
        t = torch.Tensor
        return (isinstance(t, type) and isinstance(torch.nn.Parameter, type)
                and callable(torch.utils.dlpack.to_dlpack)
                and all(hasattr(t, a) for a in ("is_cpu", "is_cuda", "get_device",
                                                "is_pinned", "requires_grad", "layout")))
    except AttributeError:
        return False


def _kind_of(tp):
    global _torch, _torch_to_dlpack, _torch_strided, _torch_complex
    kind = _GENERIC
    torch = sys.modules.get("torch")
    np = sys.modules.get("numpy")
    if np is not None and tp is getattr(np, "ndarray", None):
        kind = _NUMPY
    elif torch is not None and _torch_usable(torch):
        if tp is torch.Tensor or tp is torch.nn.Parameter:
            if _torch is None:
                t = _Torch(torch)
                _torch_to_dlpack, _torch_strided, _torch_complex = (
                    t.to_dlpack, t.strided, t.complex)
                _torch = t
            kind = _TORCH
    if len(_kinds) < 256:
        _kinds[tp] = kind
    return kind


def prepare(stream, objs):
    """Converts the tensor arguments of one call and picks its stream.

    stream None = the current stream of the framework owning the first device tensor
    (PyTorch, CuPy), else the default stream. Returns (stream handle, addresses,
    keep-alive): an address (int) per object, None for None; the caller holds keep-alive
    until the C call returns."""
    if stream is None:
        producer = raw_producer = -1  # we run on the producer's current stream: ordered already
    else:
        stream = int(stream)
        # DLPack's stream numbers for CUDA: 1 is the legacy default stream, 0 is
        # ambiguous. For every other device (ROCm's kDLROCM, Ascend) 0 is the default
        # stream and any other value the runtime's own handle, so opkit's passes unchanged.
        producer = stream if stream != 0 else 1
        raw_producer = stream
    picked = stream is not None
    order = None  # (device, stream) when torch's work must be ordered before stream=
    out = []
    keep = []
    for o in objs:
        if o is None:
            out.append(None)
            continue
        kind = _kinds.get(type(o))
        if kind is None:
            kind = _kind_of(type(o))
        if kind == _NUMPY:
            try:
                capsule = o.__dlpack__()
            except (BufferError, TypeError):
                address, capsule = _from_array_interface(o)
            else:
                address = _get_pointer(capsule, b"dltensor")
            out.append(address)
            keep.append(capsule)
            continue
        if kind == _TORCH:
            # The checks Tensor.__dlpack__ makes before exporting; a tensor failing one of
            # them goes the general way, which raises just as it always did.
            if not (o.requires_grad or o.layout is not _torch_strided
                    or o.dtype in _torch_complex):
                if o.is_cuda:
                    # Any device, current or not: Tensor.__dlpack__ refuses tensors of a
                    # device other than the current one, but the C exporter does not, and
                    # the stream is that device's current stream (torch's streams are per
                    # device). A call mixing devices is refused by opkit itself.
                    device = o.get_device()
                    if not picked:
                        stream = _torch.raw_stream(device)
                        picked = True
                    if producer == -1 or order is not None:
                        capsule = _torch_to_dlpack(o)
                        out.append(_get_pointer(capsule, b"dltensor"))
                        keep.append(capsule)
                        continue
                    if not (_torch.hip or producer == 2):  # else torch's own rules
                        order = (device, producer)
                        capsule = _torch_to_dlpack(o)
                        out.append(_get_pointer(capsule, b"dltensor"))
                        keep.append(capsule)
                        continue
                elif o.is_cpu and not o.is_pinned():
                    capsule = _torch_to_dlpack(o)
                    out.append(_get_pointer(capsule, b"dltensor"))
                    keep.append(capsule)
                    continue
        # The DLPack protocol as written.
        device = device_of(o)
        if not picked and device[0] != DEVICE_CPU:
            stream = current_stream(o)
            picked = True
        address, k = _convert(o, device, producer if device[0] == DEVICE_CUDA else raw_producer)
        out.append(address)
        keep.append(k)
    if not picked:
        stream = 0
    if order is not None:
        device, producer = order
        # Nothing to order when stream= is the current stream (raw handles compare; the
        # legacy default stream's is 0).
        if (0 if producer == 1 else producer) != _torch.raw_stream(device):
            _torch.order_before(device, producer)
    return stream, out, keep
