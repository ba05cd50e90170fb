"""Fakes for the binding's non-CUDA device paths (ROCm, Ascend) where no such device exists.

A FakeDeviceTensor is a float32 tensor over host memory that speaks the DLPack protocol
with a chosen device type and records the stream each __dlpack__ call is given; a pretend
vendor (tests/fake_vendor, FAKE_ACCEL) serves that device type on host memory and records
the stream its softmax_forward got. Together they show exactly which device type and
stream reach a vendor.
"""
import contextlib
import ctypes
import os

import numpy as np

import opkit
from opkit import _tensors

FAKE = os.environ.get("OPKIT_TEST_FAKE_VENDORS")

_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


class FakeDeviceTensor:
    def __init__(self, array, dl_type):
        self.array = np.ascontiguousarray(array, dtype=np.float32)
        self.dl_type = dl_type
        self.shape = (ctypes.c_int64 * self.array.ndim)(*self.array.shape)
        self.dl = _tensors.Tensor()
        self.dl.data = self.array.ctypes.data
        self.dl.device.device_type, self.dl.device.device_id = dl_type, 0
        self.dl.ndim = self.array.ndim
        self.dl.dtype.code, self.dl.dtype.bits, self.dl.dtype.lanes = _tensors.DTYPE_FLOAT, 32, 1
        self.dl.shape = self.shape
        self.streams = []

    def __dlpack_device__(self):
        return (self.dl_type, 0)

    def __dlpack__(self, stream=None):
        self.streams.append(stream)
        return _capsule_new(ctypes.addressof(self.dl), b"dltensor", None)


@contextlib.contextmanager
def pretend_vendor(subdir, name, device_type):
    """opkit initialized with only the fake vendor in FAKE/subdir; yields a function
    returning the stream (an int, 0 = NULL) of its last softmax_forward call."""
    opkit.shutdown()
    opkit.init(vendor_path=os.path.join(FAKE, subdir))
    try:
        vendor = [v for v in opkit.vendors() if v.name == name]
        assert vendor and vendor[0].device_type == device_type and vendor[0].state_name == "READY"
        lib = ctypes.CDLL(vendor[0].path)  # the same handle libopkit opened
        lib.fake_vendor_last_stream.restype = ctypes.c_void_p
        yield lambda: lib.fake_vendor_last_stream() or 0
    finally:
        opkit.shutdown()


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
