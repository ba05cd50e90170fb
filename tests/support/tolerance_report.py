#!/usr/bin/env python3
"""Prints the worst observed error per (op, output, dtype) against the one tolerance table
(core/tolerances.def), from the lines that OPKIT_TOLERANCE_REPORT=FILE collects:

  c++ / python / conformance:<vendor>   op output dtype compared worst_ratio max_err_over_S
                                        max_rel_err needed_atol

written by the C++ tests (tests/support/tolerance_check.cpp), pytest
(python/tests/tolerances.py) and opkit-conformance. Usage:

  rm -f /tmp/tol.txt
  OPKIT_TOLERANCE_REPORT=/tmp/tol.txt ctest --test-dir BUILD -R 'api: |python|conformance'
  python3 tests/support/tolerance_report.py /tmp/tol.txt [--markdown] [--min-ratio 0.25]

worst_ratio is max |got - ref| / allowed: 1 is the tolerance, so a row below
--min-ratio (default 0.25) is a tolerance more than 4x looser than anything observed.
Exit status 1 when a row is above 1 (a failure) or below --min-ratio."""
import argparse
import os
import re
import sys

DEF = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "core", "tolerances.def")
ROW = re.compile(r"^OPKIT_TOLERANCE\(\s*(\w+)\s*,\s*(\w+)\s*,\s*(\w+)\s*,\s*([-+.eE0-9]+)\s*,"
                 r"\s*([-+.eE0-9]+)\s*\)", re.M)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("report")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--min-ratio", type=float, default=0.25)
    args = ap.parse_args()
    table = {(m[0], m[1], m[2]): (float(m[3]), float(m[4])) for m in ROW.findall(open(DEF).read())}
    seen = {}  # key -> {source: [n, ratio, scaled, rel]}
    for line in open(args.report):
        parts = line.split()
        if len(parts) != 9:
            continue
        src, op, out, dt = parts[:4]
        n, ratio, scaled, rel, need = int(parts[4]), *map(float, parts[5:9])
        src = src.split(":")[0]
        row = seen.setdefault((op, out, dt), {}).setdefault(src, [0, 0.0, 0.0, 0.0, 0.0])
        row[0] += n
        for i, v in enumerate((ratio, scaled, rel, need), 1):
            row[i] = max(row[i], v)
    sources = sorted({s for v in seen.values() for s in v})
    bad = 0
    if args.markdown:
        print("| op | output | dtype | rtol | atol | " + " | ".join(
            f"{s}: worst err/tol (max rel err, needed atol)" for s in sources) + " | verdict |")
        print("|---" * (6 + len(sources)) + "|")
    else:
        print(f"{'op':24} {'output':8} {'dtype':5} {'rtol':>8} {'atol':>8}  " +
              "  ".join(f"{s + ' err/tol':>16} {'rel':>9} {'need atol':>9}" for s in sources) + "  verdict")
    for key in sorted(table):
        rtol, atol = table[key]
        obs = seen.get(key, {})
        worst = max((v[1] for v in obs.values()), default=None)
        if worst is None:
            verdict = "not observed"
        elif worst > 1:
            verdict, bad = "FAILS", bad + 1
        elif worst < args.min_ratio and (rtol or atol):
            verdict, bad = f"looser than {1 / args.min_ratio:g}x", bad + 1
        else:
            verdict = "ok"
        cells = []
        for s in sources:
            v = obs.get(s)
            if args.markdown:
                cells.append("-" if v is None else f"{v[1]:.2f} ({v[3]:.2g}, {v[4]:.2g})")
            else:
                cells.append(f"{'-':>16} {'-':>9} {'-':>9}" if v is None else f"{v[1]:16.3f} {v[3]:9.2g} {v[4]:9.2g}")
        if args.markdown:
            print(f"| {key[0]} | {key[1]} | {key[2]} | {rtol:g} | {atol:g} | " + " | ".join(cells) + f" | {verdict} |")
        else:
            print(f"{key[0]:24} {key[1]:8} {key[2]:5} {rtol:8.2g} {atol:8.2g}  " + "  ".join(cells) + f"  {verdict}")
    for key in sorted(set(seen) - set(table)):
        print(f"not in the table: {key}")
        bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
