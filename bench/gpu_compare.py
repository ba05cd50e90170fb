#!/usr/bin/env python3
"""Times opkit's cuda vendor, PyTorch eager and torch.compile on the same inputs, in one
run, for every op forward and backward, bf16 and fp32.

Run on a GPU machine from the repository root with the build tree in ./build:

    PYTHONPATH=python OPKIT_LIBRARY=build/lib/libopkit.so python3 bench/gpu_compare.py \
        --out bench/results/h100.json

Timing: CUDA events around each call on torch's current stream (opkit gets the same
stream), median of --reps runs after warm-up; inputs rotate between two copies so that
L2 does not hold them. Bandwidth counts each tensor the op must read or write once (the
byte model is printed next to every op). Backward baselines: eager = autograd backward of
the eager forward (the graph is kept and only the backward is timed); compile =
torch.compile of the same math written as an explicit backward function.
"""
import argparse
import json
import math
import os
import statistics
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))
import opkit  # noqa: E402

DT = {"bf16": torch.bfloat16, "f32": torch.float32}


def timed(fn, reps, warmup=5):
    """Median milliseconds of fn() on the current stream."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    return statistics.median(times)


def copy_bandwidth(reps):
    """Device-to-device copy GB/s (read + write) of a 1 GiB buffer."""
    src = torch.empty(1 << 28, dtype=torch.float32, device="cuda").uniform_()
    dst = torch.empty_like(src)
    ms = timed(lambda: dst.copy_(src), reps)
    return 2 * src.numel() * 4 / ms / 1e6


class Case:
    """One op at one shape and dtype: three callables and the bytes they must move."""

    def __init__(self, name, shape, dtype, bytes_moved, opkit_fn, eager_fn, compile_fn, flops=None):
        self.name, self.shape, self.dtype = name, shape, dtype
        self.bytes, self.flops = bytes_moved, flops
        self.fns = {"opkit": opkit_fn, "eager": eager_fn, "compile": compile_fn}


def rnd(*shape, dtype, scale=1.0):
    return (torch.randn(*shape, device="cuda", dtype=torch.float32) * scale).to(dtype)


def row_cases(R, N, dt, es):
    x, dy, w = rnd(R, N, dtype=dt), rnd(R, N, dtype=dt), rnd(N, dtype=dt)
    y, dx, dw = torch.empty_like(x), torch.empty_like(x), torch.empty_like(w)
    rstd = torch.empty(R, device="cuda", dtype=torch.float32)
    mean = torch.empty_like(rstd)
    b = rnd(N, dtype=dt)
    db = torch.empty_like(b)
    opkit.rms_norm_forward(x, w, 1e-6, 0.0, y, rstd)
    opkit.layer_norm_forward(x, w, b, 1e-5, y, mean, rstd)
    shape = f"{R}x{N}"
    xg = x.detach().requires_grad_()
    wg = w.detach().requires_grad_()
    bg = b.detach().requires_grad_()
    y_rms = F.rms_norm(xg, (N,), wg, 1e-6)
    y_ln = F.layer_norm(xg, (N,), wg, bg, 1e-5)
    y_sm = torch.softmax(xg, -1)
    ys = torch.softmax(x.float(), -1).to(dt)

    def rms_bwd_math(dy, x, w):
        xf = x.float()
        r = torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6)
        g = dy.float() * w.float()
        dx = r * g - xf * r.pow(3) * (g * xf).mean(-1, keepdim=True)
        return dx.to(x.dtype), (dy.float() * xf * r).sum(0).to(w.dtype)

    def ln_bwd_math(dy, x, w):
        xf = x.float()
        mu = xf.mean(-1, keepdim=True)
        r = torch.rsqrt(xf.var(-1, unbiased=False, keepdim=True) + 1e-5)
        xh = (xf - mu) * r
        g = dy.float() * w.float()
        dx = r * (g - g.mean(-1, keepdim=True) - xh * (g * xh).mean(-1, keepdim=True))
        return dx.to(x.dtype), (dy.float() * xh).sum(0).to(w.dtype), dy.float().sum(0).to(w.dtype)

    def sm_bwd_math(dy, y):
        yf = y.float()
        return (yf * (dy.float() - (dy.float() * yf).sum(-1, keepdim=True))).to(y.dtype)

    rms_c = torch.compile(lambda x, w: F.rms_norm(x, (N,), w, 1e-6))
    ln_c = torch.compile(lambda x, w, b: F.layer_norm(x, (N,), w, b, 1e-5))
    sm_c = torch.compile(lambda x: torch.softmax(x, -1))
    rms_bc, ln_bc, sm_bc = torch.compile(rms_bwd_math), torch.compile(ln_bwd_math), torch.compile(sm_bwd_math)
    n = R * N * es
    return [
        Case("rms_norm_forward", shape, dt, 2 * n, lambda: opkit.rms_norm_forward(x, w, 1e-6, 0.0, y, rstd),
             lambda: F.rms_norm(x, (N,), w, 1e-6), lambda: rms_c(x, w)),
        Case("rms_norm_backward", shape, dt, 3 * n, lambda: opkit.rms_norm_backward(dy, x, w, rstd, 0.0, dx, dw),
             lambda: torch.autograd.grad(y_rms, (xg, wg), dy, retain_graph=True), lambda: rms_bc(dy, x, w)),
        Case("layer_norm_forward", shape, dt, 2 * n, lambda: opkit.layer_norm_forward(x, w, b, 1e-5, y, mean, rstd),
             lambda: F.layer_norm(x, (N,), w, b, 1e-5), lambda: ln_c(x, w, b)),
        Case("layer_norm_backward", shape, dt, 3 * n,
             lambda: opkit.layer_norm_backward(dy, x, w, mean, rstd, dx, dw, db),
             lambda: torch.autograd.grad(y_ln, (xg, wg, bg), dy, retain_graph=True), lambda: ln_bc(dy, x, w)),
        Case("softmax_forward", shape, dt, 2 * n, lambda: opkit.softmax_forward(x, y),
             lambda: torch.softmax(x, -1), lambda: sm_c(x)),
        Case("softmax_backward", shape, dt, 3 * n, lambda: opkit.softmax_backward(dy, ys, dx),
             lambda: torch.autograd.grad(y_sm, (xg,), dy, retain_graph=True), lambda: sm_bc(dy, ys)),
    ]


def gated_cases(R, N, dt, es):
    a, b, dy = rnd(R, N, dtype=dt), rnd(R, N, dtype=dt), rnd(R, N, dtype=dt)
    y, da, db = torch.empty_like(a), torch.empty_like(a), torch.empty_like(a)
    ag, bg = a.detach().requires_grad_(), b.detach().requires_grad_()
    y_sw = F.silu(ag) * bg
    y_ge = F.gelu(ag, approximate="tanh") * bg

    def sw_bwd(dy, a, b):
        af = a.float()
        s = torch.sigmoid(af)
        return (dy.float() * b.float() * s * (1 + af * (1 - s))).to(a.dtype), (dy.float() * af * s).to(a.dtype)

    def ge_bwd(dy, a, b):
        af = a.float().requires_grad_(False)
        k = math.sqrt(2 / math.pi)
        u = k * (af + 0.044715 * af ** 3)
        t = torch.tanh(u)
        g = 0.5 * af * (1 + t)
        dg = 0.5 * (1 + t) + 0.5 * af * (1 - t * t) * k * (1 + 3 * 0.044715 * af * af)
        return (dy.float() * b.float() * dg).to(a.dtype), (dy.float() * g).to(a.dtype)

    sw_c = torch.compile(lambda a, b: F.silu(a) * b)
    ge_c = torch.compile(lambda a, b: F.gelu(a, approximate="tanh") * b)
    sw_bc, ge_bc = torch.compile(sw_bwd), torch.compile(ge_bwd)
    n = R * N * es
    shape = f"{R}x{N}"
    return [
        Case("swiglu_forward", shape, dt, 3 * n, lambda: opkit.swiglu_forward(a, b, y),
             lambda: F.silu(a) * b, lambda: sw_c(a, b)),
        Case("swiglu_backward", shape, dt, 5 * n, lambda: opkit.swiglu_backward(dy, a, b, da, db),
             lambda: torch.autograd.grad(y_sw, (ag, bg), dy, retain_graph=True), lambda: sw_bc(dy, a, b)),
        Case("geglu_forward(tanh)", shape, dt, 3 * n, lambda: opkit.geglu_forward(a, b, 1, y),
             lambda: F.gelu(a, approximate="tanh") * b, lambda: ge_c(a, b)),
        Case("geglu_backward(tanh)", shape, dt, 5 * n, lambda: opkit.geglu_backward(dy, a, b, 1, da, db),
             lambda: torch.autograd.grad(y_ge, (ag, bg), dy, retain_graph=True), lambda: ge_bc(dy, a, b)),
    ]


def rope_cases(B, T, H, D, dt, es):
    x, dy = rnd(B, T, H, D, dtype=dt), rnd(B, T, H, D, dtype=dt)
    ang = torch.rand(T, D // 2, device="cuda") * 6.28
    cos, sin = torch.cat([ang.cos()] * 2, -1).to(dt), torch.cat([ang.sin()] * 2, -1).to(dt)
    y, dx = torch.empty_like(x), torch.empty_like(x)

    def rot(v):
        return torch.cat([-v[..., D // 2:], v[..., : D // 2]], -1)

    def rope(v, c, s):
        return v * c[None, :, None, :] + rot(v) * s[None, :, None, :]

    def rope_bwd(g, c, s):
        gs = g * s[None, :, None, :]
        return g * c[None, :, None, :] + torch.cat([gs[..., D // 2:], -gs[..., : D // 2]], -1)

    xg = x.detach().requires_grad_()
    y_e = rope(xg, cos, sin)
    rc, rbc = torch.compile(rope), torch.compile(rope_bwd)
    n = B * T * H * D * es
    shape = f"{B}x{T}x{H}x{D}"
    return [
        Case("rope_forward", shape, dt, 2 * n, lambda: opkit.rope_forward(x, cos, sin, y),
             lambda: rope(x, cos, sin), lambda: rc(x, cos, sin)),
        Case("rope_backward", shape, dt, 2 * n, lambda: opkit.rope_backward(dy, cos, sin, dx),
             lambda: torch.autograd.grad(y_e, (xg,), dy, retain_graph=True), lambda: rbc(dy, cos, sin)),
    ]


def ce_cases(R, V, dt, es):
    logits = rnd(R, V, dtype=dt, scale=2.0)
    target = torch.randint(0, V, (R,), device="cuda")
    target[::7] = -100
    loss = torch.empty((), device="cuda", dtype=torch.float32)
    lse = torch.empty(R, device="cuda", dtype=torch.float32)
    dlogits = torch.empty_like(logits)
    one = torch.ones((), device="cuda", dtype=torch.float32)
    lg = logits.detach().requires_grad_()
    l_e = F.cross_entropy(lg.float() if dt == torch.float32 else lg, target)

    def ce_fwd_bwd(x, t):  # what Liger's fused forward computes: loss and the gradient
        x = x.detach().requires_grad_()
        l = F.cross_entropy(x, t)
        (g,) = torch.autograd.grad(l, (x,))
        return l, g

    cc = torch.compile(lambda x, t: F.cross_entropy(x, t))
    n = R * V * es
    shape = f"{R}x{V}"
    opkit.cross_entropy_forward(logits, target, -100, 0.0, 1, loss, lse, None)
    return [
        Case("cross_entropy_forward(loss)", shape, dt, n,
             lambda: opkit.cross_entropy_forward(logits, target, -100, 0.0, 1, loss, lse, None),
             lambda: F.cross_entropy(logits, target), lambda: cc(logits, target)),
        Case("cross_entropy_forward(+dlogits)", shape, dt, 2 * n,
             lambda: opkit.cross_entropy_forward(logits, target, -100, 0.0, 1, loss, lse, dlogits),
             lambda: ce_fwd_bwd(logits, target), torch.compile(lambda: ce_fwd_bwd(logits, target))),
        Case("cross_entropy_backward", shape, dt, 2 * n,
             lambda: opkit.cross_entropy_backward(one, logits, target, lse, -100, 0.0, 1, dlogits),
             lambda: torch.autograd.grad(l_e, (lg,), retain_graph=True), None),
    ]


def embedding_cases(V, D, BT, dt, es):
    w = rnd(V, D, dtype=dt)
    ids = torch.randint(0, V, (BT,), device="cuda")
    y, dy, dw = torch.empty(BT, D, device="cuda", dtype=dt), rnd(BT, D, dtype=dt), torch.empty_like(w)
    wg = w.detach().requires_grad_()
    y_e = F.embedding(ids, wg)
    ec = torch.compile(lambda i, w: F.embedding(i, w))
    return [
        Case("embedding_forward", f"V{V}xD{D},{BT} ids", dt, 2 * BT * D * es,
             lambda: opkit.embedding_forward(w, ids, y), lambda: F.embedding(ids, w), lambda: ec(ids, w)),
        Case("embedding_backward", f"V{V}xD{D},{BT} ids", dt, (2 * BT * D + V * D) * es,
             lambda: opkit.embedding_backward(dy, ids, -1, dw),
             lambda: torch.autograd.grad(y_e, (wg,), dy, retain_graph=True), None),
    ]


def matmul_cases(n, dt):
    a, b = rnd(n, n, dtype=dt), rnd(n, n, dtype=dt)
    c = torch.empty(n, n, device="cuda", dtype=dt)
    return [Case("matmul", f"{n}^3", dt, 3 * n * n * a.element_size(),
                 lambda: opkit.matmul(a, b, c, 1.0, 0.0, 0, 0), lambda: torch.matmul(a, b), None,
                 flops=2 * n ** 3)]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dtypes", default="bf16,f32")
    p.add_argument("--reps", type=int, default=30)
    p.add_argument("--quick", action="store_true", help="one shape per family")
    p.add_argument("--out", default=None)
    args = p.parse_args()
    torch.manual_seed(0)
    bw = copy_bandwidth(args.reps)
    info = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__,
            "cuda": torch.version.cuda, "driver_copy_GBps": bw, "opkit_version": opkit.version()}
    print(f"# {info['gpu']}, torch {info['torch']}, CUDA {info['cuda']}, copy bandwidth {bw:.0f} GB/s")
    rows = []
    row_shapes = [(32768, 4096)] if args.quick else [(32768, 4096), (8192, 8192), (4096, 16384)]
    for name in args.dtypes.split(","):
        dt = DT[name]
        es = torch.empty((), dtype=dt).element_size()
        cases = []
        for R, N in row_shapes:
            cases += row_cases(R, N, dt, es) + gated_cases(R, N, dt, es)
        cases += rope_cases(4, 4096, 32, 128, dt, es)
        for V in ([128256] if args.quick else [32000, 128256]):
            cases += ce_cases(8192, V, dt, es)
        cases += embedding_cases(128256, 4096, 8192, dt, es)
        if dt == torch.bfloat16:
            for n in ([4096] if args.quick else [4096, 8192]):
                cases += matmul_cases(n, dt)
        for c in cases:
            r = {"op": c.name, "shape": c.shape, "dtype": name}
            for impl, fn in c.fns.items():
                if fn is None:
                    r[impl + "_ms"] = None
                    continue
                try:
                    r[impl + "_ms"] = timed(fn, args.reps)
                except Exception as e:  # a baseline that cannot run is reported, not fatal
                    r[impl + "_ms"] = None
                    r[impl + "_error"] = str(e)[:200]
            ms = r["opkit_ms"]
            if ms:
                if c.flops:
                    r["opkit_TFLOPs"] = c.flops / ms / 1e9
                    r["eager_TFLOPs"] = c.flops / r["eager_ms"] / 1e9 if r["eager_ms"] else None
                r["opkit_GBps"] = c.bytes / ms / 1e6
                r["frac_copy_bw"] = r["opkit_GBps"] / bw
                r["vs_eager"] = r["eager_ms"] / ms if r["eager_ms"] else None
                r["vs_compile"] = r["compile_ms"] / ms if r["compile_ms"] else None
            rows.append(r)
            fmt = lambda v: f"{v:8.3f}" if isinstance(v, float) else f"{'-':>8}"
            extra = f" {r.get('opkit_TFLOPs', 0):6.1f} TFLOP/s" if c.flops and ms else ""
            print(f"{c.name:34s} {c.shape:22s} {name:4s} opkit {fmt(ms)} eager {fmt(r['eager_ms'])} "
                  f"compile {fmt(r['compile_ms'])} ms | {fmt(r.get('opkit_GBps'))} GB/s "
                  f"{fmt(r.get('frac_copy_bw'))} of copy | x{fmt(r.get('vs_eager'))} eager "
                  f"x{fmt(r.get('vs_compile'))} compile{extra}", flush=True)
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"info": info, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
