#!/usr/bin/env python3
"""One line a kernel from Nsight Compute's details page: where its time goes.

    ncu --set full -k regex:opk_ --export rep python3 bench/ncu_ops.py ...
    ncu --import rep.ncu-rep --page details --print-details all > details.txt
    python3 bench/ncu_stall_table.py details.txt[.gz] [more...]

Per kernel (in the order profiled): duration, DRAM throughput, issue slots busy, warp
cycles per issued instruction, the three largest stall reasons (cycles of that wait per
issued instruction), warp instructions executed, achieved active warps an SM, registers a
thread and dynamic shared memory a block. A kernel profiled twice gets "#2" after its name.
"""
import gzip
import re
import sys

FIELDS = {
    "Duration": "us",
    "DRAM Throughput": "dram%",
    "Issue Slots Busy": "issue%",
    "Warp Cycles Per Issued Instruction": "cpi",
    "Executed Instructions": "instr",
    "Achieved Active Warps Per SM": "warps",
    "Registers Per Thread": "regs",
    "Dynamic Shared Memory Per Block": "dsmemKB",
}
KERNEL_RE = re.compile(r"^  (\w+) \(\d+, \d+, \d+\)x\(\d+, \d+, \d+\)")


def kernels(lines):
    """(name, {field: value}, {stall: cycles}) for each kernel section, first value of each."""
    seen = {}
    name, values, stalls = None, {}, {}
    for line in lines:
        m = KERNEL_RE.match(line)
        if m:
            if name:
                yield name, values, stalls
            seen[m.group(1)] = seen.get(m.group(1), 0) + 1
            name = m.group(1) + (f"#{seen[m.group(1)]}" if seen[m.group(1)] > 1 else "")
            values, stalls = {}, {}
            continue
        if not name:
            continue
        text = line.strip()
        value = text.split()[-1] if text else ""
        for field in FIELDS:
            if text.startswith(field + " ") and field not in values:
                values[field] = value
        m = re.match(r"^Stall ([A-Za-z ]+?)\s{2,}\S+\s+([\d.,]+)$", text)
        if m and m.group(1) not in stalls:
            stalls[m.group(1)] = float(m.group(2).replace(",", ""))
    if name:
        yield name, values, stalls


def main(paths):
    header = "kernel | " + " | ".join(FIELDS.values()) + " | largest stalls (cycles per instruction)"
    print(header)
    for path in paths:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt") as f:
            for name, values, stalls in kernels(f):
                top = sorted(stalls.items(), key=lambda kv: -kv[1])[:3]
                cols = [values.get(field, "-") for field in FIELDS]
                print(f"{name} | " + " | ".join(cols) + " | " + ", ".join(f"{k} {v:g}" for k, v in top))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    main(sys.argv[1:])
