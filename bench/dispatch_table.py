#!/usr/bin/env python3
"""The dispatch overhead table of docs/PERFORMANCE.md ("Dispatch overhead") from
bench_dispatch_overhead's outputs, so that its numbers come from a command instead of by
hand.

    python3 bench/dispatch_table.py HEAD=r1/dispatch-gnu-1.txt,r1/dispatch-gnu-2.txt \\
        gnu2=r1/dispatch-gnu2-1.txt,r1/dispatch-gnu2-2.txt

Each LABEL=FILES is one build, each file one round (Google Benchmark's console output with
--benchmark_repetitions and --benchmark_report_aggregates_only: the `_median` lines). Per
op it prints every round's direct / `_api` / `_api_dlopen` times and the overhead through
dlopen (what an application pays over calling the kernel): the fastest round of the
`_api_dlopen` column minus the fastest of the direct column. On a shared host a round's
time only ever grows from noise, so the fastest of each column is the closest to the
code's own cost; the per-round overheads inherit both columns' noise (docs/PERFORMANCE.md
shows rounds where it exceeds the overhead itself).
"""
import re
import sys

OPS = ("axpy", "softmax", "rms_norm")
COLUMNS = ("direct", "api", "api_dlopen")
# "BM_softmax_api_dlopen/16_median   131 ns   131 ns   5"
MEDIAN_RE = re.compile(r"^BM_([a-z_]+?)_(direct|api|api_dlopen)/\d+_median\s+([0-9.]+) (ns|us)\b")
TARGET_NS = 30.0  # issue 14 item 5


def read_round(text):
    """{(op, column): ns} of one run's median lines."""
    out = {}
    for line in text.splitlines():
        m = MEDIAN_RE.match(line.strip())
        if m:
            value = float(m.group(3)) * (1000.0 if m.group(4) == "us" else 1.0)
            out[(m.group(1), m.group(2))] = value
    return out


def overhead(rounds, op):
    """The fastest _api_dlopen round minus the fastest direct round, or None."""
    direct = [r[(op, "direct")] for r in rounds if (op, "direct") in r]
    dlopen = [r[(op, "api_dlopen")] for r in rounds if (op, "api_dlopen") in r]
    return min(dlopen) - min(direct) if direct and dlopen else None


def fmt(v):
    return "-" if v is None else f"{v:.3g}"


def table(builds):
    """builds: [(label, [round dict, ...])] -> markdown lines."""
    labels = [label for label, _ in builds]
    head = ["op"] + [f"{label}: direct / `_api` / `_api_dlopen`, each round (ns)" for label in labels]
    head.append("overhead through dlopen, the rounds' fastest: " + "; ".join(labels))
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for op in OPS:
        cells = [op]
        for _, rounds in builds:
            cells.append("; ".join(" / ".join(fmt(r.get((op, c))) for c in COLUMNS) for r in rounds))
        values = [overhead(rounds, op) for _, rounds in builds]
        text = "; ".join(fmt(v) for v in values)
        if any(v is not None and v >= TARGET_NS for v in values):
            text = f"**{text}** (target < {TARGET_NS:g})"
        cells.append(text)
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def main(argv):
    if len(argv) < 2 or any("=" not in a for a in argv[1:]):
        print(__doc__, file=sys.stderr)
        return 2
    builds = []
    for arg in argv[1:]:
        label, files = arg.split("=", 1)
        rounds = []
        for path in files.split(","):
            with open(path, encoding="utf-8", errors="replace") as f:
                r = read_round(f.read())
            if not r:
                print(f"dispatch_table: no median lines in {path}", file=sys.stderr)
                return 1
            rounds.append(r)
        builds.append((label, rounds))
    print("\n".join(table(builds)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
