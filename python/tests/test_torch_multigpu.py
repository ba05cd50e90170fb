"""Device 1 through the Python binding (issue 15): PyTorch tensors on cuda:1, called
under torch.cuda.device(1) and from outside it (current device 0). The stream opkit runs
on must be device 1's current stream: the tests queue a long kernel on a side stream of
device 1, make it current there, then write the input on that stream, so a call that ran
anywhere else would read the old input. Skipped (with the reason) with fewer than two
GPUs; ctest runs this file as its own test so that such a skip shows as "Skipped"."""
import pytest

torch = pytest.importorskip("torch")

import opkit  # noqa: E402

two_gpus = pytest.mark.skipif(not torch.cuda.is_available() or torch.cuda.device_count() < 2,
                              reason="needs two GPUs visible to PyTorch")


def _softmax_on(dev, inside):
    x = torch.randn(64, 1000, device=dev)
    y = torch.empty_like(x)
    if inside:
        with torch.cuda.device(dev):
            opkit.softmax_forward(x, y)
    else:
        opkit.softmax_forward(x, y)
    torch.cuda.synchronize(dev)
    torch.testing.assert_close(y, torch.softmax(x, -1), rtol=2e-5, atol=1e-7)


@two_gpus
@pytest.mark.parametrize("inside", [True, False], ids=["under torch.cuda.device(1)", "current device 0"])
def test_ops_on_cuda1(inside):
    torch.manual_seed(1)
    dev = torch.device("cuda", 1)
    assert torch.cuda.current_device() == 0
    _softmax_on(dev, inside)
    x = torch.randn(32, 512, device=dev, dtype=torch.bfloat16)
    w = torch.randn(512, device=dev, dtype=torch.bfloat16)
    y = torch.empty_like(x)
    rstd = torch.empty(32, device=dev)
    if inside:
        with torch.cuda.device(1):
            opkit.rms_norm_forward(x, w, 1e-6, 0.0, y, rstd)
    else:
        opkit.rms_norm_forward(x, w, 1e-6, 0.0, y, rstd)
    ref = x.float() * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-6) * w.float()
    torch.testing.assert_close(y.float(), ref, rtol=2e-2, atol=2e-2)
    assert opkit.last_dispatch().served_by == "cuda"


@two_gpus
@pytest.mark.parametrize("inside", [True, False], ids=["current device 1", "current device 0"])
def test_runs_on_device1s_current_stream(inside):
    dev = torch.device("cuda", 1)
    side = torch.cuda.Stream(device=dev)
    x = torch.zeros(256, 4096, device=dev)
    src = torch.randn(256, 4096, device=dev)
    y = torch.empty_like(x)
    torch.cuda.synchronize(dev)
    # torch.cuda.stream(side) makes `side` device 1's current stream, and device 1 the
    # current device; for the second case the current device goes back to 0 while side
    # stays device 1's current stream (streams are per device).
    with torch.cuda.stream(side):
        torch.cuda._sleep(200_000_000)  # ~0.1 s of GPU time on the side stream
        x.copy_(src)  # queued behind the sleep
        assert torch.cuda.current_stream(dev) == side
        if inside:
            opkit.softmax_forward(x, y)
        else:
            torch.cuda.set_device(0)
            try:
                assert torch.cuda.current_stream(dev) == side
                opkit.softmax_forward(x, y)
            finally:
                torch.cuda.set_device(1)
        assert not side.query(), "the sleep ended before the check; raise its length"
    side.synchronize()
    torch.testing.assert_close(y, torch.softmax(src, -1), rtol=2e-5, atol=1e-7)


class _Subclass(torch.Tensor):
    """A tensor subclass: not a plain torch.Tensor, so the binding takes the DLPack
    protocol as written (its general path) instead of the PyTorch fast path."""


@two_gpus
def test_general_path_takes_a_cuda1_tensor_with_device_0_current():
    # Tensor.__dlpack__ refuses a tensor of a non-current device; the binding exports it
    # again from under torch.cuda.device(1).
    assert torch.cuda.current_device() == 0
    x = torch.randn(16, 300, device="cuda:1").as_subclass(_Subclass)
    y = torch.empty_like(x)
    opkit.softmax_forward(x, y)
    torch.cuda.synchronize(1)
    torch.testing.assert_close(y.as_subclass(torch.Tensor), torch.softmax(x.as_subclass(torch.Tensor), -1),
                               rtol=2e-5, atol=1e-7)
    assert torch.cuda.current_device() == 0
