#!/usr/bin/env python3
"""Where the embedding backward's time goes, at gpu_compare.py's shape (V 128256 x D 4096,
8192 ids): the whole call timed as gpu_compare times it, each of its kernels' device time
from the CUDA profiler (CUPTI, through torch.profiler, at the GPU's own clocks), and the
ceilings its bytes allow: a device copy and a write-only fill of dweight (PyTorch's
zero_), timed the same way.

    OPKIT_LIBRARY=<build>/lib/libopkit.so.1 python3 bench/emb_bwd_breakdown.py [--dtype bf16]

The write-only fill is the floor of any kernel that must write all of dweight: if it is
itself short of 0.9 of the copy bandwidth, so is the op.
"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))
import opkit  # noqa: E402
from gpu_compare import copy_bandwidth, timed  # noqa: E402
from kernel_breakdown import kernel_times  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dtype", default="bf16")
    p.add_argument("--reps", type=int, default=50)
    args = p.parse_args()
    dt = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}[args.dtype]
    es = torch.tensor([], dtype=dt).element_size()
    V, D, BT = 128256, 4096, 8192
    torch.manual_seed(0)
    ids = torch.randint(0, V, (BT,), device="cuda")
    dy = torch.randn(BT, D, device="cuda").to(dt)
    dw = torch.empty(V, D, device="cuda", dtype=dt)
    moved = (2 * BT * D + V * D) * es  # as gpu_compare.py counts the op
    copy_gbs = copy_bandwidth(args.reps)
    op_ms = timed(lambda: opkit.embedding_backward(dy, ids, -1, dw), args.reps)
    fill_ms = timed(lambda: dw.zero_(), args.reps)
    print(f"device {torch.cuda.get_device_name()}, {args.dtype}, V {V} x D {D}, {BT} ids, "
          f"{len(torch.unique(ids))} distinct")
    print(f"copy bandwidth {copy_gbs:.0f} GB/s")
    print(f"embedding_backward {op_ms:.4f} ms, {moved / op_ms / 1e6:.0f} GB/s, "
          f"{moved / op_ms / 1e6 / copy_gbs:.3f} of copy")
    wbytes = V * D * es
    print(f"dweight.zero_() {fill_ms:.4f} ms, {wbytes / fill_ms / 1e6:.0f} GB/s written, "
          f"{wbytes / fill_ms / 1e6 / copy_gbs:.3f} of copy")
    print(f"the op at the fill's write rate plus dy read at copy rate: "
          f"{fill_ms + 2 * BT * D * es / copy_gbs / 1e6:.4f} ms")
    print("kernels of one embedding_backward call (device us, CUPTI):")
    per = kernel_times(lambda: opkit.embedding_backward(dy, ids, -1, dw), 20)
    for name, us in sorted(per.items(), key=lambda kv: -kv[1]):
        print(f"  {us:9.2f}  {name}")
    print(f"  {sum(per.values()):9.2f}  sum")
    fill = kernel_times(lambda: dw.zero_(), 20)
    for name, us in fill.items():
        print(f"zero_ kernel {us:9.2f}  {name}")


if __name__ == "__main__":
    main()
