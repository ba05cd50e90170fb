#!/usr/bin/env python3
"""Turns bench/gpu_compare.py JSON files into the markdown tables of docs/PERFORMANCE.md.

    python3 bench/perf_table.py bench/results/h100-bf16.json bench/results/h100-f32.json

Two tables per file. Per op: times of each implementation, opkit's GB/s and fraction of
the measured copy bandwidth, and opkit's speed ratio against eager, torch.compile and
Liger-Kernel (a ratio > 1 means opkit is faster). Per training step (forward + backward of
one op pair, summed; cross-entropy's "(+dlogits)" forward is already both): the same.
Issue 14's targets are marked: a value that misses is bold with its target — memory-bound
ops >= 0.90 of copy bandwidth (cross-entropy >= 0.80), >= 1.0x torch.compile and >= 1.0x
Liger-Kernel; matmul >= 0.90x torch.matmul. Eager ratios are shown, not targeted.

    python3 bench/perf_table.py --summary [--dtype bf16|f16|f32] RUN.json [LATER-RUN.json ...]

One table instead: per op (and training step) and dtype, the worst of its shapes — the
lowest fraction of copy bandwidth and the lowest ratio against torch.compile and against
Liger-Kernel, each with the shape it came from. A row of a later file (same op, shape and
dtype) replaces the earlier file's, so that a run of the ops a change touched updates the
table of a full run; every file must come from the same GPU. Rows timed in rounds
(gpu_compare.py --rounds) show, beside each worst shape, the range of that value over the
rounds, and a line after the table counts the misses short of their target in every round
and those that reached it in at least one. Where the run timed a copy of each case's own
bytes (gpu_compare.py's "copy" implementation), a miss of the copy-bandwidth target also
says what fraction of that same-size copy's speed opkit reached (the copy of 1 GiB the
target is judged by loses less to the events' fixed cost than a copy of a small case does).
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing_rounds import ratio_range  # noqa: E402


def fmt(v, digits=3):
    return "–" if v is None else f"{v:.{digits}f}"


def mark(value, target, text):
    if value is None:
        return "–"
    if value >= target:
        return text
    if text.rstrip("x") == f"{target:.2f}":  # a miss that rounds to the target shows a third digit
        text = text.replace(f"{target:.2f}", f"{value:.3f}")
    return f"**{text}** (target {target:g})"


def bw_target(op):
    return 0.80 if op.startswith("cross_entropy") else 0.90


def ratio(other_ms, opkit_ms):
    return other_ms / opkit_ms if other_ms and opkit_ms else None


def row_line(op, shape, dtype, t, frac, gbps):
    """t: impl -> ms (None when not run)."""
    o = t.get("opkit")
    ve, vc, vl = ratio(t.get("eager"), o), ratio(t.get("compile"), o), ratio(t.get("liger"), o)
    return (f"| {op} | {shape} | {dtype} | {fmt(o)} | {fmt(t.get('eager'))} | {fmt(t.get('compile'))} | "
            f"{fmt(t.get('liger'))} | {fmt(gbps, 0)} | {mark(frac, bw_target(op), fmt(frac, 2))} | "
            f"{fmt(ve, 2) + 'x' if ve else '–'} | {mark(vc, 1.0, fmt(vc, 2) + 'x')} | "
            f"{mark(vl, 1.0, fmt(vl, 2) + 'x')} |")


HEADER = ["| {what} | shape | dtype | opkit ms | eager ms | compile ms | liger ms | opkit GB/s | of copy | "
          "vs eager | vs compile | vs liger |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|"]
IMPLS = ("opkit", "eager", "compile", "liger", "copy")  # copy: a device copy of the case's bytes


def times(r):
    return {i: r.get(i + "_ms") for i in IMPLS}


def table(doc):
    info = doc["info"]
    out = [f"GPU: {info.get('gpu')}, driver {info.get('driver', '?')}, torch {info.get('torch')}, "
           f"CUDA {info.get('cuda')}, Triton {info.get('triton', '?')}, Liger-Kernel "
           f"{info.get('liger') or 'not run'}; copy bandwidth "
           f"{info.get('driver_copy_GBps', 0):.0f} GB/s (torch copy_ of 1 GiB).", ""]
    out += [h.format(what="op") for h in HEADER]
    for r in doc["rows"]:
        if r["op"] == "matmul":
            tf, etf = r.get("opkit_TFLOPs"), r.get("eager_TFLOPs")
            q = tf / etf if tf and etf else None
            out.append(f"| matmul | {r['shape']} | {r['dtype']} | {fmt(r['opkit_ms'])} | {fmt(r['eager_ms'])} | – | – | "
                       f"{fmt(tf, 0)} TFLOP/s | – | {mark(q, 0.9, fmt(q, 2) + 'x')} | – | – |")
            continue
        out.append(row_line(r["op"], r["shape"], r["dtype"], times(r), r.get("frac_copy_bw"), r.get("opkit_GBps")))
    out += ["", "Training step (forward + backward):", ""] + [h.format(what="op pair") for h in HEADER]
    out += step_lines(doc)
    return "\n".join(out)


def _step_parts(doc):
    """(name, shape, dtype, rows) of each training step: an op pair's forward and backward
    rows (cross-entropy's "(+dlogits)" forward alone)."""
    by_key = {(r["op"], r["shape"], r["dtype"]): r for r in doc["rows"]}
    for (op, shape, dtype), f in by_key.items():
        if op.startswith("cross_entropy_forward(+dlogits)"):
            b, name = None, "cross_entropy (fwd writes dlogits)"
        elif "_forward" in op:
            b = by_key.get((op.replace("_forward", "_backward"), shape, dtype))
            if b is None:
                continue
            name = op.replace("_forward", "")
        else:
            continue
        yield name, shape, dtype, [f] + ([b] if b else [])


def _bytes_moved(parts):
    return sum((p.get("opkit_GBps") or 0) * (p.get("opkit_ms") or 0) * 1e6 for p in parts)


def _copy_bw(parts, run_bw):
    return parts[0].get("copy_GBps_of_its_run", run_bw)  # merged(): the copy bandwidth of the row's own run


def steps(doc):
    """[(name, shape, dtype, times, frac of copy, GB/s)] of each training step: an op pair's
    forward and backward summed (cross-entropy's "(+dlogits)" forward alone)."""
    run_bw = doc["info"].get("driver_copy_GBps")
    out = []
    for name, shape, dtype, parts in _step_parts(doc):
        t = {}
        for i in IMPLS:
            ms = [p.get(i + "_ms") for p in parts]
            t[i] = sum(ms) if all(m is not None for m in ms) else None
        gbps = _bytes_moved(parts) / t["opkit"] / 1e6 if t["opkit"] else None
        bw = _copy_bw(parts, run_bw)
        frac = gbps / bw if gbps and bw else None
        out.append((name, shape, dtype, t, frac, gbps))
    return out


def step_lines(doc):
    return [row_line(*step) for step in steps(doc)]


def merged(docs):
    """One document of the rows of `docs`, a later document's row replacing an earlier
    one's of the same (op, shape, dtype); info of the first, each row keeping its own run's
    copy bandwidth (its training step's fraction is of that). Raises ValueError when the
    documents come from different GPUs."""
    gpus = {d["info"].get("gpu") for d in docs}
    if len(gpus) != 1:
        raise ValueError(f"runs from different GPUs: {sorted(map(str, gpus))}")
    rows = {}
    for d in docs:
        for r in d["rows"]:
            rows[(r["op"], r["shape"], r["dtype"])] = dict(r, copy_GBps_of_its_run=d["info"].get("driver_copy_GBps"))
    info = dict(docs[0]["info"], runs_with_dynamic_compiles=sum(map(dynamic_compiles, docs)))
    return {"info": info, "rows": list(rows.values())}


def dynamic_compiles(doc):
    """Whether a run timed torch.compile before gpu_compare.py compiled each shape statically
    (its info has no "compile"; since the thirty-ninth session it says "static: ..."): there
    every shape after an op's first was Dynamo's recompile with dynamic sizes, so its "vs
    compile" figures at those shapes flatter opkit."""
    return "compile" not in doc["info"] and any(r.get("compile_ms") for r in doc["rows"])


def step_label(name):
    """A training step's name in the summary: "(fwd+bwd)" added, but for cross-entropy's
    forward that writes dlogits, which is the step itself."""
    return name if "dlogits" in name else name + " (fwd+bwd)"


def only_dtype(doc, dtype):
    """doc with the rows of one dtype (all of them for None)."""
    if dtype is None:
        return doc
    return dict(doc, rows=[r for r in doc["rows"] if r["dtype"] == dtype])


def summary_rows(doc):
    """[(name, dtype, (frac, shape), (vs compile, shape), (vs liger, shape))]: per op and
    per training step, the worst value over the shapes (None where no shape has one)."""
    entries = []  # (name, dtype, shape, frac, vs compile, vs liger)
    for r in doc["rows"]:
        if r["op"] == "matmul":
            continue
        t = times(r)
        entries.append((r["op"], r["dtype"], r["shape"], r.get("frac_copy_bw"),
                        ratio(t["compile"], t["opkit"]), ratio(t["liger"], t["opkit"])))
    for name, shape, dtype, t, frac, _ in steps(doc):
        step = step_label(name)
        entries.append((step, dtype, shape, frac, ratio(t["compile"], t["opkit"]), ratio(t["liger"], t["opkit"])))
    worst = {}
    for name, dtype, shape, *vals in entries:
        w = worst.setdefault((name, dtype), [None, None, None])
        for i, v in enumerate(vals):
            if v is not None and (w[i] is None or v < w[i][0]):
                w[i] = (v, shape)
    return [(name, dtype, *w) for (name, dtype), w in worst.items()]


def round_times(parts, impl):
    """Each round's milliseconds of impl over `parts` (one op's row, or a training step's
    forward and backward, summed round by round), or None where a part has no rounds
    (gpu_compare.py without --rounds) or the parts' rounds differ in number."""
    lists = [p.get(impl + "_rounds_ms") for p in parts]
    if not lists or any(not lst for lst in lists) or len({len(lst) for lst in lists}) != 1:
        return None
    return [sum(v) for v in zip(*lists)]


def round_ranges(parts, run_bw):
    """[(lowest, highest) over the rounds] of the fraction of copy bandwidth, the ratio to
    torch.compile and to Liger-Kernel; None for each one without rounds."""
    o = round_times(parts, "opkit")
    if o is None:
        return [None, None, None]
    moved, bw = _bytes_moved(parts), _copy_bw(parts, run_bw)
    fracs = [moved / ms / 1e6 / bw for ms in o if ms] if moved and bw else []
    frac = (min(fracs), max(fracs)) if fracs and len(fracs) == len(o) else None
    return [frac, ratio_range(round_times(parts, "compile"), o), ratio_range(round_times(parts, "liger"), o)]


def same_size_copy_fractions(doc):
    """{(name, dtype, shape): a copy of the same bytes' time over opkit's} for the rows and
    training steps (a step's copy is its parts' copies summed) where the run timed one."""
    out = {}
    for r in doc["rows"]:
        t = times(r)
        if r["op"] != "matmul" and t["copy"] and t["opkit"]:
            out[(r["op"], r["dtype"], r["shape"])] = t["copy"] / t["opkit"]
    for name, shape, dtype, t, _, _ in steps(doc):
        if t["copy"] and t["opkit"]:
            out[(step_label(name), dtype, shape)] = t["copy"] / t["opkit"]
    return out


def summary_ranges(doc):
    """{(name, dtype, shape): round_ranges} for the rows and training steps of summary_rows."""
    run_bw = doc["info"].get("driver_copy_GBps")
    out = {}
    for r in doc["rows"]:
        if r["op"] != "matmul":
            out[(r["op"], r["dtype"], r["shape"])] = round_ranges([r], run_bw)
    for name, shape, dtype, parts in _step_parts(doc):
        step = step_label(name)
        out[(step, dtype, shape)] = round_ranges(parts, run_bw)
    return out


def summary(doc):
    info = doc["info"]
    out = [f"GPU: {info.get('gpu')}, driver {info.get('driver', '?')}, torch {info.get('torch')}, "
           f"Triton {info.get('triton', '?')}, Liger-Kernel {info.get('liger') or 'not run'}. "
           "Worst shape of each op and dtype:", "",
           "| op | dtype | of copy (worst) | vs compile (worst) | vs liger (worst) |", "|---|---|---|---|---|"]
    stale = info.get("runs_with_dynamic_compiles", int(dynamic_compiles(doc)))
    if stale:
        out[1:1] = ["", f"NOTE: {stale} of these runs timed torch.compile before it compiled each shape "
                    "statically: its figures at an op's later shapes are Dynamo's dynamic-size recompiles "
                    "(bench/gpu_compare.py's docstring)."]
    ranges = summary_ranges(doc)
    same_size = same_size_copy_fractions(doc)
    misses = {"every round": 0, "some round": 0, "no rounds": 0}

    def cell(name, dtype, w, i, tgt, digits, x):
        if w is None:
            return "–"
        text = f"{mark(w[0], tgt, fmt(w[0], digits) + x)} at {w[1]}"
        rng = ranges.get((name, dtype, w[1]), [None] * 3)[i]
        if rng:
            text += f", rounds {rng[0]:.3f}-{rng[1]:.3f}"
        if i == 0 and w[0] < tgt and (name, dtype, w[1]) in same_size:
            text += f"; {same_size[(name, dtype, w[1])]:.2f} of a same-size copy"
        if w[0] < tgt:
            misses["no rounds" if rng is None else "every round" if rng[1] < tgt else "some round"] += 1
        return text

    for name, dtype, frac, comp, lig in summary_rows(doc):
        out.append(f"| {name} | {dtype} | {cell(name, dtype, frac, 0, bw_target(name), 2, '')} | "
                   f"{cell(name, dtype, comp, 1, 1.0, 2, 'x')} | {cell(name, dtype, lig, 2, 1.0, 2, 'x')} |")
    if misses["every round"] or misses["some round"]:
        out += ["", f"Misses (bold, by the median of the rounds): {misses['every round']} short of the target in "
                f"every round, {misses['some round']} reaching it in at least one round (within the spread "
                f"between rounds)" + (f", {misses['no rounds']} without rounds" if misses["no rounds"] else "") + "."]
    return "\n".join(out)


def main():
    args = sys.argv[1:]
    if args and args[0] == "--summary":
        args, dtype = args[1:], None
        if args[:1] == ["--dtype"] and len(args) > 1:
            dtype, args = args[1], args[2:]
        docs = []
        for path in args:
            with open(path) as f:
                docs.append(json.load(f))
        print(summary(only_dtype(merged(docs), dtype)))
        return
    for path in args:
        with open(path) as f:
            print(table(json.load(f)))
            print()


if __name__ == "__main__":
    main()
