#!/usr/bin/env python3
"""Times opkit's row ops (norms, softmax; forward and backward) at one row length and a
list of row counts, to see how a kernel's time follows its rows: a grid of persistent
blocks that each take whole rows finishes with the block that has the most, so the time
moves in steps of one row a block (ceil(rows / blocks)) where the work per row is what
counts, and in proportion to the rows where the bandwidth is.

Run on a GPU machine from the repository root:

    PYTHONPATH=python OPKIT_LIBRARY=$PWD/build-check/lib/libopkit.so.1 python3 bench/row_sweep.py \
        --cols 16384 --rows 3960,4096,4224,4356 --ops rms_norm_backward,layer_norm_backward

Timing as bench/gpu_compare.py (its `timed`: CUDA events, each call behind a spin kernel,
median of --reps). Each line: ms, GB/s of the op's byte model (gpu_compare's), and ms
per row relative to the first row count's; --blocks B adds ceil(rows / B), the rows of the
busiest of B persistent blocks, and the time per such row, so that a flat last column
says the busiest block sets the time.
"""
import argparse
import json
import math
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
import gpu_compare  # noqa: E402  (its timing, its inputs and opkit's import)

opkit = gpu_compare.opkit


def cases(R, N, dt):
    """name -> (bytes moved, call) for the row ops at R x N (the byte model of gpu_compare)."""
    es = torch.tensor([], dtype=dt).element_size()
    x, dy, w, b = (gpu_compare.rnd(R, N, dtype=dt), gpu_compare.rnd(R, N, dtype=dt), gpu_compare.rnd(N, dtype=dt),
                   gpu_compare.rnd(N, dtype=dt))
    y, dx, dw, db = torch.empty_like(x), torch.empty_like(x), torch.empty_like(w), torch.empty_like(b)
    rstd = torch.empty(R, device="cuda", dtype=torch.float32)
    mean = torch.empty_like(rstd)
    opkit.layer_norm_forward(x, w, b, 1e-5, y, mean, rstd)
    ys = torch.softmax(x.float(), -1).to(dt)
    n = R * N * es
    return {
        "rms_norm_forward": (2 * n, lambda: opkit.rms_norm_forward(x, w, 1e-6, 0.0, y, rstd)),
        "rms_norm_backward": (3 * n, lambda: opkit.rms_norm_backward(dy, x, w, rstd, 0.0, dx, dw)),
        "layer_norm_forward": (2 * n, lambda: opkit.layer_norm_forward(x, w, b, 1e-5, y, mean, rstd)),
        "layer_norm_backward": (3 * n, lambda: opkit.layer_norm_backward(dy, x, w, mean, rstd, dx, dw, db)),
        "softmax_forward": (2 * n, lambda: opkit.softmax_forward(x, y)),
        "softmax_backward": (3 * n, lambda: opkit.softmax_backward(dy, ys, dx)),
    }


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cols", type=int, required=True)
    p.add_argument("--rows", required=True, help="comma list of row counts")
    p.add_argument("--ops", default="rms_norm_backward,layer_norm_backward")
    p.add_argument("--dtypes", default="bf16")
    p.add_argument("--blocks", type=int, default=0, help="persistent blocks to model (0: none)")
    p.add_argument("--reps", type=int, default=50)
    p.add_argument("--out", default=None)
    args = p.parse_args()
    rows = [int(r) for r in args.rows.split(",")]
    ops = args.ops.split(",")
    results = []
    for dn in args.dtypes.split(","):
        dt = gpu_compare.DT[dn]
        first = {}
        for R in rows:
            cs = cases(R, args.cols, dt)
            for op in ops:
                nbytes, fn = cs[op]
                ms = gpu_compare.timed(fn, args.reps)
                per_row = ms / R
                first.setdefault(op, per_row)
                r = {"op": op, "dtype": dn, "rows": R, "cols": args.cols, "ms": ms, "GBps": nbytes / ms / 1e6,
                     "per_row_rel": per_row / first[op]}
                line = (f"{op:22s} {dn:5s} {R:6d}x{args.cols:<6d} {ms:8.4f} ms {r['GBps']:8.1f} GB/s "
                        f"per row {r['per_row_rel']:.3f}")
                if args.blocks:
                    busiest = math.ceil(R / args.blocks)
                    r["busiest_rows"] = busiest
                    r["ms_per_busiest_row"] = ms / busiest
                    line += f"  busiest block {busiest:5d} rows, {1000 * ms / busiest:7.3f} us a row"
                print(line, flush=True)
                results.append(r)
            del cs
            torch.cuda.empty_cache()
    if args.out:
        with open(args.out, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
