#!/usr/bin/env python3
"""Host time per call of the Python binding, against a bare ctypes call of the same C
function on tensors converted once (the floor the binding can reach), and, with
--torch-cuda, against PyTorch eager doing the same op.

Tiny tensors (1x128 by default), many back-to-back calls, the best of a few repeats: the
number is the host's cost of one call (argument conversion, stream lookup, the C call and
whatever the C library does before it returns), not the kernel's time.

    python3 python/bench_overhead.py                 # NumPy arrays on the CPU (f32)
    python3 python/bench_overhead.py --torch-cuda    # PyTorch CUDA tensors (bf16)
    python3 python/bench_overhead.py --torch-cpu     # PyTorch CPU tensors (f32)

Columns: `binding` = opkit.op(...) as users call it (stream from the framework);
`stream=cur` = the same with an explicit stream= that is the current stream (0 on the
CPU); `stream=side` (CUDA) = an explicit stream= that is another stream, so the producer's
work must be ordered before it (an event per call); `bare` = the ctypes call alone;
`eager` (PyTorch) = PyTorch's own op (F.rms_norm, torch.softmax, F.silu(a) * b,
y.add_(x, alpha=0.5)).
"""
import argparse
import ctypes
import os
import sys
import timeit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import opkit  # noqa: E402
from opkit import _library  # noqa: E402

_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_get_pointer.restype = ctypes.c_void_p
_get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]

_NARGS = {"opkit_rms_norm_forward": "TTffTT", "opkit_softmax_forward": "TT",
          "opkit_swiglu_forward": "TTT", "opkit_axpy": "fTT"}


def bare_function(name):
    """The C function through ctypes with its own prototype: tensors as addresses."""
    own = ctypes.CDLL(_library.lib._name)
    fn = getattr(own, name)
    fn.restype = ctypes.c_int32
    fn.argtypes = [ctypes.c_float if c == "f" else ctypes.c_void_p for c in _NARGS[name]] + \
                  [ctypes.c_void_p]
    return fn


def address(obj, keep):
    """A DLTensor address for obj, converted once (kept alive in keep)."""
    try:
        capsule = obj.__dlpack__()
    except BufferError:  # NumPy bfloat16 (ml_dtypes): an opkit_tensor of our own
        ai, n = obj.__array_interface__, obj.ndim
        shape = (ctypes.c_int64 * n)(*obj.shape)
        strides = (ctypes.c_int64 * n)(*(s // obj.itemsize for s in obj.strides))
        t = _library.Tensor(ai["data"][0], _library.Device(1, 0), n,
                            _library.DType(4, 16, 1), shape, strides, 0)
        keep.append((t, shape, strides))
        return ctypes.addressof(t)
    keep.append(capsule)
    return _get_pointer(capsule, b"dltensor")


def cases(xp, shape, device_stream, side_stream):
    """(name, statement namespace, {column: statement}) per op."""
    R, N = shape
    x, a, b, w = xp.rand(R, N), xp.rand(R, N), xp.rand(R, N), xp.rand(N)
    y, rstd = xp.empty(R, N), xp.empty(R, dtype=xp.f32)
    keep = []
    ns = dict(opkit=opkit, x=x, a=a, b=b, w=w, y=y, rstd=rstd, S=device_stream,
              SIDE=side_stream, keep=keep)
    for k, v in dict(px=x, pa=a, pb=b, pw=w, py=y, pr=rstd).items():
        ns[k] = address(v, keep)
    ns["bare_rms"] = bare_function("opkit_rms_norm_forward")
    ns["bare_softmax"] = bare_function("opkit_softmax_forward")
    ns["bare_swiglu"] = bare_function("opkit_swiglu_forward")
    ns["bare_axpy"] = bare_function("opkit_axpy")
    ns.update(xp.eager_namespace())
    ops = [
        ("rms_norm_forward", "opkit.rms_norm_forward(x, w, 1e-6, 0.0, y, rstd{s})",
         "bare_rms(px, pw, 1e-6, 0.0, py, pr, S)", xp.eager.get("rms_norm")),
        ("softmax_forward", "opkit.softmax_forward(x, y{s})",
         "bare_softmax(px, py, S)", xp.eager.get("softmax")),
        ("swiglu_forward", "opkit.swiglu_forward(a, b, y{s})",
         "bare_swiglu(pa, pb, py, S)", xp.eager.get("swiglu")),
        ("axpy", "opkit.axpy(0.5, x, y{s})",
         "bare_axpy(0.5, px, py, S)", xp.eager.get("axpy")),
    ]
    for name, call, bare, eager in ops:
        cols = {"binding": call.format(s=""), "stream=cur": call.format(s=", stream=S")}
        if side_stream is not None:
            cols["stream=side"] = call.format(s=", stream=SIDE")
        cols["bare"] = bare
        if eager:
            cols["eager"] = eager
        yield name, ns, cols


class NumpyArrays:
    f32 = "float32"
    eager = {}

    def __init__(self, dtype):
        import numpy as np
        self.np = np
        if dtype == "bf16":
            import ml_dtypes
            self.dt = ml_dtypes.bfloat16
        else:
            self.dt = {"f32": np.float32, "f16": np.float16}[dtype]
        self.rng = np.random.default_rng(0)

    def _dt(self, dtype):
        return self.np.float32 if dtype == "float32" else self.dt

    def rand(self, *shape, dtype=None):
        return self.rng.standard_normal(shape).astype(self._dt(dtype))

    def empty(self, *shape, dtype=None):
        return self.np.zeros(shape, self._dt(dtype))

    def eager_namespace(self):
        return {}

    def sync(self):
        pass


class Torch:
    eager = {"rms_norm": "F.rms_norm(x, (x.shape[-1],), w, 1e-6)",
             "softmax": "torch.softmax(x, -1)",
             "swiglu": "F.silu(a) * b",
             "axpy": "y.add_(x, alpha=0.5)"}

    def __init__(self, dtype, device):
        import torch
        self.torch = torch
        self.device = device
        self.f32 = torch.float32
        self.dt = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}[dtype]

    def rand(self, *shape, dtype=None):
        return self.torch.randn(*shape, device=self.device, dtype=dtype or self.dt)

    def empty(self, *shape, dtype=None):
        return self.torch.zeros(*shape, device=self.device, dtype=dtype or self.dt)

    def eager_namespace(self):
        import torch.nn.functional as F
        return {"torch": self.torch, "F": F}

    def sync(self):
        if self.device == "cuda":
            self.torch.cuda.synchronize()


def measure(stmt, ns, calls, repeats, sync):
    timer = timeit.Timer(stmt, globals=ns)
    timer.timeit(min(calls, 1000))  # warm-up
    best = float("inf")
    for _ in range(repeats):
        sync()
        best = min(best, timer.timeit(calls) / calls)
    sync()
    return best * 1e6


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--torch-cuda", action="store_true", help="PyTorch CUDA tensors")
    p.add_argument("--torch-cpu", action="store_true", help="PyTorch CPU tensors")
    p.add_argument("--dtype", choices=["f32", "f16", "bf16"], help="default: f32 (NumPy, "
                   "--torch-cpu), bf16 with --torch-cuda")
    p.add_argument("--shape", default="1x128", help="rows x columns (default 1x128)")
    p.add_argument("--calls", type=int, default=20000, help="back-to-back calls per repeat")
    p.add_argument("--repeats", type=int, default=5, help="repeats; the best is printed")
    args = p.parse_args()
    shape = tuple(int(v) for v in args.shape.lower().split("x"))
    dtype = args.dtype or ("bf16" if args.torch_cuda else "f32")
    if args.torch_cuda:
        xp = Torch(dtype, "cuda")
        torch = xp.torch
        side = torch.cuda.Stream()  # kept alive by `xp`
        xp.side = side
        stream, side = torch.cuda.current_stream().cuda_stream, side.cuda_stream
        where = f"torch {torch.__version__} CUDA tensors on {torch.cuda.get_device_name()}"
    elif args.torch_cpu:
        xp = Torch(dtype, "cpu")
        stream, side = 0, None
        where = f"torch {xp.torch.__version__} CPU tensors"
    else:
        xp = NumpyArrays(dtype)
        stream, side = 0, None
        where = f"NumPy {xp.np.__version__} arrays on the CPU"
    print(f"opkit {opkit.version()}, {where}, {dtype} "
          f"{shape[0]}x{shape[1]}: host microseconds per call, best of {args.repeats} x "
          f"{args.calls} calls")
    header = None
    for name, ns, cols in cases(xp, shape, stream, side):
        if header is None:
            header = list(cols)
            print(f"{'op':<18}" + "".join(f"{c:>12}" for c in header) + f"{'overhead':>10}")
        status = eval(cols["bare"], ns)
        if status:
            raise SystemExit(f"{name}: the bare call fails with status {status}: "
                             + _library.lib.opkit_last_error_message().decode())
        us = {c: measure(stmt, ns, args.calls, args.repeats, xp.sync)
              for c, stmt in cols.items()}
        print(f"{name:<18}" + "".join(f"{us[c]:>12.2f}" for c in header)
              + f"{us['binding'] - us['bare']:>10.2f}", flush=True)
    print("overhead = binding - bare: what the binding adds to the C call")


if __name__ == "__main__":
    main()
