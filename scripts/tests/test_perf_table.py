"""Tests of bench/perf_table.py's --summary mode (the worst shape of each op and dtype, over
runs merged so that a later run's rows replace an earlier one's): rows built here in
bench/gpu_compare.py's JSON format, and the real runs under bench/results it is used on.

Run:  python3 -m pytest -q scripts/tests          (or: python3 scripts/tests/test_perf_table.py)
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, HERE)
import perf_table  # noqa: E402
from plain_runner import run  # noqa: E402

BW = 4000.0


def row(op, shape, opkit, compile_ms=None, liger=None, frac=None, dtype="bf16"):
    return {"op": op, "shape": shape, "dtype": dtype, "opkit_ms": opkit, "eager_ms": 2 * opkit,
            "compile_ms": compile_ms, "liger_ms": liger, "opkit_GBps": (frac or 0.5) * BW,
            "frac_copy_bw": frac}


def doc(rows, gpu="NVIDIA H200"):
    return {"info": {"gpu": gpu, "driver_copy_GBps": BW}, "rows": rows}


def by_name(summary_rows):
    return {(r[0], r[1]): r[2:] for r in summary_rows}


def test_the_worst_shape_is_reported_for_each_measure():
    d = doc([row("rms_norm_forward", "A", 1.0, compile_ms=1.2, liger=0.9, frac=0.95),
             row("rms_norm_forward", "B", 1.0, compile_ms=0.8, liger=1.1, frac=0.85)])
    frac, comp, lig = by_name(perf_table.summary_rows(d))[("rms_norm_forward", "bf16")]
    assert frac == (0.85, "B") and lig == (0.9, "A"), (frac, lig)
    assert abs(comp[0] - 0.8) < 1e-12 and comp[1] == "B", comp


def test_a_later_run_replaces_the_rows_it_has():
    first = doc([row("layer_norm_backward", "A", 1.0, liger=0.5, frac=0.70),
                 row("layer_norm_backward", "B", 1.0, liger=1.5, frac=0.90)])
    later = doc([row("layer_norm_backward", "A", 0.5, liger=0.5, frac=0.95)])
    m = perf_table.merged([first, later])
    assert len(m["rows"]) == 2, m
    frac, _, lig = by_name(perf_table.summary_rows(m))[("layer_norm_backward", "bf16")]
    assert frac == (0.90, "B"), frac  # A's 0.70 was replaced by 0.95
    assert lig == (1.0, "A"), lig


def test_runs_of_different_gpus_are_refused():
    try:
        perf_table.merged([doc([]), doc([], gpu="NVIDIA H100")])
    except ValueError as e:
        assert "different GPUs" in str(e)
    else:
        raise AssertionError("merged two GPUs' runs")


def test_training_steps_sum_forward_and_backward():
    d = doc([row("softmax_forward", "A", 1.0, compile_ms=1.0, liger=1.0, frac=0.9),
             row("softmax_backward", "A", 2.0, compile_ms=1.0, liger=4.0, frac=0.9)])
    _, comp, lig = by_name(perf_table.summary_rows(d))[("softmax (fwd+bwd)", "bf16")]
    assert abs(comp[0] - 2.0 / 3.0) < 1e-9 and abs(lig[0] - 5.0 / 3.0) < 1e-9, (comp, lig)
    text = perf_table.summary(d)
    assert "| softmax (fwd+bwd) | bf16 | 0.90 at A | **0.67x** (target 1) at A | 1.67x at A |" in text, text


def test_a_merged_training_step_is_a_fraction_of_its_own_runs_copy_bandwidth():
    first = doc([row("softmax_forward", "A", 1.0, frac=0.5), row("softmax_backward", "A", 1.0, frac=0.5)])
    later = doc([row("softmax_forward", "A", 1.0, frac=0.9), row("softmax_backward", "A", 1.0, frac=0.9)])
    later["info"]["driver_copy_GBps"] = 2 * BW  # the later run measured twice the copy rate
    # its rows moved 0.9 * BW GB/s, which is 0.45 of ITS copy bandwidth (0.9 of the first's)
    frac, _, _ = by_name(perf_table.summary_rows(perf_table.merged([first, later])))[("softmax (fwd+bwd)", "bf16")]
    assert abs(frac[0] - 0.45) < 1e-9, frac


def test_the_sixteenth_session_s_runs():
    paths = [os.path.join(ROOT, "bench", "results", "2026-11-29-s15", "r3", "compare-bf16.json"),
             os.path.join(ROOT, "bench", "results", "2026-11-29-s16", "r5", "compare-norms-bf16.json")]
    docs = [json.load(open(p)) for p in paths]
    rows = by_name(perf_table.summary_rows(perf_table.merged(docs)))
    # layer_norm's bf16 backward comes from the later run (0.131 ms at 4096x16384 there)
    frac, _, lig = rows[("layer_norm_backward", "bf16")]
    assert frac[1] == "4096x16384" and 0.70 < frac[0] < 0.75, frac
    assert lig[0] > 1.0, lig
    # cross-entropy is only in the first run, and meets its 0.80 target
    assert rows[("cross_entropy_forward(+dlogits)", "bf16")][0][0] >= 0.80
    assert ("matmul", "bf16") not in rows


def with_rounds(r, opkit, compile_ms=None, liger=None):
    """r with each implementation's time of each round; its medians taken from them."""
    import statistics
    r = dict(r, opkit_rounds_ms=opkit, opkit_ms=statistics.median(opkit))
    if compile_ms:
        r.update(compile_rounds_ms=compile_ms, compile_ms=statistics.median(compile_ms))
    if liger:
        r.update(liger_rounds_ms=liger, liger_ms=statistics.median(liger))
    return r


def test_rounds_show_their_range_and_the_misses_are_counted_by_it():
    a = with_rounds(row("rope_forward", "A", 1.0, frac=0.95), [1.0, 1.0, 1.0],
                    compile_ms=[0.97, 0.98, 0.99])  # behind compile in every round
    b = with_rounds(row("softmax_forward", "B", 1.0, frac=0.95), [1.0, 1.0, 1.0],
                    liger=[0.98, 0.99, 1.02])  # behind Liger by the median, ahead in one round
    text = perf_table.summary(doc([a, b]))
    assert "| rope_forward | bf16 | 0.95 at A, rounds 0.950-0.950 | **0.98x** (target 1) at A, rounds 0.970-0.990 |" \
        in text, text
    assert "**0.99x** (target 1) at B, rounds 0.980-1.020 |" in text, text
    assert "1 short of the target in every round, 1 reaching it in at least one round" in text, text


def test_a_training_step_s_rounds_are_summed_round_by_round():
    f = with_rounds(row("softmax_forward", "A", 1.0, frac=0.9), [1.0, 2.0], liger=[1.0, 1.0])
    b = with_rounds(row("softmax_backward", "A", 1.0, frac=0.9), [1.0, 2.0], liger=[3.0, 1.0])
    rng = perf_table.summary_ranges(doc([f, b]))[("softmax (fwd+bwd)", "bf16", "A")]
    assert rng[1] is None, rng  # no compile rounds
    lo, hi = rng[2]
    assert abs(lo - 0.5) < 1e-12 and abs(hi - 2.0) < 1e-12, rng  # 2/4 and 4/2


def test_a_copy_bandwidth_miss_says_what_a_same_size_copy_reached():
    # rms_norm's backward misses the 0.90 target with 0.80 at A; a copy of its bytes took 0.9
    # of its time
    bwd = dict(row("rms_norm_backward", "A", 1.0, frac=0.80), copy_ms=0.9)
    fwd = dict(row("rms_norm_forward", "A", 1.0, frac=0.95), copy_ms=0.5)
    text = perf_table.summary(doc([fwd, bwd]))
    assert "| rms_norm_backward | bf16 | **0.80** (target 0.9) at A; 0.90 of a same-size copy |" in text, text
    assert "| rms_norm_forward | bf16 | 0.95 at A |" in text, text  # met: no note
    # the training step's copy is its parts' copies summed: 1.4 / 2.0
    fracs = perf_table.same_size_copy_fractions(doc([fwd, bwd]))
    assert abs(fracs[("rms_norm (fwd+bwd)", "bf16", "A")] - 0.7) < 1e-12, fracs
    assert "same-size" not in perf_table.summary(doc([row("rms_norm_backward", "A", 1.0, frac=0.80)]))
    # the training step misses too (its fraction of copy is its parts' bytes over their
    # summed time): its line carries the step's own same-size fraction
    step_line = next(l for l in text.splitlines() if l.startswith("| rms_norm (fwd+bwd) |"))
    assert "0.70 of a same-size copy" in step_line, step_line
    # a step with a part that timed no copy has no same-size fraction
    no_copy = row("rms_norm_forward", "A", 1.0, frac=0.95)
    assert ("rms_norm (fwd+bwd)", "bf16", "A") not in perf_table.same_size_copy_fractions(doc([no_copy, bwd]))
    # matmul is not memory-bound: never a same-size fraction, even with a copy timed
    mm = dict(row("matmul", "A", 1.0, frac=0.1), copy_ms=0.5)
    assert ("matmul", "bf16", "A") not in perf_table.same_size_copy_fractions(doc([mm]))


def test_a_run_without_rounds_prints_no_ranges():
    text = perf_table.summary(doc([row("rope_forward", "A", 1.0, compile_ms=0.9, frac=0.95)]))
    assert "rounds" not in text, text


def test_one_dtype_of_merged_runs():
    d = doc([row("rope_forward", "A", 1.0, frac=0.95), row("rope_forward", "A", 2.0, frac=0.5, dtype="f32")])
    text = perf_table.summary(perf_table.only_dtype(d, "f32"))
    assert "| rope_forward | f32 |" in text and "| rope_forward | bf16 |" not in text, text
    assert perf_table.only_dtype(d, None) is d


def test_runs_that_compiled_later_shapes_dynamically_are_flagged():
    old = doc([row("rope_forward", "A", 1.0, compile_ms=0.9, frac=0.95)])  # no info["compile"]
    new = doc([row("rope_forward", "A", 1.0, compile_ms=0.9, frac=0.95)])
    new["info"]["compile"] = "static: torch._dynamo.reset() before each case family"
    assert "NOTE: 1 of these runs" in perf_table.summary(old)
    assert "NOTE" not in perf_table.summary(new)
    assert "NOTE: 1 of these runs" in perf_table.summary(perf_table.merged([old, new]))
    assert "NOTE" not in perf_table.summary(perf_table.merged([new, new]))
    no_compile = doc([row("rope_forward", "A", 1.0, frac=0.95)])  # compile not run: nothing to flag
    assert "NOTE" not in perf_table.summary(no_compile)


def test_the_thirty_ninth_session_s_standing_runs_are_static():
    for dt in ("bf16", "f32"):
        path = os.path.join(ROOT, "bench", "results", "2026-12-01-s39", "r4", f"rounds-{dt}.json")
        d = json.load(open(path))
        assert not perf_table.dynamic_compiles(d), path
        text = perf_table.summary(perf_table.merged([d]))
        assert "NOTE" not in text and "| rms_norm_forward | " + dt + " |" in text, text


if __name__ == "__main__":
    sys.exit(run(dict(globals())))
