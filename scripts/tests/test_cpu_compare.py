"""Tests of bench/cpu_compare.py's timing logic (compare, med) with a scripted clock: the
rounds alternate the two libraries in one process, each round's ratio compares the
neighbours in time, and the row keeps medians. No torch needed (the cases are not built).

Run:  python3 -m pytest -q scripts/tests          (or: python3 scripts/tests/test_cpu_compare.py)
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, HERE)
import cpu_compare  # noqa: E402
from plain_runner import run  # noqa: E402


class Host:
    """A clock that each timed call advances by its library's cost at that moment; the
    host's speed (a factor on every cost) drifts by round, as a shared machine's does."""

    def __init__(self, costs_ms, drift, calls_a_round=7):  # 2 warm-up + 5 timed (reps=5)
        self.now, self.costs, self.drift, self.calls, self.sleeps = 0.0, costs_ms, drift, [], 0
        self.round, self.calls_a_round = 0, calls_a_round

    def clock(self):
        return self.now

    def sleep(self, s):
        self.sleeps += 1

    def fn(self, name):
        def call():
            self.calls.append(name)
            self.now += self.costs[name] * self.drift[min(self.round, len(self.drift) - 1)] / 1e3
            if name == "torch" and self.calls.count("torch") % self.calls_a_round == 0:
                self.round += 1  # a round ends with PyTorch's last timed call
        return call


def test_one_round_is_the_plain_ratio():
    h = Host({"opkit": 2.0, "torch": 1.0}, [1.0])
    r = cpu_compare.compare(h.fn("opkit"), h.fn("torch"), reps=5, rounds=1, clock=h.clock, sleep=h.sleep)
    assert abs(r["opkit_ms"] - 2.0) < 1e-9 and abs(r["torch_ms"] - 1.0) < 1e-9
    assert abs(r["ratio"] - 2.0) < 1e-9
    assert "round_ratios" not in r
    # two warm-up calls and five timed ones each, opkit first; one settle sleep each
    assert h.calls == ["opkit"] * 7 + ["torch"] * 7
    assert h.sleeps == 2


def test_rounds_alternate_and_compare_neighbours_in_time():
    # The host runs 1x, 3x, 1x slower by round: the rounds' medians move, their ratios not.
    h = Host({"opkit": 1.2, "torch": 1.0}, [1.0, 3.0, 1.0])
    r = cpu_compare.compare(h.fn("opkit"), h.fn("torch"), reps=5, rounds=3, clock=h.clock, sleep=h.sleep)
    assert h.calls == (["opkit"] * 7 + ["torch"] * 7) * 3
    assert len(r["round_ratios"]) == 3
    assert all(abs(q - 1.2) < 1e-9 for q in r["round_ratios"])
    assert abs(r["ratio"] - 1.2) < 1e-9
    assert abs(r["opkit_ms"] - 1.2) < 1e-9 and abs(r["torch_ms"] - 1.0) < 1e-9  # medians over rounds
    assert h.sleeps == 6


def test_a_drift_between_the_libraries_shows_as_one_round():
    # The host runs 1x, 2x, 4x slower by round, and 4x slower again for round 2's PyTorch
    # half alone: that round's ratio is off, the median of the rounds' ratios is not (the
    # ratio of the two libraries' medians over rounds would be 2 / 4 = 0.5).
    class Spiky(Host):
        def fn(self, name):
            plain = super().fn(name)

            def call():
                before = self.now
                r = self.round
                plain()
                if name == "torch" and r == 1:
                    self.now += 3 * (self.now - before)
            return call

    h = Spiky({"opkit": 1.0, "torch": 1.0}, [1.0, 2.0, 4.0])
    r = cpu_compare.compare(h.fn("opkit"), h.fn("torch"), reps=5, rounds=3, clock=h.clock, sleep=h.sleep)
    assert [round(q, 6) for q in r["round_ratios"]] == [1.0, 0.25, 1.0]
    assert abs(r["ratio"] - 1.0) < 1e-9
    assert abs(r["opkit_ms"] - 2.0) < 1e-9 and abs(r["torch_ms"] - 4.0) < 1e-9


def test_without_pytorch_only_opkit_is_timed():
    h = Host({"opkit": 3.0, "torch": 1.0}, [1.0])
    r = cpu_compare.compare(h.fn("opkit"), None, reps=3, rounds=2, clock=h.clock, sleep=h.sleep)
    assert r["torch_ms"] is None and r["ratio"] is None and "round_ratios" not in r
    assert abs(r["opkit_ms"] - 3.0) < 1e-9
    assert h.calls == ["opkit"] * 10


def test_a_minimum_round_time_adds_calls_past_reps():
    # 2 ms a call: five calls make 10 ms, so a 20 ms round takes ten timed calls.
    h = Host({"opkit": 2.0}, [1.0])
    assert abs(cpu_compare.med(h.fn("opkit"), 5, h.clock, h.sleep, min_ms=20.0) - 2.0) < 1e-9
    assert h.calls == ["opkit"] * (2 + 10)
    # a minimum the reps already pass adds nothing
    h = Host({"opkit": 2.0}, [1.0])
    cpu_compare.med(h.fn("opkit"), 5, h.clock, h.sleep, min_ms=5.0)
    assert h.calls == ["opkit"] * (2 + 5)


def test_the_minimum_round_time_is_capped():
    h = Host({"opkit": 1.0}, [1.0])
    saved = cpu_compare.MAX_REPS
    cpu_compare.MAX_REPS = 8
    try:
        cpu_compare.med(h.fn("opkit"), 5, h.clock, h.sleep, min_ms=1000.0)
    finally:
        cpu_compare.MAX_REPS = saved
    assert h.calls == ["opkit"] * (2 + 8)


def test_a_long_round_rides_out_a_stall():
    # A 0.1 ms op whose first three timed calls of the round stall 100x (a shared host's
    # vCPUs taken away): five calls keep the stall as their median, a 50 ms round does not.
    class Stalling(Host):
        def fn(self, name):
            plain = super().fn(name)

            def call():
                before = self.now
                plain()
                if 3 <= len(self.calls) <= 5:  # after the two warm-up calls
                    self.now += 99 * (self.now - before)
            return call

    short = Stalling({"opkit": 0.1}, [1.0])
    assert abs(cpu_compare.med(short.fn("opkit"), 5, short.clock, short.sleep) - 10.0) < 1e-6
    long = Stalling({"opkit": 0.1}, [1.0])
    assert abs(cpu_compare.med(long.fn("opkit"), 5, long.clock, long.sleep, min_ms=50.0) - 0.1) < 1e-9
    assert len(long.calls) > 100


def test_compare_takes_the_minimum_round_time_from_the_option():
    h = Host({"opkit": 2.0, "torch": 1.0}, [1.0], calls_a_round=2 + 20)
    saved = cpu_compare.MIN_ROUND_MS
    cpu_compare.MIN_ROUND_MS = 20.0
    try:
        r = cpu_compare.compare(h.fn("opkit"), h.fn("torch"), reps=5, rounds=1, clock=h.clock, sleep=h.sleep)
    finally:
        cpu_compare.MIN_ROUND_MS = saved
    # opkit: 10 calls of 2 ms; PyTorch: 20 of 1 ms
    assert h.calls == ["opkit"] * 12 + ["torch"] * 22
    assert abs(r["ratio"] - 2.0) < 1e-9


def run_doc(threads, rows):
    return {"cpu": "x", "cores": 16, "runs": [{"torch": "t", "opkit": "o", "rows": [
        dict(r, threads=threads) for r in rows]}]}


def test_the_table_merges_files_and_bolds_misses():
    a = run_doc(16, [{"op": "softmax_forward", "dtype": "bf16", "opkit_ms": 1.3, "torch_ms": 1.0, "ratio": 1.3,
                      "round_ratios": [1.2, 1.3, 1.4]},
                     {"op": "softmax_forward", "dtype": "f32", "opkit_ms": 1.0, "torch_ms": 1.0, "ratio": 1.0}])
    b = run_doc(1, [{"op": "softmax_forward", "dtype": "f32", "opkit_ms": 0.5, "torch_ms": 1.0, "ratio": 0.5},
                    {"op": "matmul 1024^3", "dtype": "f32", "error": "RuntimeError: x"}])
    lines = cpu_compare.table([a, b])
    # columns: one thread before sixteen, f32 before bf16; absent cells a dash
    assert lines[0] == "| op | f32, 1 thread | f32, 16 threads | bf16, 16 threads |", lines[0]
    assert lines[2] == "| softmax_forward | 0.50 | 1.00 | **1.30** (1.20-1.40) |", lines[2]
    assert lines[3] == "| matmul 1024^3 | error: RuntimeError: x | – | – |", lines[3]
    # an error's text stays one cell
    d = run_doc(1, [{"op": "x", "dtype": "f32", "error": "a | b\nc"}])
    assert cpu_compare.table([d])[2] == "| x | error: a \\| b c |", cpu_compare.table([d])[2]
    # a later file's row replaces an earlier one's
    c = run_doc(16, [{"op": "softmax_forward", "dtype": "bf16", "opkit_ms": 1.0, "torch_ms": 1.0, "ratio": 1.1}])
    assert cpu_compare.table([a, b, c])[2].endswith("| 1.10 |")


def test_the_table_of_a_real_run():
    d = os.path.join(ROOT, "bench", "results", "2026-11-30-s21", "r4")
    docs = []
    for name in sorted(os.listdir(d)):
        if name.startswith("cc") and name.endswith(".json"):
            with open(os.path.join(d, name)) as f:
                docs.append(json.load(f))
    lines = cpu_compare.table(docs)
    assert lines[0] == "| op | f32, 1 thread | bf16, 1 thread | f32, 16 threads | bf16, 16 threads |", lines[0]
    assert len(lines) == 2 + 17, len(lines)  # 8 ops x forward/backward, and matmul
    matmul = [ln for ln in lines if ln.startswith("| matmul")][0]
    assert matmul.count("**") == 4 and matmul.endswith("| – |"), matmul  # missed at 1 and 16; no bf16 case


if __name__ == "__main__":
    sys.exit(run(dict(globals())))
