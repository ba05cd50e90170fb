"""Tests of bench/dispatch_table.py (docs/PERFORMANCE.md's dispatch overhead table from
bench_dispatch_overhead's outputs): its reading of Google Benchmark's console lines, the
overhead from each column's fastest round, the target's mark, and the kept runs of the
twenty-third session.

Run:  python3 -m pytest -q scripts/tests          (or: python3 scripts/tests/test_dispatch_table.py)
"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, HERE)
import dispatch_table  # noqa: E402
from plain_runner import run  # noqa: E402

SCRIPT = os.path.join(ROOT, "bench", "dispatch_table.py")
KEPT = os.path.join(ROOT, "bench", "results", "2026-11-30-s23", "r1")


def console(values):
    """Google Benchmark's console output for {(op, column): ns}, with the mean and stddev
    lines it prints beside the medians (which must be ignored)."""
    lines = ["Benchmark                                 Time             CPU   Iterations",
             "-" * 75]
    for (op, col), ns in values.items():
        lines.append(f"BM_{op}_{col}/16_mean   {ns + 7:.1f} ns   {ns + 7:.1f} ns   5")
        lines.append(f"BM_{op}_{col}/16_median {ns:.1f} ns   {ns:.1f} ns   5")
        lines.append(f"BM_{op}_{col}/16_stddev 0.50 ns   0.50 ns   5")
    return "\n".join(lines) + "\n"


def test_medians_are_read_and_the_others_ignored():
    r = dispatch_table.read_round(console({("softmax", "api_dlopen"): 95.4, ("rms_norm", "direct"): 127.0}))
    assert r == {("softmax", "api_dlopen"): 95.4, ("rms_norm", "direct"): 127.0}, r
    assert dispatch_table.read_round("BM_axpy_api/16_median  1.50 us  1.50 us  5\n") == {("axpy", "api"): 1500.0}


def test_the_overhead_is_between_each_columns_fastest_round():
    rounds = [{("axpy", "direct"): 40.0, ("axpy", "api_dlopen"): 50.0},
              {("axpy", "direct"): 30.0, ("axpy", "api_dlopen"): 70.0},
              {("axpy", "direct"): 35.0, ("axpy", "api_dlopen"): 48.0}]
    assert abs(dispatch_table.overhead(rounds, "axpy") - 18.0) < 1e-9  # 48 - 30, not any round's own
    assert dispatch_table.overhead(rounds, "softmax") is None


def test_an_overhead_at_the_target_is_marked():
    under = [{(op, c): v for op in dispatch_table.OPS for c, v in (("direct", 10.0), ("api", 20.0), ("api_dlopen", 39.9))}]
    over = [{(op, c): v for op in dispatch_table.OPS for c, v in (("direct", 10.0), ("api", 20.0), ("api_dlopen", 40.0))}]
    lines = dispatch_table.table([("a", under), ("b", over)])
    assert lines[2].endswith("| **29.9; 30** (target < 30) |"), lines[2]


def test_a_file_without_medians_fails_with_its_name():
    with tempfile.TemporaryDirectory() as tmp:
        empty = os.path.join(tmp, "empty.txt")
        open(empty, "w").close()
        r = subprocess.run([sys.executable, SCRIPT, f"x={empty}"], capture_output=True, text=True)
    assert r.returncode == 1 and "no median lines in" in r.stderr and "empty.txt" in r.stderr, r.stderr


def test_the_twenty_third_sessions_runs():
    files = lambda v: ",".join(os.path.join(KEPT, f"dispatch-{v}-{i}.txt") for i in (1, 2, 3))  # noqa: E731
    r = subprocess.run([sys.executable, SCRIPT, f"HEAD={files('gnu')}", f"gnu2={files('gnu2')}"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    rows = {line.split(" | ")[0].strip("| "): line for line in r.stdout.splitlines()[2:]}
    assert rows["axpy"].endswith("| 13.6; 15.2 |"), rows["axpy"]
    assert rows["softmax"].endswith("| **32.9; 30.1** (target < 30) |"), rows["softmax"]
    assert rows["rms_norm"].endswith("| 20; 14 |"), rows["rms_norm"]


if __name__ == "__main__":
    run(globals())
