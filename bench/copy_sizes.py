#!/usr/bin/env python3
"""A plain device copy at the byte counts of gpu_compare.py's cases, timed as gpu_compare
times them (each call behind a spin kernel, median of the reps), as a fraction of the
1 GiB copy that gpu_compare's "of copy" column divides by.

    python3 bench/copy_sizes.py [--reps 50]

The "of copy" targets stay against the 1 GiB copy (issue 14 item 1); this says how much
of a row's gap a copy of the same bytes has too (its launch, the first wave's ramp and
the last wave's tail are a larger part of a shorter run).
"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
from gpu_compare import copy_bandwidth, timed  # noqa: E402

MIB = 1 << 20
# Bytes read + written by each miss row's op (bf16 unless named), the rows of
# docs/PERFORMANCE.md's standing table.
CASES = [
    ("norm/softmax fwd bf16 4096x16384 or 8192x8192 (x in, y out)", 256 * MIB),
    ("norm/softmax fwd bf16 32768x4096", 512 * MIB),
    ("norm bwd bf16 4096x16384 (x, dy in; dx out)", 384 * MIB),
    ("norm bwd f32 4096x16384", 768 * MIB),
    ("rope fwd bf16 4x4096x32x128", 256 * MIB),
    ("embedding fwd bf16 8192 ids x 4096", 128 * MIB),
]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--reps", type=int, default=50)
    args = p.parse_args()
    big = copy_bandwidth(args.reps)
    print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}; 1 GiB copy {big:.0f} GB/s")
    for name, total in CASES:
        n = total // 2 // 4  # floats read (and as many written)
        src = torch.empty(n, dtype=torch.float32, device="cuda").uniform_()
        dst = torch.empty_like(src)
        ms = timed(lambda: dst.copy_(src), args.reps)
        gbps = total / ms / 1e6
        print(f"{name:62s} {total // MIB:5d} MiB {ms:8.4f} ms {gbps:7.0f} GB/s {gbps / big:6.3f} of the 1 GiB copy")
        del src, dst


if __name__ == "__main__":
    main()
