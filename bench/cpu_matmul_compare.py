#!/usr/bin/env python3
"""CPU matmul: opkit with the blas vendor (libopkit_vendor_blas.so over the system's CBLAS)
against opkit's built-in default, PyTorch CPU's torch.matmul and NumPy's matmul, f32 and
bf16, at one thread and at all cores (issue 14, item 4: within 1.5x of PyTorch).

    OPKIT_LIBRARY=$BUILD/lib/libopkit.so.1 python3 bench/cpu_matmul_compare.py --out mm.json

Each thread count runs in its own process, because the thread counts are read when the
libraries start: OPKIT_NUM_THREADS for opkit's default (and, through the vendor's thread
policy, OpenBLAS's), OPENBLAS_NUM_THREADS/OMP_NUM_THREADS for NumPy's and PyTorch's
BLAS, torch.set_num_threads for PyTorch. PyTorch and NumPy are optional: whichever is
importable is measured (NumPy has no bf16). opkit is called through its Python binding on
the same arrays (DLPack, no copy), once with only the blas vendor allowed and once with
it disabled; opkit_last_dispatch proves who served each. The ratios are opkit+blas's time
over PyTorch's (target <= 1.5) and over NumPy's. The median of --reps calls is kept.

Before each implementation's timings it sleeps --settle seconds (0.25), as
bench/cpu_compare.py does: its docstring says why (the other libraries' polling workers).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

SHAPES = {"1024^3": (1024, 1024, 1024), "4096^3": (4096, 4096, 4096)}


SETTLE_S = 0.25  # --settle


def med(fn, reps):
    time.sleep(SETTLE_S)  # the other library's polling workers go to sleep (docstring)
    fn()
    t = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        t.append(time.perf_counter() - t0)
    return statistics.median(t) * 1e3


# c (opkit+blas's last product) against PyTorch's fp32 product of the same operands: a
# vendor that wrote wrong rows (its threads cutting c wrongly, say) would be timed as fast.
# The norm of the error over the norm of the product; bf16's rounding of c gives ~2e-3.
REL_ERR_LIMIT = {"f32": 1e-5, "bf16": 1e-2}


def rel_err(torch, c, a, b):
    want = torch.matmul(a.float(), b.float())
    return float(torch.linalg.vector_norm(c.float() - want) / torch.linalg.vector_norm(want))


def opkit_time(opkit, a, b, c, reps, with_blas):
    """Median ms of opkit.matmul with only the blas vendor, or with it disabled; and who served."""
    opkit.shutdown()
    opkit.init(vendors="blas" if with_blas else None, vendors_disable=None if with_blas else "blas")
    ms = med(lambda: opkit.matmul(a, b, c, 1.0, 0.0, 0, 0), reps)
    served = opkit.last_dispatch().served_by
    blas = [v for v in opkit.vendors() if v.name == "blas"]
    note = (blas[0].state_name + ": " + (blas[0].version if blas[0].state_name == "READY" else blas[0].detail)) \
        if blas else "not found"
    return ms, served, note


def child(threads, reps, shapes, skip_default, rounds=1):
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
    import opkit
    try:
        import torch
        torch.set_num_threads(threads)
        torch.manual_seed(0)
    except ImportError:
        torch = None
    try:
        import numpy as np
    except ImportError:
        np = None
    rows, blas_note = [], ""
    for shape in shapes:
        M, N, K = SHAPES[shape]
        flops = 2.0 * M * N * K
        for dt in ("f32", "bf16"):
            r = {"shape": shape, "dtype": dt, "threads": threads}
            if torch is not None:
                tdt = torch.float32 if dt == "f32" else torch.bfloat16
                a, b, c = torch.randn(M, K).to(tdt), torch.randn(K, N).to(tdt), torch.empty(M, N, dtype=tdt)
            elif np is not None and dt == "f32":
                a, b = np.random.randn(M, K).astype(np.float32), np.random.randn(K, N).astype(np.float32)
                c = np.empty((M, N), np.float32)
            else:
                continue
            if np is not None and dt == "f32":
                na, nb = np.asarray(a), np.asarray(b)
                r["numpy_ms"] = med(lambda: np.matmul(na, nb), reps)
            # --rounds: PyTorch then opkit+blas, alternating; each round's ratio compares
            # neighbours in time (bench/cpu_compare.py's docstring says why).
            blas_ms, torch_ms, ratios = [], [], []
            for _ in range(rounds):
                if torch is not None:
                    torch_ms.append(med(lambda: torch.matmul(a, b), reps))
                ms, r["served_by"], blas_note = opkit_time(opkit, a, b, c, reps, True)
                blas_ms.append(ms)
                if torch_ms:
                    ratios.append(blas_ms[-1] / torch_ms[-1])
            r["opkit_blas_ms"] = statistics.median(blas_ms)
            if torch is not None:
                r["blas_rel_err"] = rel_err(torch, c, a, b)
            if torch_ms:
                r["torch_ms"] = statistics.median(torch_ms)
            if not skip_default:
                r["opkit_default_ms"], served, _ = opkit_time(opkit, a, b, c, max(1, reps // 3), False)
                assert served == "default", served
            for k in [k for k in list(r) if k.endswith("_ms")]:
                r[k.replace("_ms", "_gflops")] = flops / (r[k] * 1e6)
            if ratios:
                r["blas_over_torch"] = statistics.median(ratios)
                if rounds > 1:
                    r["round_ratios"] = ratios
            if r.get("numpy_ms"):
                r["blas_over_numpy"] = r["opkit_blas_ms"] / r["numpy_ms"]
            rows.append(r)
    return {"torch": torch.__version__ if torch else None, "numpy": np.__version__ if np else None,
            "opkit": opkit.version(), "blas": blas_note, "rows": rows}


def main():
    global SETTLE_S
    p = argparse.ArgumentParser()
    p.add_argument("--threads", default=None, help="comma list (default: 1 and all cores)")
    p.add_argument("--shapes", default="1024^3,4096^3", help="comma list of " + ", ".join(SHAPES))
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--skip-default", action="store_true", help="don't time opkit's built-in kernel (slow at 4096^3)")
    p.add_argument("--out", required=True)
    p.add_argument("--settle", type=float, default=SETTLE_S,
                   help="seconds of sleep before each implementation's timings (docstring)")
    p.add_argument("--rounds", type=int, default=1,
                   help="alternating rounds of PyTorch and opkit+blas in one process; the ratio is their median")
    p.add_argument("--child", type=int, help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.rounds < 1:
        p.error("--rounds must be at least 1")
    SETTLE_S = a.settle
    shapes = a.shapes.split(",")
    if a.child:
        print(json.dumps(child(a.child, a.reps, shapes, a.skip_default, a.rounds)))
        return
    threads = [int(t) for t in a.threads.split(",")] if a.threads else [1, os.cpu_count()]
    doc = {"cpu": open("/proc/cpuinfo").read().split("model name")[1].split("\n")[0].strip(": "),
           "cores": os.cpu_count(), "runs": []}
    for n in threads:
        env = dict(os.environ, OPKIT_NUM_THREADS=str(n), OMP_NUM_THREADS=str(n), OPENBLAS_NUM_THREADS=str(n),
                   MKL_NUM_THREADS=str(n), BLIS_NUM_THREADS=str(n))
        cmd = [sys.executable, os.path.abspath(__file__), "--out", a.out, "--child", str(n), "--reps", str(a.reps),
               "--shapes", a.shapes, "--settle", str(a.settle), "--rounds", str(a.rounds)] + \
            (["--skip-default"] if a.skip_default else [])
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            print(proc.stderr[-2000:])
            continue
        run = json.loads(proc.stdout.strip().splitlines()[-1])
        doc["runs"].append(run)
        print(f"{n} thread(s); blas vendor: {run['blas']}", flush=True)
        for r in run["rows"]:
            def ms(k):
                return f"{r[k]:9.2f} ms ({r[k.replace('_ms', '_gflops')]:6.1f} GF/s)" if k in r else " " * 25
            ratio = r.get("blas_over_torch")
            flag = "" if ratio is None or ratio <= 1.5 else "  MISS"
            err = r.get("blas_rel_err")
            if err is not None and not err <= REL_ERR_LIMIT[r["dtype"]]:
                flag += f"  WRONG (relative error {err:.2e})"
            print(f"  {r['shape']:7s} {r['dtype']:4s} blas[{r['served_by']}] {ms('opkit_blas_ms')}  "
                  f"default {ms('opkit_default_ms')}  torch {ms('torch_ms')}  numpy {ms('numpy_ms')}  "
                  f"blas/torch {ratio or float('nan'):5.2f}  blas/numpy {r.get('blas_over_numpy') or float('nan'):5.2f}"
                  f"{flag}" + (f"  rounds {min(r['round_ratios']):.2f}-{max(r['round_ratios']):.2f}"
                               if "round_ratios" in r else ""), flush=True)
    with open(a.out, "w") as f:
        json.dump(doc, f, indent=1)


if __name__ == "__main__":
    main()
