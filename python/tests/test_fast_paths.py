"""The binding's per-call fast paths (opkit._tensors.prepare) against the DLPack protocol
as written: the same results through the general path, and the PyTorch CUDA path's
stream logic driven by stand-ins (a GPU run covers the real thing in test_gpu_torch)."""
import contextlib
import sys
import types

import numpy as np
import pytest

import opkit
from opkit import _tensors


class DLPackOnly:
    """A tensor known only by its DLPack methods (as JAX or CuPy arrays are)."""

    def __init__(self, array, device=(opkit.DEVICE_CPU, 0)):
        self.array, self.device, self.streams = array, device, []

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, **kw):
        self.streams.append(kw.get("stream", "none"))
        return self.array.__dlpack__()


def test_general_path_matches_the_numpy_path(rng):
    x = rng.standard_normal((3, 17)).astype(np.float32)
    w = rng.standard_normal(17).astype(np.float32)
    y1, y2 = np.empty_like(x), np.empty_like(x)
    r1, r2 = np.empty(3, np.float32), np.empty(3, np.float32)
    opkit.rms_norm_forward(x, w, 1e-6, 0.0, y1, r1)
    wrapped = [DLPackOnly(a) for a in (x, w, y2, r2)]
    opkit.rms_norm_forward(*wrapped[:2], 1e-6, 0.0, *wrapped[2:])
    np.testing.assert_array_equal(y1, y2)
    np.testing.assert_array_equal(r1, r2)
    assert all(o.streams == ["none"] for o in wrapped)  # host tensors: no stream asked


def test_general_device_tensor_gets_the_stream_protocol():
    x = DLPackOnly(np.ones((2, 4), np.float32), device=(opkit.DEVICE_CUDA, 0))
    s, _, _ = _tensors.prepare(None, (x,))
    assert (s, x.streams) == (0, [-1])  # no framework current stream known: the default
    _tensors.prepare(0, (x,))
    _tensors.prepare(77, (x,))
    assert x.streams == [-1, 1, 77]  # stream=0 is DLPack's 1, the legacy default stream


def test_every_argument_keeps_its_position():
    x, y = np.ones((2, 3), np.float32), np.ones((2, 3), np.float32)
    _, ptrs, keep = _tensors.prepare(None, (None, x, None, y))
    assert ptrs[0] is None and ptrs[2] is None and ptrs[1] != ptrs[3]
    assert len(keep) == 2


# ---- the PyTorch CUDA path, with stand-ins for torch and its tensors ---------------------

class FakeCudaTensor:
    """What the fast path reads of a torch.Tensor, for one on a CUDA device."""
    requires_grad = False
    layout = "strided"
    dtype = "float32"
    is_cuda = True
    is_cpu = False

    def __init__(self, device=0, requires_grad=False):
        self.array = np.ones((2, 4), np.float32)
        self.device, self.requires_grad, self.streams = device, requires_grad, []

    def get_device(self):
        return self.device

    def __dlpack_device__(self):  # the general path
        return opkit.DEVICE_CUDA, self.device

    def __dlpack__(self, stream=None):
        self.streams.append(stream)
        return self.array.__dlpack__()


class FakeTorch:
    """Device 0's current stream is current_stream; device 1's is DEVICE1_STREAM."""
    hip = False
    DEVICE1_STREAM = 0x1111

    def __init__(self, current_stream=0x1234):
        self.current_stream, self.ordered = current_stream, []

    def raw_stream(self, device):
        assert device in (0, 1)
        return self.current_stream if device == 0 else self.DEVICE1_STREAM

    def order_before(self, device, stream):
        self.ordered.append((device, stream))


@pytest.fixture
def fake_torch(monkeypatch):
    t = FakeTorch()
    monkeypatch.setitem(_tensors._kinds, FakeCudaTensor, _tensors._TORCH)
    monkeypatch.setattr(_tensors, "_torch", t)
    monkeypatch.setattr(_tensors, "_torch_to_dlpack", lambda o: o.array.__dlpack__())
    monkeypatch.setattr(_tensors, "_torch_strided", "strided")
    monkeypatch.setattr(_tensors, "_torch_complex", frozenset(["complex64"]))
    monkeypatch.setattr(_tensors, "current_stream", lambda o: t.current_stream)
    return t


def test_torch_cuda_runs_on_the_current_stream_unordered(fake_torch):
    a, b = FakeCudaTensor(), FakeCudaTensor()
    s, ptrs, keep = _tensors.prepare(None, (a, None, b))
    assert s == 0x1234 and ptrs[1] is None and None not in (ptrs[0], ptrs[2])
    assert fake_torch.ordered == [] and a.streams == b.streams == []  # no __dlpack__


def test_torch_cuda_explicit_stream_is_ordered_once_per_call(fake_torch):
    a, b, c = FakeCudaTensor(), FakeCudaTensor(), FakeCudaTensor()
    s, _, _ = _tensors.prepare(0x5678, (a, b, c))
    assert s == 0x5678 and fake_torch.ordered == [(0, 0x5678)]
    _tensors.prepare(0x1234, (a, b))  # the current stream: nothing to order
    assert fake_torch.ordered == [(0, 0x5678)]
    s, _, _ = _tensors.prepare(0, (a,))  # the legacy default stream, DLPack's 1
    assert s == 0 and fake_torch.ordered == [(0, 0x5678), (0, 1)]
    fake_torch.current_stream = 0  # ... which is current: nothing to order
    _tensors.prepare(0, (a,))
    assert len(fake_torch.ordered) == 2 and a.streams == []


def test_torch_cuda_tensor_of_another_device_runs_on_that_devices_stream(fake_torch):
    # Device 1's tensors need not be on the current device (issue 15): they take the
    # fast path, on device 1's current stream, and an explicit stream is ordered after
    # device 1's work.
    a, b = FakeCudaTensor(device=1), FakeCudaTensor(device=1)
    s, ptrs, _ = _tensors.prepare(None, (a, b))
    assert s == FakeTorch.DEVICE1_STREAM and None not in ptrs
    assert fake_torch.ordered == [] and a.streams == b.streams == []
    s, _, _ = _tensors.prepare(0x5678, (a, b))
    assert s == 0x5678 and fake_torch.ordered == [(1, 0x5678)] and a.streams == []


@pytest.mark.parametrize("case", ["requires grad", "complex", "hip", "per-thread stream"])
def test_torch_out_of_the_ordinary_takes_the_dlpack_protocol(fake_torch, case):
    t = FakeCudaTensor(requires_grad=case == "requires grad")
    if case == "complex":
        t.dtype = "complex64"
    fake_torch.hip = case == "hip"
    stream = 2 if case == "per-thread stream" else 0x5678 if case == "hip" else None
    _tensors.prepare(stream, (t,))
    assert t.streams == [-1 if stream is None else stream]
    assert fake_torch.ordered == []


def test_general_path_exports_a_torch_tensor_of_another_device_from_under_it(monkeypatch):
    # PyTorch's Tensor.__dlpack__ raises BufferError for a tensor of a device other than
    # the current one; the binding then exports it under torch.cuda.device(that device).
    current = [0]
    entered = []

    @contextlib.contextmanager
    def device(index):
        entered.append(index)
        before, current[0] = current[0], index
        try:
            yield
        finally:
            current[0] = before

    class Tensor:
        def __init__(self, array, index):
            self.array, self.index, self.streams = array, index, []

        def __dlpack_device__(self):
            return opkit.DEVICE_CUDA, self.index

        def __dlpack__(self, stream=None):
            if self.index != current[0]:
                raise BufferError("Can't export tensors on a different CUDA device index")
            self.streams.append(stream)
            return self.array.__dlpack__()

    fake = types.ModuleType("torch")
    fake.Tensor = Tensor
    fake.cuda = types.SimpleNamespace(device=device)
    monkeypatch.setitem(sys.modules, "torch", fake)
    monkeypatch.setattr(_tensors, "current_stream", lambda o: 0x99)
    monkeypatch.setattr(_tensors, "_kinds", {Tensor: _tensors._GENERIC})
    t = Tensor(np.ones((2, 4), np.float32), 1)
    s, ptrs, _ = _tensors.prepare(None, (t,))
    assert s == 0x99 and ptrs[0] is not None
    assert entered == [1] and t.streams == [-1] and current == [0]

    class NotTorch(Tensor):
        pass

    monkeypatch.setattr(_tensors, "_kinds", {NotTorch: _tensors._GENERIC})
    fake.Tensor = type("Other", (), {})  # no longer torch's class: the error stands
    with pytest.raises(BufferError):
        _tensors.prepare(None, (NotTorch(np.ones(3, np.float32), 1),))
