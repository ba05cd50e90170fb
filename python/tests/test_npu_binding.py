"""The binding's Ascend path, tested with fake objects (no NPU or torch_npu exists here).

torch_npu tensors export DLPack device type 12 (kDLExtDev) or 21 (kDLAscend); libopkit
routes both to the Ascend vendor. Their streams are torch_npu's: the binding asks
torch_npu.npu.current_stream() when torch_npu is imported. A pretend Ascend vendor on host
memory ("fakenpu", device type 21) serves softmax_forward and records the stream it got.
"""
import ctypes
import os
import sys
import types

import numpy as np
import pytest

import opkit
from opkit import _tensors

FAKE = os.environ.get("OPKIT_TEST_FAKE_VENDORS")
needs_fakes = pytest.mark.skipif(not FAKE, reason="OPKIT_TEST_FAKE_VENDORS is not set "
                                 "(run through ctest)")

_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


class FakeNpuTensor:
    """A float32 NPU tensor over host memory (the pretend device's memory) that exports
    DLPack device type `dl_type` and records the stream each __dlpack__ call is given."""

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


@pytest.fixture
def fake_npu():
    opkit.shutdown()
    opkit.init(vendor_path=os.path.join(FAKE, "npu_accel"))
    vendor = [v for v in opkit.vendors() if v.name == "fakenpu"]
    assert vendor and vendor[0].device_type == opkit.DEVICE_ASCEND and vendor[0].state_name == "READY"
    lib = ctypes.CDLL(vendor[0].path)  # the same handle libopkit opened
    lib.fake_vendor_last_stream.restype = ctypes.c_void_p
    try:
        yield lambda: lib.fake_vendor_last_stream() or 0
    finally:
        opkit.shutdown()


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@needs_fakes
@pytest.mark.parametrize("dl_type", [21, 12], ids=["kDLAscend", "kDLExtDev"])
def test_npu_tensors_reach_the_ascend_vendor(fake_npu, dl_type):
    x = np.random.default_rng(dl_type).standard_normal((3, 6)).astype(np.float32)
    xt, yt = FakeNpuTensor(x, dl_type), FakeNpuTensor(np.zeros_like(x), dl_type)
    opkit.softmax_forward(xt, yt)
    np.testing.assert_allclose(yt.array, softmax(x), rtol=1e-5)
    d = opkit.last_dispatch()
    assert (d.device_type, d.served_by) == (opkit.DEVICE_ASCEND, "fakenpu")
    assert fake_npu() == 0
    opkit.softmax_forward(xt, yt, stream=0x77)  # a handle passes through unchanged
    assert xt.streams[-1] == 0x77 and fake_npu() == 0x77
    opkit.softmax_forward(xt, yt, stream=0)  # 0 stays the default stream (no CUDA remapping)
    assert xt.streams[-1] == 0 and fake_npu() == 0


@needs_fakes
@pytest.mark.skipif("torch" in sys.modules, reason="a real torch is imported: the fakes would shadow it")
def test_torch_npu_tensor_runs_on_torch_npu_current_stream(fake_npu, monkeypatch):
    asked = []

    class NpuStream:
        npu_stream = 0xA5C0

    fake_torch = types.ModuleType("torch")
    fake_torch.cuda = types.SimpleNamespace(
        current_stream=lambda device: pytest.fail("an NPU tensor must not ask torch.cuda"))

    class TorchNpuTensor(FakeNpuTensor):
        device = types.SimpleNamespace(type="npu", index=0)

    fake_torch.Tensor = TorchNpuTensor
    fake_torch_npu = types.ModuleType("torch_npu")
    fake_torch_npu.npu = types.SimpleNamespace(
        current_stream=lambda device: asked.append(device) or NpuStream())
    monkeypatch.setitem(sys.modules, "torch", fake_torch)
    monkeypatch.setitem(sys.modules, "torch_npu", fake_torch_npu)
    monkeypatch.setattr(_tensors, "_kinds", {})
    x = np.random.default_rng(5).standard_normal((2, 9)).astype(np.float32)
    xt, yt = TorchNpuTensor(x, 12), TorchNpuTensor(np.zeros_like(x), 12)
    opkit.softmax_forward(xt, yt)
    assert asked == [TorchNpuTensor.device]
    assert fake_npu() == 0xA5C0
    np.testing.assert_allclose(yt.array, softmax(x), rtol=1e-5)
    # Without torch_npu imported, the default stream.
    monkeypatch.delitem(sys.modules, "torch_npu")
    opkit.softmax_forward(xt, yt)
    assert fake_npu() == 0
