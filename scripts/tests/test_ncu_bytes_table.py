"""Tests of bench/ncu_bytes_table.py (the crossbar-against-DRAM byte table of Nsight
Compute runs): its reading of ncu's --metrics lines with their scaled units, the ratio,
and the kept runs of the twenty-sixth session, where the fp32 split backwards' ratio went
from 2.0 to 1.0.

Run:  python3 -m pytest -q scripts/tests          (or: python3 scripts/tests/test_ncu_bytes_table.py)
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, HERE)
import ncu_bytes_table  # noqa: E402
from plain_runner import run  # noqa: E402

SCRIPT = os.path.join(ROOT, "bench", "ncu_bytes_table.py")
KEPT = os.path.join(ROOT, "bench", "results", "2026-11-30-s26", "r2")

CANNED = """==PROF== Connected to process 1 (python3)
==PROF== Profiling "opk_a": 0%....50%....100% - 3 passes
  opk_a (132, 1, 1)x(512, 1, 1), Context 1, Stream 7, Device 0, CC 9.0
    Section: Command line profiler metrics
    ---------------------------------------------------- ----------- ------------
    Metric Name                                          Metric Unit Metric Value
    ---------------------------------------------------- ----------- ------------
    dram__bytes_read.sum                                       Mbyte       537.03
    gpu__time_duration.sum                                        us       235.14
    l1tex__m_xbar2l1tex_read_bytes.sum                         Gbyte         1.08
    lts__t_sector_hit_rate.pct                                     %        63.15
    lts__t_sectors_srcunit_tex_op_read.sum                    sector   33,598,162
    ---------------------------------------------------- ----------- ------------
  opk_b (264, 1, 1)x(256, 1, 1), Context 1, Stream 7, Device 0, CC 9.0
    dram__bytes_read.sum                                       Gbyte         2.10
    gpu__time_duration.sum                                        ms         1.20
    l1tex__m_xbar2l1tex_read_bytes.sum                         Gbyte         2.18
  opk_c (1, 1, 1)x(32, 1, 1), Context 1, Stream 7, Device 0, CC 9.0
    gpu__time_duration.sum                                        us         2.82
"""


def test_parse_reads_each_launch_with_its_units_scaled():
    launches = ncu_bytes_table.parse(CANNED)
    assert [k for k, _ in launches] == ["opk_a", "opk_b", "opk_c"]
    a = launches[0][1]
    assert a["dram__bytes_read.sum"] == 537.03e6
    assert a["l1tex__m_xbar2l1tex_read_bytes.sum"] == 1.08e9
    assert a["gpu__time_duration.sum"] == 235.14
    assert a["lts__t_sectors_srcunit_tex_op_read.sum"] == 33598162
    assert launches[1][1]["gpu__time_duration.sum"] == 1200.0  # ms in microseconds
    assert launches[2][1] == {"gpu__time_duration.sum": 2.82}


def test_lines_give_the_ratio_and_a_dash_without_dram_bytes():
    out = ncu_bytes_table.lines(ncu_bytes_table.parse(CANNED))
    assert out[0].split() == ["kernel", "xbar", "MB", "DRAM", "rd", "MB", "ratio", "L2", "hit", "us"]
    a = out[1].split()
    assert a[0] == "opk_a" and a[1] == "1080.0" and a[2] == "537.0" and a[3] == "2.01" and a[4] == "63.1%"
    assert out[2].split()[3] == "1.04" and out[2].split()[4] == "-"  # no hit rate measured
    assert out[3].split() == ["opk_c", "-", "-", "-", "-", "2.82"]


def test_the_kept_runs_show_the_split_backwards_doubled_and_then_not():
    base = subprocess.run([sys.executable, SCRIPT, os.path.join(KEPT, "ncu-base-f32.txt")],
                          capture_output=True, text=True, check=True).stdout.splitlines()
    through_l1 = subprocess.run([sys.executable, SCRIPT, os.path.join(KEPT, "ncu-vca-f32.txt")],
                                capture_output=True, text=True, check=True).stdout.splitlines()
    ratio = {l.split()[0]: float(l.split()[3]) for l in base[1:]}
    assert ratio["opk_rms_bwd_stash_f32_k2_exact"] > 1.9 and ratio["opk_rms_bwd_stash_f32_s1_exact"] < 1.1
    ratio = {l.split()[0]: float(l.split()[3]) for l in through_l1[1:]}
    assert ratio["opk_rms_bwd_stash_f32_k2_exact"] < 1.1


def test_without_arguments_it_prints_its_usage_and_fails():
    proc = subprocess.run([sys.executable, SCRIPT], capture_output=True, text=True)
    assert proc.returncode == 2 and "ncu_bytes_table.py" in proc.stderr


if __name__ == "__main__":
    sys.exit(run(dict(globals())))
