#!/usr/bin/env python3
"""opkit's CPU defaults against PyTorch CPU eager, every op forward and backward, f32 and
bf16, at one thread and at all cores (issue 14, item 3: within 1.25x of PyTorch).

    OPKIT_LIBRARY=$BUILD/lib/libopkit.so.1 python3 bench/cpu_compare.py --out cpu.json

Each thread count runs in its own process: opkit reads OPKIT_NUM_THREADS when it starts,
PyTorch takes torch.set_num_threads. Shapes are large enough (8-32 MiB per tensor) that
the kernels, not Python's ~10 us per call, dominate; the median of --reps calls is kept.
opkit is called through its Python binding on the same torch tensors (DLPack, no copy).
The ratio is opkit's time over PyTorch's: above 1.25 misses the target.

    python3 bench/cpu_compare.py --table cc16.json cc1.json ...

prints the runs of one or more --out files as one markdown table (docs/PERFORMANCE.md's).

Before each implementation's timings the process sleeps --settle seconds (default 0.25):
the libraries' worker threads poll for a while after a parallel call before they sleep
(GNU OpenMP, which PyTorch's CPU kernels and oneDNN use, for tens of milliseconds by
default; OpenBLAS's threads too), so whichever library is timed right after the other
would otherwise share every core with the other's polling threads (each case times opkit
first, right after PyTorch's previous case: docs/PERFORMANCE.md has what that did to the
sub-millisecond ops at 16 threads). Each library is timed in its own steady state, its own
workers polling between its own calls.

--rounds K (default 1) repeats the pair K times in the one process, alternating (opkit,
PyTorch, opkit, PyTorch, ...), and keeps each round's ratio: on a shared host whose speed
drifts from one second to the next (the GPU machine's 16-core host: either library's time
moved 2-5x between runs of a second there), a round compares neighbours in time. The row
then holds the median over rounds of each library's medians, the median of the rounds'
ratios as "ratio", and every round's ratio ("round_ratios").
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time


def cases(torch, F, opkit, dt):
    R, N = 2048, 4096
    x, dy, w, b = (torch.randn(R, N).to(dt), torch.randn(R, N).to(dt), torch.randn(N).to(dt),
                   torch.randn(N).to(dt))
    y, dx, dw, db = torch.empty_like(x), torch.empty_like(x), torch.empty_like(w), torch.empty_like(w)
    rstd, mean = torch.empty(R), torch.empty(R)
    opkit.rms_norm_forward(x, w, 1e-6, 0.0, y, rstd)
    opkit.layer_norm_forward(x, w, b, 1e-5, y, mean, rstd)
    ys = torch.softmax(x.float(), -1).to(dt)
    xg, wg, bg = x.clone().requires_grad_(), w.clone().requires_grad_(), b.clone().requires_grad_()
    y_rms = F.rms_norm(xg, (N,), wg, 1e-6) if hasattr(F, "rms_norm") else None
    y_ln = F.layer_norm(xg, (N,), wg, bg, 1e-5)
    y_sm = torch.softmax(xg, -1)
    a, bb = torch.randn(R, N).to(dt), torch.randn(R, N).to(dt)
    ag, bg2 = a.clone().requires_grad_(), bb.clone().requires_grad_()
    y_sw = F.silu(ag) * bg2
    y_ge = F.gelu(ag, approximate="tanh") * bg2
    V = 32000
    logits = (torch.randn(256, V) * 2).to(dt)
    target = torch.randint(0, V, (256,))
    loss, lse, dlogits = torch.empty(()), torch.empty(256), torch.empty_like(logits)
    lg = logits.clone().requires_grad_()
    l_e = F.cross_entropy(lg, target)
    one = torch.ones(())
    B, T, H, D = 2, 512, 16, 128
    xr, dyr = torch.randn(B, T, H, D).to(dt), torch.randn(B, T, H, D).to(dt)
    ang = torch.rand(T, D // 2) * 6
    cos, sin = torch.cat([ang.cos()] * 2, -1).to(dt), torch.cat([ang.sin()] * 2, -1).to(dt)
    yr = torch.empty_like(xr)

    def rot(v):
        return torch.cat([-v[..., D // 2:], v[..., :D // 2]], -1)
    xrg = xr.clone().requires_grad_()
    y_rope = xrg * cos[None, :, None] + rot(xrg) * sin[None, :, None]
    E = torch.randn(32000, 1024).to(dt)
    ids = torch.randint(0, 32000, (4096,))
    ye = torch.empty(4096, 1024, dtype=dt)
    dye = torch.randn(4096, 1024).to(dt)
    dE = torch.empty_like(E)
    Eg = E.clone().requires_grad_()
    y_emb = F.embedding(ids, Eg)
    out = [
        ("rms_norm_forward", lambda: opkit.rms_norm_forward(x, w, 1e-6, 0.0, y, rstd),
         (lambda: F.rms_norm(x, (N,), w, 1e-6)) if y_rms is not None else None),
        ("rms_norm_backward", lambda: opkit.rms_norm_backward(dy, x, w, rstd, 0.0, dx, dw),
         (lambda: torch.autograd.grad(y_rms, (xg, wg), dy, retain_graph=True)) if y_rms is not None else None),
        ("layer_norm_forward", lambda: opkit.layer_norm_forward(x, w, b, 1e-5, y, mean, rstd),
         lambda: F.layer_norm(x, (N,), w, b, 1e-5)),
        ("layer_norm_backward", lambda: opkit.layer_norm_backward(dy, x, w, mean, rstd, dx, dw, db),
         lambda: torch.autograd.grad(y_ln, (xg, wg, bg), dy, retain_graph=True)),
        ("softmax_forward", lambda: opkit.softmax_forward(x, y), lambda: torch.softmax(x, -1)),
        ("softmax_backward", lambda: opkit.softmax_backward(dy, ys, dx),
         lambda: torch.autograd.grad(y_sm, (xg,), dy, retain_graph=True)),
        ("swiglu_forward", lambda: opkit.swiglu_forward(a, bb, y), lambda: F.silu(a) * bb),
        ("swiglu_backward", lambda: opkit.swiglu_backward(dy, a, bb, dx, y),
         lambda: torch.autograd.grad(y_sw, (ag, bg2), dy, retain_graph=True)),
        ("geglu_forward(tanh)", lambda: opkit.geglu_forward(a, bb, 1, y), lambda: F.gelu(a, approximate="tanh") * bb),
        ("geglu_backward(tanh)", lambda: opkit.geglu_backward(dy, a, bb, 1, dx, y),
         lambda: torch.autograd.grad(y_ge, (ag, bg2), dy, retain_graph=True)),
        ("rope_forward", lambda: opkit.rope_forward(xr, cos, sin, yr),
         lambda: xr * cos[None, :, None] + rot(xr) * sin[None, :, None]),
        ("rope_backward", lambda: opkit.rope_backward(dyr, cos, sin, yr),
         lambda: torch.autograd.grad(y_rope, (xrg,), dyr, retain_graph=True)),
        ("cross_entropy_forward", lambda: opkit.cross_entropy_forward(logits, target, -100, 0.0, 1, loss, lse, None),
         lambda: F.cross_entropy(logits, target)),
        ("cross_entropy_backward", lambda: opkit.cross_entropy_backward(one, logits, target, lse, -100, 0.0, 1, dlogits),
         lambda: torch.autograd.grad(l_e, (lg,), retain_graph=True)),
        ("embedding_forward", lambda: opkit.embedding_forward(E, ids, ye), lambda: F.embedding(ids, E)),
        ("embedding_backward", lambda: opkit.embedding_backward(dye, ids, -1, dE),
         lambda: torch.autograd.grad(y_emb, (Eg,), dye, retain_graph=True)),
    ]
    if dt == torch.float32:
        m = torch.randn(1024, 1024)
        c = torch.empty(1024, 1024)
        out.append(("matmul 1024^3", lambda: opkit.matmul(m, m, c, 1.0, 0.0, 0, 0), lambda: torch.matmul(m, m)))
    return out


SETTLE_S = 0.25  # --settle
MIN_ROUND_MS = 0.0  # --min-round-ms
MAX_REPS = 100000  # the most timed calls a round, whatever --min-round-ms asks


def med(fn, reps, clock=time.perf_counter, sleep=time.sleep, min_ms=None):
    min_s = (MIN_ROUND_MS if min_ms is None else min_ms) / 1e3
    sleep(SETTLE_S)  # the other library's polling workers go to sleep (docstring)
    for _ in range(2):
        fn()
    t = []
    spent = 0.0
    while len(t) < reps or (spent < min_s and len(t) < MAX_REPS):
        t0 = clock()
        fn()
        t.append(clock() - t0)
        spent += t[-1]
    return statistics.median(t) * 1e3


def compare(ok_fn, pt_fn, reps, rounds=1, clock=time.perf_counter, sleep=time.sleep):
    """One row's timings: `rounds` alternating rounds of opkit then PyTorch (--rounds in the
    docstring); without pt_fn, opkit alone."""
    r = {}
    ok, pt, ratios = [], [], []
    for _ in range(rounds):
        ok.append(med(ok_fn, reps, clock, sleep))
        if pt_fn:
            pt.append(med(pt_fn, reps, clock, sleep))
            ratios.append(ok[-1] / pt[-1])
    r["opkit_ms"] = statistics.median(ok)
    r["torch_ms"] = statistics.median(pt) if pt else None
    r["ratio"] = statistics.median(ratios) if ratios else None
    if rounds > 1 and ratios:
        r["round_ratios"] = ratios
    return r


def child(threads, reps, ops, rounds=1):
    import torch
    import torch.nn.functional as F
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
    import opkit
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    rows = []
    for name, dt in (("f32", torch.float32), ("bf16", torch.bfloat16)):
        for op, ok_fn, pt_fn in cases(torch, F, opkit, dt):
            if ops and not any(o in op for o in ops):
                continue
            r = {"op": op, "dtype": name, "threads": threads}
            try:
                r.update(compare(ok_fn, pt_fn, reps, rounds))
            except Exception as e:  # reported, not fatal
                r["error"] = f"{type(e).__name__}: {e}"[:200]
            rows.append(r)
    return {"torch": torch.__version__, "opkit": opkit.version(), "rows": rows}


TARGET = 1.25  # issue 14 item 3: opkit's time at most 1.25x PyTorch's


def table(docs):
    """Markdown lines of the runs in `docs` (this script's --out files, e.g. one per group
    of ops or thread count), merged: a row per op, a column per (thread count, dtype);
    each cell the ratio (bold above TARGET) and, with --rounds, the rounds' range. A later
    file's row replaces an earlier one's."""
    cells, ops, columns = {}, [], []
    for doc in docs:
        for run in doc["runs"]:
            for r in run["rows"]:
                col = (r["threads"], r["dtype"])
                if r["op"] not in ops:
                    ops.append(r["op"])
                if col not in columns:
                    columns.append(col)
                cells[(r["op"], col)] = r
    columns.sort(key=lambda c: (c[0], c[1] != "f32"))

    def cell(r):
        if r is None:
            return "–"
        if "error" in r:  # one table cell: no column separator, no line break
            return "error: " + r["error"].replace("|", "\\|").replace("\n", " ")
        if r.get("ratio") is None:
            return "%.3f ms (no PyTorch)" % r["opkit_ms"]
        q = "%.2f" % r["ratio"]
        q = "**%s**" % q if r["ratio"] > TARGET else q
        if "round_ratios" in r:
            q += " (%.2f-%.2f)" % (min(r["round_ratios"]), max(r["round_ratios"]))
        return q

    head = ["op"] + ["%s, %d thread%s" % (dt, n, "" if n == 1 else "s") for n, dt in columns]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for op in ops:
        lines.append("| " + " | ".join([op] + [cell(cells.get((op, c))) for c in columns]) + " |")
    return lines


def main():
    global SETTLE_S, MIN_ROUND_MS
    if sys.argv[1:2] == ["--table"]:  # python3 bench/cpu_compare.py --table A.json [B.json ...]
        docs = []
        for path in sys.argv[2:]:
            with open(path) as f:
                docs.append(json.load(f))
        print("\n".join(table(docs)))
        return
    p = argparse.ArgumentParser(epilog="--table A.json [B.json ...]: the runs' ratios as one markdown table")
    p.add_argument("--threads", default=None, help="comma list (default: 1 and all cores)")
    p.add_argument("--reps", type=int, default=15)
    p.add_argument("--out", required=True)
    p.add_argument("--ops", default="", help="comma list: only ops whose name contains one of these")
    p.add_argument("--settle", type=float, default=SETTLE_S,
                   help="seconds of sleep before each implementation's timings (docstring)")
    p.add_argument("--rounds", type=int, default=1,
                   help="alternating rounds of the two libraries in one process (docstring)")
    p.add_argument("--min-round-ms", type=float, default=MIN_ROUND_MS,
                   help="time each library's calls for at least this long a round (docstring)")
    p.add_argument("--child", type=int, help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.rounds < 1:
        p.error("--rounds must be at least 1")
    if a.min_round_ms < 0:
        p.error("--min-round-ms must not be negative")
    SETTLE_S = a.settle
    MIN_ROUND_MS = a.min_round_ms
    ops = [o for o in a.ops.split(",") if o]
    if a.child:
        print(json.dumps(child(a.child, a.reps, ops, a.rounds)))
        return
    threads = [int(t) for t in a.threads.split(",")] if a.threads else [1, os.cpu_count()]
    doc = {"cpu": open("/proc/cpuinfo").read().split("model name")[1].split("\n")[0].strip(": "),
           "cores": os.cpu_count(),
           "settings": {"reps": a.reps, "rounds": a.rounds, "min_round_ms": a.min_round_ms, "settle": a.settle},
           "runs": []}
    for n in threads:
        env = dict(os.environ, OPKIT_NUM_THREADS=str(n), OMP_NUM_THREADS=str(n))
        proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--out", a.out, "--child", str(n),
                               "--reps", str(a.reps), "--ops", a.ops, "--settle", str(a.settle),
                               "--rounds", str(a.rounds), "--min-round-ms", str(a.min_round_ms)],
                              env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            print(proc.stderr[-2000:])
            continue
        run = json.loads(proc.stdout.strip().splitlines()[-1])
        doc["runs"].append(run)
        for r in run["rows"]:
            ratio = r.get("ratio")
            flag = "" if ratio is None or ratio <= TARGET else "  MISS"
            print(f"{n:3d} thr {r['dtype']:4s} {r['op']:24s} opkit {r.get('opkit_ms', float('nan')):8.3f} ms  "
                  f"torch {r.get('torch_ms') or float('nan'):8.3f} ms  ratio {ratio or float('nan'):6.2f}{flag}"
                  + (f"  rounds {min(r['round_ratios']):.2f}-{max(r['round_ratios']):.2f}" if "round_ratios" in r else "")
                  + (f"  {r['error']}" if "error" in r else ""), flush=True)
    with open(a.out, "w") as f:
        json.dump(doc, f, indent=1)


if __name__ == "__main__":
    main()
