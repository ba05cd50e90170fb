"""The binding's Ascend path, tested with fake objects (no NPU or torch_npu exists here).

torch_npu tensors export DLPack device type 12 (kDLExtDev) or 21 (kDLAscend); libopkit
routes both to the Ascend vendor. Their streams are torch_npu's: the binding asks
torch_npu.npu.current_stream() when torch_npu is imported. A pretend Ascend vendor on host
memory ("fakenpu", device type 21) serves softmax_forward and records the stream it got.
"""
import sys
import types

import numpy as np
import pytest

import opkit
from opkit import _tensors

from fake_device import FAKE, FakeDeviceTensor, pretend_vendor, softmax

needs_fakes = pytest.mark.skipif(not FAKE, reason="OPKIT_TEST_FAKE_VENDORS is not set "
                                 "(run through ctest)")


class FakeNpuTensor(FakeDeviceTensor):
    """A float32 NPU tensor over host memory exporting DLPack device type `dl_type`."""


@pytest.fixture
def fake_npu():
    with pretend_vendor("npu_accel", "fakenpu", opkit.DEVICE_ASCEND) as last_stream:
        yield last_stream

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
