"""Tests of bench/spin_calls.py: a profile's calls behind the spin kernel split into lead,
span and busy time (kernel_breakdown.py --behind-spin), from scripted kernel lists.

Run:  python3 -m pytest -q scripts/tests          (or: python3 scripts/tests/test_spin_calls.py)
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "bench"))
sys.path.insert(0, HERE)
from spin_calls import busy_ns, calls_behind_spin, is_spin  # noqa: E402
from plain_runner import run  # noqa: E402

SPIN = "void at::cuda::(anonymous namespace)::spin_kernel(long)"


def test_the_spin_kernel_is_told_from_the_ops():
    assert is_spin(SPIN)
    assert not is_spin("opk_rms_fwd_twice_f32_g512x4")
    assert not is_spin("triton_red_fused__fused_rms_norm_0")


def test_one_kernel_a_call():
    ks = [(SPIN, 0, 1_000_000), ("op", 1_001_500, 1_131_500),
          (SPIN, 2_000_000, 3_000_000), ("op", 3_002_500, 3_132_000)]
    calls = calls_behind_spin(ks)
    assert len(calls) == 2
    assert calls[0] == (1.5, 130.0, 130.0)
    assert calls[1] == (2.5, 129.5, 129.5)


def test_two_kernels_a_call_in_any_order_with_a_gap():
    # a row kernel and a column sum with 1 us between them, listed out of order
    ks = [("sum", 1_108_000, 1_111_000), ("rows", 1_002_000, 1_107_000), (SPIN, 0, 1_000_000)]
    (lead, span, busy), = calls_behind_spin(ks)
    assert lead == 2.0
    assert span == 109.0
    assert busy == 108.0


def test_overlapping_kernels_count_once_in_busy():
    # a column sum launched dependent starts (and waits) while the row kernel runs
    ks = [(SPIN, 0, 1_000_000), ("rows", 1_001_000, 1_101_000), ("sum", 1_090_000, 1_104_000),
          ("memset", 1_110_000, 1_111_000)]
    (lead, span, busy), = calls_behind_spin(ks)
    assert lead == 1.0
    assert span == 110.0
    assert busy == 104.0  # 1.001-1.104 ms once, then the memset's 1 us
    assert busy_ns([(0, 10), (2, 5), (10, 12), (20, 21)]) == 13
    assert busy_ns([]) == 0


def test_activities_before_the_first_spin_and_a_bare_spin_are_no_call():
    ks = [("warm-up", 0, 10), (SPIN, 100, 200), (SPIN, 300, 400), ("op", 500, 900)]
    assert calls_behind_spin(ks) == [(0.1, 0.4, 0.4)]
    assert calls_behind_spin([]) == []
    assert calls_behind_spin([(SPIN, 0, 1)]) == []


if __name__ == "__main__":
    run(globals())
