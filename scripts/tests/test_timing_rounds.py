"""Tests of bench/timing_rounds.py (gpu_compare.py --rounds): the rotation of the order,
the medians, a failing implementation, and the per-round ratio range; stand-in timers,
no GPU.

Run:  python3 -m pytest -q scripts/tests          (or: python3 scripts/tests/test_timing_rounds.py)
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "bench"))
sys.path.insert(0, HERE)
from plain_runner import run  # noqa: E402
from timing_rounds import ratio_range, time_in_rounds  # noqa: E402


def scripted(times_of):
    """A timer that returns the next scripted time of the implementation it is given (the
    callables are their names) and records the order of the calls."""
    calls, left = [], {k: list(v) for k, v in times_of.items()}

    def time_one(fn):
        name = fn()
        calls.append(name)
        return left[name].pop(0)

    return time_one, calls


def test_each_round_rotates_the_order_and_the_median_is_the_rounds_middle():
    fns = {i: (lambda i=i: i) for i in ("opkit", "compile", "liger")}
    time_one, calls = scripted({"opkit": [1.0, 5.0, 2.0], "compile": [3.0, 3.0, 9.0], "liger": [4.0, 1.0, 2.0]})
    got = time_in_rounds(fns, 3, time_one)
    assert calls == ["opkit", "compile", "liger", "compile", "liger", "opkit", "liger", "opkit", "compile"], calls
    assert got["opkit"] == {"ms": 2.0, "rounds": [1.0, 5.0, 2.0], "error": None}, got
    assert got["compile"]["ms"] == 3.0 and got["liger"]["ms"] == 2.0, got


def test_one_round_times_each_once_in_the_given_order():
    fns = {i: (lambda i=i: i) for i in ("opkit", "eager")}
    time_one, calls = scripted({"opkit": [0.5], "eager": [0.7]})
    got = time_in_rounds(fns, 1, time_one)
    assert calls == ["opkit", "eager"] and got["eager"]["ms"] == 0.7, (calls, got)


def test_an_implementation_that_fails_has_its_error_and_no_time_and_is_not_retried():
    attempts = []

    def broken():
        attempts.append(1)
        if len(attempts) == 2:  # fails in the second round only
            raise RuntimeError("compile failed: " + "x" * 500)
        return "ok"

    got = time_in_rounds({"opkit": lambda: "o", "compile": broken}, 4,
                         lambda fn: 1.0 if fn() in ("o", "ok") else 0.0)
    assert len(attempts) == 2, attempts  # rounds 3 and 4 did not call it again
    c = got["compile"]
    assert c["ms"] is None and c["rounds"] == [] and c["error"].startswith("compile failed"), c
    assert len(c["error"]) == 200, len(c["error"])
    assert got["opkit"]["ms"] == 1.0 and len(got["opkit"]["rounds"]) == 4, got


def test_fewer_than_one_round_is_refused():
    try:
        time_in_rounds({"opkit": lambda: "o"}, 0, lambda fn: 1.0)
    except ValueError as e:
        assert "at least 1" in str(e)
    else:
        raise AssertionError("0 rounds accepted")


def test_ratio_range_over_rounds_timed_together():
    lo, hi = ratio_range([1.0, 1.1, 0.9], [1.0, 1.0, 1.0])
    assert abs(lo - 0.9) < 1e-12 and abs(hi - 1.1) < 1e-12, (lo, hi)
    assert ratio_range(None, [1.0]) is None
    assert ratio_range([1.0, 2.0], [1.0]) is None  # not timed together
    assert ratio_range([1.0], [0.0]) is None


if __name__ == "__main__":
    sys.exit(run(dict(globals())))
