#!/usr/bin/env python3
"""Instruction mix of each kernel in an Nsight Compute source page exported as CSV.

    ncu -i report.ncu-rep --page source --print-source sass --csv > sass.csv
    python3 bench/ncu_sass_mix.py sass.csv [top]

For every kernel: the warp-level instructions it executed, how many distinct SASS
instructions ran at all, and the `top` opcodes (default 25) by executed count with their
share and warp-stall samples. The predicate (@P0) is dropped so that predicated and plain
forms of an opcode count together. Used in docs/PERFORMANCE.md to compare opkit's row
kernels with Liger-Kernel's Triton kernels (the CSV itself is megabytes; the summary is
what bench/results keeps).
"""
import collections
import csv
import re
import sys


def kernels(path):
    """{kernel name: [(sass text, instructions executed, stall samples)]} in file order.
    ncu 2025 prints some kernels' sections twice (opkit's, from a module with many kernels)
    and a kernel launched twice once per launch: the first section of a name is kept."""
    out = collections.OrderedDict()
    name = None
    for row in csv.reader(open(path)):
        if len(row) >= 2 and row[0] == "Kernel Name":
            name = None if row[1] in out else row[1]
            if name:
                out[name] = []
        elif name and len(row) > 5 and row[0].startswith("0x"):
            out[name].append((row[1].strip(), int(row[5] or 0), int(row[2] or 0)))
    return out


def opcode(sass):
    text = re.sub(r"^@!?U?P\w+\s+", "", sass)
    return text.split()[0] if text else "?"


def main():
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 25
    for name, rows in kernels(sys.argv[1]).items():
        total = sum(e for _, e, _ in rows)
        mix, stalls = collections.Counter(), collections.Counter()
        for sass, executed, samples in rows:
            mix[opcode(sass)] += executed
            stalls[opcode(sass)] += samples
        ran = sum(1 for _, e, _ in rows if e)
        print(f"== {name}: {total} warp instructions, {ran} distinct instructions executed, "
              f"{sum(stalls.values())} stall samples")
        for op, n in mix.most_common(top):
            print(f"   {op:26s} {n:11d} {100.0 * n / max(total, 1):5.1f} %  stall samples {stalls[op]}")


if __name__ == "__main__":
    main()
