"""Tests of bench/ncu_stall_table.py (one line a kernel out of Nsight Compute's details
page): its reading of the metric lines (the first value of each, as the page repeats
some), the stall reasons ranked, a kernel profiled twice, and the kept run of the
thirty-first session, where the norm stash backwards waited on shared memory and softmax's
wide backward on global loads.

Run:  python3 -m pytest -q scripts/tests          (or: python3 scripts/tests/test_ncu_stall_table.py)
"""
import io
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, HERE)
import ncu_stall_table  # noqa: E402
from plain_runner import run  # noqa: E402

SCRIPT = os.path.join(ROOT, "bench", "ncu_stall_table.py")
KEPT = os.path.join(ROOT, "bench", "results", "2026-12-01-s31", "r2", "ncu-base-details.txt.gz")

CANNED = """==PROF== Disconnected from process 1
  opk_a (132, 1, 1)x(512, 1, 1), Context 1, Stream 7, Device 0, CC 9.0
    Section: GPU Speed Of Light Throughput
    DRAM Throughput                   %        78.90
    Duration                         us       102.59
    Duration                           us       999.00
    Warp Cycles Per Issued Instruction             cycle         7.86
    Stall Short Scoreboard          inst         2.86
    Stall Long Scoreboard          inst         0.52
    Stall Not Selected          inst         1.05
    Stall Wait          inst         0.71
    Executed Instructions                           inst   49,339,648
    Registers Per Thread             register/thread              96
  opk_b (4096, 1, 1)x(256, 1, 1), Context 1, Stream 7, Device 0, CC 9.0
    Duration                         us        92.61
    Stall Long Scoreboard          inst         8.82
  opk_a (132, 1, 1)x(512, 1, 1), Context 1, Stream 7, Device 0, CC 9.0
    Duration                         us       101.00
"""


def rows(text):
    return list(ncu_stall_table.kernels(io.StringIO(text)))


def test_each_kernel_takes_the_first_value_of_each_metric():
    (name, values, stalls), (name_b, values_b, _), (name_2, values_2, _) = rows(CANNED)
    assert (name, name_b, name_2) == ("opk_a", "opk_b", "opk_a#2")
    assert values["Duration"] == "102.59"  # not the repeated 999.00
    assert values["Executed Instructions"] == "49,339,648"
    assert values["Registers Per Thread"] == "96" and "Issue Slots Busy" not in values
    assert stalls == {"Short Scoreboard": 2.86, "Long Scoreboard": 0.52, "Not Selected": 1.05, "Wait": 0.71}
    assert values_b == {"Duration": "92.61"} and values_2 == {"Duration": "101.00"}


def test_the_line_ranks_the_three_largest_stalls_and_dashes_what_is_missing():
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "details.txt")
        with open(path, "w") as f:
            f.write(CANNED)
        out = subprocess.run([sys.executable, SCRIPT, path], capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()
    assert lines[0].startswith("kernel | us | dram%")
    a = [c.strip() for c in lines[1].split("|")]
    assert a[0] == "opk_a" and a[1] == "102.59" and a[2] == "78.90" and a[3] == "-"
    assert a[-1] == "Short Scoreboard 2.86, Not Selected 1.05, Wait 0.71"
    assert lines[2].split("|")[-1].strip() == "Long Scoreboard 8.82"
    assert lines[3].startswith("opk_a#2 | 101.00")


def test_the_kept_run_shows_where_the_backwards_wait():
    out = subprocess.run([sys.executable, SCRIPT, KEPT], capture_output=True, text=True, check=True).stdout
    by = {l.split("|")[0].strip(): [c.strip() for c in l.split("|")] for l in out.splitlines()[1:]}
    stash = by["opk_rms_bwd_stash_bf16_s2_exact"]
    assert stash[-1].startswith("Short Scoreboard") and float(stash[2]) < 80  # DRAM %
    wide = by["opk_softmax_bwd_wide_bf16"]
    assert wide[-1].startswith("Long Scoreboard") and float(wide[2]) > 85
    assert float(stash[1]) > float(wide[1])  # microseconds, the same bytes


def test_without_arguments_it_prints_its_usage_and_fails():
    proc = subprocess.run([sys.executable, SCRIPT], capture_output=True, text=True)
    assert proc.returncode == 2 and "ncu_stall_table.py" in proc.stderr


if __name__ == "__main__":
    sys.exit(run(dict(globals())))
