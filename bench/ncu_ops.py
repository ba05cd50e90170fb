#!/usr/bin/env python3
"""One call of each op that misses its issue-14 target, at gpu_compare.py's shapes, for
Nsight Compute to profile (no timing here: ncu replays each kernel itself).

    ncu --clock-control none -k regex:opk_ --section SpeedOfLight --section Occupancy \\
        --section MemoryWorkloadAnalysis --section WarpStateStats --section LaunchStats \\
        python3 bench/ncu_ops.py [--dtype bf16]

Each op runs once per shape (norms and softmax: `--row-shapes`, 32768x4096 and 4096x16384
by default); module loading happens before the first kernel runs, so
ncu's replays see the kernels alone. `--ops rope,embedding` adds the rope forward/backward
(4x4096x32x128) and the embedding forward (V 128256 x D 4096, 8192 ids); with
`--compile`, torch.compile's version of each of those runs once after opkit's, compiled
before the profiler starts (with `--profile-from-start off` ncu sees only those calls, not the
norms, softmax or cross-entropy cases, which run before the start):

    ncu --profile-from-start off --clock-control none -k 'regex:opk_|triton' --set full \\
        python3 bench/ncu_ops.py --ops rope,embedding --compile
"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))
import opkit  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer_math import rope  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dtype", default="bf16")
    p.add_argument("--ops", default="norms,softmax,ce", help="comma list of norms, softmax, ce, rope, embedding")
    p.add_argument("--compile", action="store_true", help="torch.compile's rope and embedding too")
    p.add_argument("--row-shapes", default="32768x4096,4096x16384",
                   help="comma list of ROWSxCOLS for norms and softmax (e.g. 8192x8192)")
    args = p.parse_args()
    ops = set(args.ops.split(","))
    dt = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}[args.dtype]
    torch.manual_seed(0)

    def rnd(*s):
        return torch.randn(*s, device="cuda").to(dt)

    row_shapes = [tuple(int(v) for v in shape.split("x")) for shape in args.row_shapes.split(",") if shape]
    for R, N in row_shapes if ops & {"norms", "softmax"} else ():
        x, dy, w, b = rnd(R, N), rnd(R, N), rnd(N), rnd(N)
        y, dx, dw, db = torch.empty_like(x), torch.empty_like(x), torch.empty_like(w), torch.empty_like(b)
        rstd = torch.empty(R, device="cuda")
        mean = torch.empty_like(rstd)
        if "norms" in ops:
            opkit.rms_norm_forward(x, w, 1e-6, 0.0, y, rstd)
            opkit.rms_norm_backward(dy, x, w, rstd, 0.0, dx, dw)
            opkit.layer_norm_forward(x, w, b, 1e-5, y, mean, rstd)
            opkit.layer_norm_backward(dy, x, w, mean, rstd, dx, dw, db)
        if "softmax" in ops:
            opkit.softmax_forward(x, y)
            opkit.softmax_backward(dy, y, dx)
        del x, dy, y, dx
    for R, V in ((8192, 32000), (8192, 128256)) if "ce" in ops else ():
        logits = rnd(R, V) * 2
        target = torch.randint(0, V, (R,), device="cuda")
        loss = torch.empty((), device="cuda")
        lse = torch.empty(R, device="cuda")
        dlogits = torch.empty_like(logits)
        opkit.cross_entropy_forward(logits, target, -100, 0.0, 1, loss, lse, dlogits)
        one = torch.ones((), device="cuda")
        opkit.cross_entropy_backward(one, logits, target, lse, -100, 0.0, 1, dlogits)
        del logits, dlogits
    peers = []  # (torch.compile's function, its arguments), run after opkit's calls
    if "rope" in ops:
        B, T, H, D = 4, 4096, 32, 128
        x, dy = rnd(B, T, H, D), rnd(B, T, H, D)
        ang = torch.rand(T, D // 2, device="cuda") * 6.28
        cos, sin = torch.cat([ang.cos()] * 2, -1).to(dt), torch.cat([ang.sin()] * 2, -1).to(dt)
        y, dx = torch.empty_like(x), torch.empty_like(x)

        if args.compile:
            peers.append((torch.compile(rope), (x, cos, sin)))
        opkit_calls = [lambda: opkit.rope_forward(x, cos, sin, y), lambda: opkit.rope_backward(dy, cos, sin, dx)]
    else:
        opkit_calls = []
    if "embedding" in ops:
        w = rnd(128256, 4096)
        ids = torch.randint(0, 128256, (8192,), device="cuda")
        ye = torch.empty(8192, 4096, device="cuda", dtype=dt)
        opkit_calls.append(lambda: opkit.embedding_forward(w, ids, ye))
        if args.compile:
            peers.append((torch.compile(lambda i, t: torch.nn.functional.embedding(i, t)), (ids, w)))
    for fn, a in peers:  # compiled and run once before the profiled region
        fn(*a)
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStart()
    for call in opkit_calls:
        call()
    for fn, a in peers:
        fn(*a)
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStop()
    print("ncu_ops: done")


if __name__ == "__main__":
    main()
