#!/usr/bin/env python3
"""The byte counters of Nsight Compute runs (`ncu --metrics` with bench/device_call.sh's
DC_NCU_BYTES, e.g. through its dc_ncu_bytes) as one line a kernel launch: the bytes the
crossbar carried from L2 to the SMs, the bytes read from DRAM, their ratio, L2's hit rate
and the kernel's duration. A kernel that reads its data once has a ratio near 1; the fp32
norm backwards split over clusters had 2.0 before their stash copies went through L1
(docs/PERFORMANCE.md, "The twenty-sixth session").

    python3 bench/ncu_bytes_table.py r5/ncu-survey-bf16.txt [more files...]
"""
import re
import sys

# ncu's units, as it scales them
_SCALE = {"byte": 1.0, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "Tbyte": 1e12,
          "ns": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3, "msecond": 1e3, "s": 1e6, "second": 1e6,
          "nsecond": 1e-3, "%": 1.0, "sector": 1.0}
_KERNEL = re.compile(r"^\s\s(\S+)\s+\(\d+, \d+, \d+\)x\(\d+, \d+, \d+\)")
_METRIC = re.compile(r"^\s+([a-z0-9_.]+)\s+(\S+)\s+([\d,.]+)\s*$")


def parse(text):
    """[(kernel, {metric: value in bytes, us, % or sectors})], in launch order."""
    launches = []
    for line in text.splitlines():
        m = _KERNEL.match(line)
        if m:
            launches.append((m.group(1), {}))
            continue
        m = _METRIC.match(line)
        if m and launches:
            name, unit, value = m.groups()
            if unit not in _SCALE:
                continue
            launches[-1][1][name] = float(value.replace(",", "")) * _SCALE[unit]
    return launches


def _cell(value, width, spec, suffix=""):
    """value formatted by spec, or '-' where the run did not measure it, right-aligned."""
    return f"{'-' if value is None else format(value, spec) + suffix:>{width}s}"


def lines(launches):
    out = [f"{'kernel':48s} {'xbar MB':>9s} {'DRAM rd MB':>10s} {'ratio':>6s} {'L2 hit':>7s} {'us':>8s}"]
    for kernel, m in launches:
        xbar, dram = m.get("l1tex__m_xbar2l1tex_read_bytes.sum"), m.get("dram__bytes_read.sum")
        ratio = xbar / dram if xbar is not None and dram else None
        out.append(" ".join([f"{kernel[:48]:48s}", _cell(None if xbar is None else xbar / 1e6, 9, ".1f"),
                             _cell(None if dram is None else dram / 1e6, 10, ".1f"), _cell(ratio, 6, ".2f"),
                             _cell(m.get("lts__t_sector_hit_rate.pct"), 7, ".1f", "%"),
                             _cell(m.get("gpu__time_duration.sum"), 8, ".2f")]))
    return out


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    for path in argv[1:]:
        with open(path) as f:
            launches = parse(f.read())
        if len(argv) > 2:
            print(f"# {path}")
        print("\n".join(lines(launches)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
