#!/usr/bin/env python3
"""A/B of two builds from bench/gpu_compare.py runs that alternated them.

    python3 bench/ab_table.py DIR A B [--md]

reads DIR/A-1.json, DIR/B-1.json, DIR/A-2.json, DIR/B-2.json, ... (as many rounds as there
are, each build's files numbered from 1; the device-call scripts in bench/results/*/
write them as ab-old-N / ab-gpu-N) and prints, per op, shape and dtype, each build's opkit
times round by round and the ratio of B's summed times to A's (below 1: B is faster).
With --md, a markdown table for docs/PERFORMANCE.md. Only the opkit column is read:
an A/B times one implementation in two builds.
"""
import json
import os
import sys


def rounds(directory, name):
    out, i = [], 1
    while os.path.exists(os.path.join(directory, f"{name}-{i}.json")):
        with open(os.path.join(directory, f"{name}-{i}.json")) as f:
            out.append({(r["op"], r["shape"], r["dtype"]): r["opkit_ms"] for r in json.load(f)["rows"]})
        i += 1
    return out


def main():
    args = [a for a in sys.argv[1:] if a != "--md"]
    if len(args) != 3:
        sys.exit(__doc__)
    directory, a, b = args
    ra, rb = rounds(directory, a), rounds(directory, b)
    if not ra or len(ra) != len(rb):
        sys.exit(f"{directory}: {len(ra)} round(s) of {a}, {len(rb)} of {b}: need the same number, at least one")
    md = "--md" in sys.argv
    if md:
        print(f"| op | shape | dtype | {a} ms | {b} ms | ratio |\n|---|---|---|---|---|---|")
    for key in ra[0]:
        ta = [r.get(key) for r in ra]
        tb = [r.get(key) for r in rb]
        if None in ta or None in tb:
            continue  # a row one build did not time
        ratio = sum(tb) / sum(ta)
        fa, fb = " / ".join(f"{t:.4f}" for t in ta), " / ".join(f"{t:.4f}" for t in tb)
        if md:
            print(f"| {key[0]} | {key[1]} | {key[2]} | {fa} | {fb} | {ratio:.3f} |")
        else:
            print(f"{key[0]:32s} {key[1]:22s} {key[2]:5s} {a} {fa}  {b} {fb}  {ratio:.3f}")


if __name__ == "__main__":
    main()
