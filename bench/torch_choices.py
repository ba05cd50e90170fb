#!/usr/bin/env python3
"""Three choices of opkit.torch, measured on a GPU (docs/pytorch.md cites the numbers):
  cast    an fp32 weight with bf16 activations (cast once per call) against a bf16
          weight: rms_norm forward + backward, 32768 x 4096;
  linear  the MLP projections through nn.Linear (cuBLAS via PyTorch) against opkit.matmul
          (cuBLASLt via opkit): x [4096, 1024] @ W^T, W [2816, 1024], bf16;
  inplace cross_entropy against cross_entropy_inplace (the gradient over the logits):
          peak memory and time of forward + backward, logits [8192, 32000] bf16.
Times: CUDA events, median of 20 after 3 warm-ups (torch_baseline.timed).

    OPKIT_LIBRARY=$BUILD/lib/libopkit.so.1 python3 bench/torch_choices.py
"""
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import opkit  # noqa: E402
import opkit.torch as okt  # noqa: E402
from torch_baseline import timed  # noqa: E402  (CUDA events, median; bench/ is on sys.path)


def main():
    torch.manual_seed(0)
    dev, bf = "cuda", torch.bfloat16
    print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}, opkit {opkit.version()}")
    x = torch.randn(32768, 4096, device=dev, dtype=bf, requires_grad=True)
    dy = torch.randn_like(x)
    for name, w in (("bf16 weight", torch.randn(4096, device=dev, dtype=bf, requires_grad=True)),
                    ("fp32 weight (cast per call)", torch.randn(4096, device=dev, requires_grad=True))):
        def step():
            y = okt.rms_norm(x, w)
            torch.autograd.grad(y, (x, w), dy)
        print(f"cast    rms_norm fwd+bwd 32768x4096 bf16, {name:28s} {timed(step):.3f} ms")
    del x, dy
    xl = torch.randn(4096, 1024, device=dev, dtype=bf)
    W = torch.randn(2816, 1024, device=dev, dtype=bf)
    out = torch.empty(4096, 2816, device=dev, dtype=bf)
    print(f"linear  F.linear     [4096,1024] x [2816,1024]^T bf16 {timed(lambda: F.linear(xl, W)):.3f} ms")
    print(f"linear  opkit.matmul [4096,1024] x [2816,1024]^T bf16 "
          f"{timed(lambda: opkit.matmul(xl, W, out, 1.0, 0.0, 0, 1)):.3f} ms")
    torch.testing.assert_close(out, F.linear(xl, W), rtol=2e-2, atol=1e-1)
    target = torch.randint(0, 32000, (8192,), device=dev)
    for name, fn in (("cross_entropy", okt.cross_entropy), ("cross_entropy_inplace", okt.cross_entropy_inplace)):
        base = torch.randn(8192, 32000, device=dev, dtype=bf)

        def step():
            lg = base.clone().requires_grad_()
            h = lg * 1  # a non-leaf like an LM head's output
            fn(h, target).backward()
        step()
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        before = torch.cuda.memory_allocated()
        step()
        torch.cuda.synchronize()
        peak = (torch.cuda.max_memory_allocated() - before) / 2 ** 20
        print(f"inplace {name:22s} fwd+bwd 8192x32000 bf16: {timed(step):.3f} ms (incl. the clone and the x1), "
              f"peak above baseline {peak:.0f} MiB")


if __name__ == "__main__":
    main()
