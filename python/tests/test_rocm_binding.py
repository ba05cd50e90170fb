"""The binding's ROCm path, tested with fake objects (no ROCm PyTorch exists here).

PyTorch on ROCm exports tensors with DLPack device type 10 (kDLROCM); its HIP streams are
reached through the torch.cuda API. A pretend ROCm vendor on host memory (the fake vendor
"fakerocm", device type 10) serves softmax_forward and records the stream it was given, so
these tests see exactly which device type and stream reach the vendor.
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


class FakeRocmTensor(FakeDeviceTensor):
    """A 2-D float32 "ROCm" tensor over host memory (DLPack device type 10)."""

    def __init__(self, array):
        super().__init__(array, _tensors.DEVICE_ROCM)


@pytest.fixture
def fake_rocm():
    with pretend_vendor("rocm_accel", "fakerocm", opkit.DEVICE_ROCM) as last_stream:
        yield last_stream

@needs_fakes
def test_a_kdlrocm_tensor_reaches_the_rocm_vendor(fake_rocm):
    x = np.random.default_rng(1).standard_normal((3, 7)).astype(np.float32)
    xt, yt = FakeRocmTensor(x), FakeRocmTensor(np.zeros_like(x))
    opkit.softmax_forward(xt, yt)
    np.testing.assert_allclose(yt.array, softmax(x), rtol=1e-5)
    d = opkit.last_dispatch()
    assert (d.device_type, d.served_by) == (opkit.DEVICE_ROCM, "fakerocm")
    assert fake_rocm() == 0  # no framework stream known: the default (NULL) stream
    assert xt.streams == [-1]  # "already ordered": we run on the producer's stream


@needs_fakes
def test_explicit_streams_keep_rocm_dlpack_meaning(fake_rocm):
    # DLPack: for kDLROCM, 0 is the default stream and any other value a hipStream_t
    # (unlike CUDA, where 1 is the legacy default and 0 is ambiguous).
    x = np.ones((2, 4), np.float32)
    xt, yt = FakeRocmTensor(x), FakeRocmTensor(np.zeros_like(x))
    opkit.softmax_forward(xt, yt, stream=0)
    assert xt.streams[-1] == 0 and yt.streams[-1] == 0
    assert fake_rocm() == 0
    opkit.softmax_forward(xt, yt, stream=0x1234)
    assert xt.streams[-1] == 0x1234 and yt.streams[-1] == 0x1234
    assert fake_rocm() == 0x1234
    np.testing.assert_allclose(yt.array, 0.25, rtol=1e-6)


@needs_fakes
@pytest.mark.skipif("torch" in sys.modules or _tensors.sys.modules.get("torch") is not None,
                    reason="a real torch is imported: the fake torch would shadow it")
def test_rocm_torch_tensor_runs_on_torch_cuda_current_stream(fake_rocm, monkeypatch):
    # A ROCm build of PyTorch: torch.version.hip is set and torch.cuda.current_stream()
    # returns HIP streams. A fake module stands in for it; its tensors take the general
    # DLPack path, which asks torch.cuda.current_stream(tensor.device) for the stream.
    asked = []

    class Stream:
        cuda_stream = 0xBEEF

    fake_torch = types.ModuleType("torch")
    fake_torch.version = types.SimpleNamespace(hip="6.2.41133", cuda=None)
    fake_torch.cuda = types.SimpleNamespace(current_stream=lambda device: asked.append(device) or Stream())

    class TorchTensor(FakeRocmTensor):
        device = "cuda:0"  # what ROCm PyTorch calls its HIP devices

    fake_torch.Tensor = TorchTensor
    monkeypatch.setitem(sys.modules, "torch", fake_torch)
    monkeypatch.setattr(_tensors, "_kinds", {})
    x = np.random.default_rng(2).standard_normal((4, 5)).astype(np.float32)
    xt, yt = TorchTensor(x), TorchTensor(np.zeros_like(x))
    opkit.softmax_forward(xt, yt)
    assert asked == ["cuda:0"]  # asked once per call, for the first device tensor
    assert fake_rocm() == 0xBEEF
    np.testing.assert_allclose(yt.array, softmax(x), rtol=1e-5)
