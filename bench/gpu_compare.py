#!/usr/bin/env python3
"""Times opkit's cuda vendor, PyTorch eager, torch.compile and Liger-Kernel on the same
inputs, in one run, for every op forward and backward, bf16 and fp32.

Run on a GPU machine from the repository root with a CUDA build tree (here build-cuda):

    PYTHONPATH=python OPKIT_LIBRARY=$PWD/build-cuda/lib/libopkit.so.1 python3 bench/gpu_compare.py \
        --out bench/results/h100.json

Timing: CUDA events around each call on torch's current stream (opkit gets the same
stream), median of --reps runs after warm-up, each call queued behind a ~1 ms spin kernel
so that the events time the GPU's work, not the host's per-call overhead (that is what
--overhead measures). Inputs are not rotated between copies: every
case's main tensor is at least 64 MiB (the 4096^3 matmul's operands, 32 MiB each, are the
exception, and matmul is compute-bound), more than the H100's 50 MB L2, so at most a part
of a case's inputs can still be in L2 from the previous call (rope's small cos/sin tables
are meant to stay there). A smaller shape picked with --shapes can run partly from L2.
Bandwidth counts each tensor the op must read or write once (the byte model is printed
next to every op). Backward baselines: eager = autograd backward of the eager forward (the
graph is kept and only the backward is timed); compile = torch.compile of the same math
written as an explicit backward function.

torch.compile compiles each case for its own shape and dtype, as a program that runs one
shape gets it: Dynamo's state is reset before each case family (one shape). Dynamo keeps
its compiled graphs on the Python code object, which the families' fresh lambdas share,
so without the reset the second shape of an op (or the first of the next dtype) was a
recompile that automatic dynamic shapes compiled with symbolic sizes; until the
thirty-ninth session (2026-12-01) the compile column of every shape after an op's first
timed such a kernel (fp32 rms_norm forward 32768x4096 after the bf16 shapes: 0.336 ms
against 0.252 static).

--overhead times, instead, the host side of one call on tiny tensors (1 x --overhead-cols):
time.perf_counter over --calls back-to-back calls with one synchronize at the end, median
of --batches batches, for PyTorch eager (F.rms_norm, torch.softmax, F.silu(a) * b, in-place
add with alpha) and for opkit through the Python binding (as called, with an explicit
stream, and as a bare ctypes call on tensors converted once). A second measurement queues
the calls behind a spin kernel (torch.cuda._sleep) so the GPU cannot be the bottleneck:
host time per call there is the launch path alone, and CUDA events around the queued calls
give the GPU's time per call; "host-bound" means the first exceeds the second.

Liger-Kernel (its Triton autograd functions, liger_kernel.ops.*) is the fourth
implementation when it imports; the GPU machine lacks it, so it travels as a wheel (pure
Python: `pip install --no-deps --target /tmp/site .whl/liger_kernel-*.whl`, PYTHONPATH).
Its backward is timed like eager's (autograd backward of its forward, graph kept). Where
Liger fuses what opkit does in two calls it is compared on the same work: its
cross-entropy forward also writes the gradient (the "(+dlogits)" case), and its rope
rotates q and k in one call (the "rope q+k" cases; opkit's rope_qk does too, and with
OPKIT_BENCH_ROPE_TWO_CALLS=1 opkit makes two rope calls there, as before 1.2).

--impls times only the named implementations (--impls opkit compares two opkit builds
without compiling the baselines: run once per OPKIT_LIBRARY).

--rounds N times each case's implementations in N alternating rounds, the order rotated
each round (bench/timing_rounds.py): a row's time is the median of its rounds, every
round's time is kept (<impl>_rounds_ms), and bench/perf_table.py prints the per-round
ratios' range beside each worst shape, so that a gap of a percent can be told from the
spread between rounds.

Every memory-bound case (matmul is not) also times a device-to-device copy of its own byte
count (half read, half written, timed the same way and in the same rounds: the "copy"
implementation, which --impls can leave out). The copy-bandwidth target is against the
1 GiB copy (driver_copy_GBps), where the events' fixed cost of a few microseconds is lost;
a case that moves 128 MB (the embedding forward) pays it on 0.03 ms. frac_same_size_copy,
the copy's time over opkit's, is opkit's speed as a fraction of a copy of the same bytes
(1.0: as fast; bench/perf_table.py prints it beside the worst shape). The copy always reads
as much as it writes, so a case that mostly reads (the cross-entropy loss, the norm
backwards' two rows read for one written) is set against another mix of reads and writes:
near 1.0 and above, the fraction does not compare like with like.

--ops and --shapes keep only the cases whose op name / shape string contains one of the
comma-separated substrings. With --out the JSON file is rewritten after every case, so a
run cut short keeps what it measured.
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))
import opkit  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
from peer_math import rope, rotate_half, sm_bwd_math, sw_bwd  # noqa: E402
from timing_rounds import ratio_range, time_in_rounds  # noqa: E402

DT = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}
ROPE_TWO_CALLS = os.environ.get("OPKIT_BENCH_ROPE_TWO_CALLS") == "1" or not hasattr(opkit, "rope_qk_forward")


def timed(fn, reps, warmup=5, behind_spin=True):
    """Median milliseconds of fn() on the current stream, device time only.

    Each timed call is queued behind a spin kernel (torch.cuda._sleep, ~1 ms) so that the
    host has issued all of fn's launches before the GPU reaches the start event: the
    result is the kernels' time, not the host's per-call overhead (measured separately
    by --overhead). Without the spin, a 0.2 ms kernel behind a 60 us Python call would
    be timed as 0.26 ms.
    """
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    spin = behind_spin and hasattr(torch.cuda, "_sleep")
    times = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        if spin:
            torch.cuda._sleep(2_000_000)
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


def same_size_copy(nbytes):
    """A device-to-device copy that moves nbytes (nbytes / 2 read, as many written), as a
    callable to time beside a case's implementations; its buffers live as long as it."""
    half = max(1, int(nbytes) // 2)
    src = torch.empty(half, dtype=torch.uint8, device="cuda").random_(0, 255)
    dst = torch.empty_like(src)
    return lambda: dst.copy_(src)


class Case:
    """One op at one shape and dtype: a callable per implementation and the bytes they
    must move."""

    def __init__(self, name, shape, dtype, bytes_moved, opkit_fn, eager_fn, compile_fn, flops=None,
                 liger_fn=None):
        self.name, self.shape, self.dtype = name, shape, dtype
        self.bytes, self.flops = bytes_moved, flops
        self.fns = {"opkit": opkit_fn, "eager": eager_fn, "compile": compile_fn,
                    "liger": liger_fn if LIGER else None}


def load_liger():
    """liger_kernel.ops' autograd functions as a namespace, or None (why: LIGER_ERROR)."""
    global LIGER_ERROR
    try:
        from liger_kernel.ops.cross_entropy import LigerCrossEntropyFunction
        from liger_kernel.ops.geglu import LigerGELUMulFunction
        from liger_kernel.ops.layer_norm import LigerLayerNormFunction
        from liger_kernel.ops.rms_norm import LigerRMSNormFunction
        from liger_kernel.ops.rope import LigerRopeFunction
        from liger_kernel.ops.softmax import LigerSoftmaxFunction
        from liger_kernel.ops.swiglu import LigerSiLUMulFunction
    except Exception as e:  # not installed, or an API it no longer has
        LIGER_ERROR = f"{type(e).__name__}: {e}"
        return None
    import types
    return types.SimpleNamespace(
        ce=LigerCrossEntropyFunction, geglu=LigerGELUMulFunction, layer_norm=LigerLayerNormFunction,
        rms_norm=LigerRMSNormFunction, rope=LigerRopeFunction, softmax=LigerSoftmaxFunction,
        swiglu=LigerSiLUMulFunction)


LIGER_ERROR = None
LIGER = load_liger()


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

    L = LIGER
    if L:  # Liger's modules' defaults: llama casting, dY overwritten by dX in the backward
        yl_rms = L.rms_norm.apply(xg, wg, 1e-6, 0.0, "llama", True)
        yl_ln = L.layer_norm.apply(xg, wg, bg, 1e-5)
        yl_sm = L.softmax.apply(xg)
        dy_l = dy.clone()  # the rms_norm backward writes into it
    rms_c = torch.compile(lambda x, w: F.rms_norm(x, (N,), w, 1e-6))
    ln_c = torch.compile(lambda x, w, b: F.layer_norm(x, (N,), w, b, 1e-5))
    sm_c = torch.compile(lambda x: torch.softmax(x, -1))
    rms_bc, ln_bc, sm_bc = torch.compile(rms_bwd_math), torch.compile(ln_bwd_math), torch.compile(sm_bwd_math)
    n = R * N * es
    return [
        Case("rms_norm_forward", shape, dt, 2 * n, lambda: opkit.rms_norm_forward(x, w, 1e-6, 0.0, y, rstd),
             lambda: F.rms_norm(x, (N,), w, 1e-6), lambda: rms_c(x, w),
             liger_fn=L and (lambda: L.rms_norm.apply(x, w, 1e-6, 0.0, "llama", True))),
        Case("rms_norm_backward", shape, dt, 3 * n, lambda: opkit.rms_norm_backward(dy, x, w, rstd, 0.0, dx, dw),
             lambda: torch.autograd.grad(y_rms, (xg, wg), dy, retain_graph=True), lambda: rms_bc(dy, x, w),
             liger_fn=L and (lambda: torch.autograd.grad(yl_rms, (xg, wg), dy_l, retain_graph=True))),
        Case("layer_norm_forward", shape, dt, 2 * n, lambda: opkit.layer_norm_forward(x, w, b, 1e-5, y, mean, rstd),
             lambda: F.layer_norm(x, (N,), w, b, 1e-5), lambda: ln_c(x, w, b),
             liger_fn=L and (lambda: L.layer_norm.apply(x, w, b, 1e-5))),
        Case("layer_norm_backward", shape, dt, 3 * n,
             lambda: opkit.layer_norm_backward(dy, x, w, mean, rstd, dx, dw, db),
             lambda: torch.autograd.grad(y_ln, (xg, wg, bg), dy, retain_graph=True), lambda: ln_bc(dy, x, w),
             liger_fn=L and (lambda: torch.autograd.grad(yl_ln, (xg, wg, bg), dy, retain_graph=True))),
        Case("softmax_forward", shape, dt, 2 * n, lambda: opkit.softmax_forward(x, y),
             lambda: torch.softmax(x, -1), lambda: sm_c(x), liger_fn=L and (lambda: L.softmax.apply(x))),
        Case("softmax_backward", shape, dt, 3 * n, lambda: opkit.softmax_backward(dy, ys, dx),
             lambda: torch.autograd.grad(y_sm, (xg,), dy, retain_graph=True), lambda: sm_bc(dy, ys),
             liger_fn=L and (lambda: torch.autograd.grad(yl_sm, (xg,), dy, retain_graph=True))),
    ]


def gated_cases(R, N, dt, es):
    a, b, dy = rnd(R, N, dtype=dt), rnd(R, N, dtype=dt), rnd(R, N, dtype=dt)
    y, da, db = torch.empty_like(a), torch.empty_like(a), torch.empty_like(a)
    ag, bg = a.detach().requires_grad_(), b.detach().requires_grad_()
    y_sw = F.silu(ag) * bg
    y_ge = F.gelu(ag, approximate="tanh") * bg

    def ge_bwd(dy, a, b):
        af = a.float().requires_grad_(False)
        k = math.sqrt(2 / math.pi)
        u = k * (af + 0.044715 * af ** 3)
        t = torch.tanh(u)
        g = 0.5 * af * (1 + t)
        dg = 0.5 * (1 + t) + 0.5 * af * (1 - t * t) * k * (1 + 3 * 0.044715 * af * af)
        return (dy.float() * b.float() * dg).to(a.dtype), (dy.float() * g).to(a.dtype)

    L = LIGER
    if L:
        yl_sw, yl_ge = L.swiglu.apply(ag, bg), L.geglu.apply(ag, bg)
    sw_c = torch.compile(lambda a, b: F.silu(a) * b)
    ge_c = torch.compile(lambda a, b: F.gelu(a, approximate="tanh") * b)
    sw_bc, ge_bc = torch.compile(sw_bwd), torch.compile(ge_bwd)
    n = R * N * es
    shape = f"{R}x{N}"
    return [
        Case("swiglu_forward", shape, dt, 3 * n, lambda: opkit.swiglu_forward(a, b, y),
             lambda: F.silu(a) * b, lambda: sw_c(a, b), liger_fn=L and (lambda: L.swiglu.apply(a, b))),
        Case("swiglu_backward", shape, dt, 5 * n, lambda: opkit.swiglu_backward(dy, a, b, da, db),
             lambda: torch.autograd.grad(y_sw, (ag, bg), dy, retain_graph=True), lambda: sw_bc(dy, a, b),
             liger_fn=L and (lambda: torch.autograd.grad(yl_sw, (ag, bg), dy, retain_graph=True))),
        Case("geglu_forward(tanh)", shape, dt, 3 * n, lambda: opkit.geglu_forward(a, b, 1, y),
             lambda: F.gelu(a, approximate="tanh") * b, lambda: ge_c(a, b),
             liger_fn=L and (lambda: L.geglu.apply(a, b))),
        Case("geglu_backward(tanh)", shape, dt, 5 * n, lambda: opkit.geglu_backward(dy, a, b, 1, da, db),
             lambda: torch.autograd.grad(y_ge, (ag, bg), dy, retain_graph=True), lambda: ge_bc(dy, a, b),
             liger_fn=L and (lambda: torch.autograd.grad(yl_ge, (ag, bg), dy, retain_graph=True))),
    ]


def rope_cases(B, T, H, D, dt, es):
    x, dy = rnd(B, T, H, D, dtype=dt), rnd(B, T, H, D, dtype=dt)
    ang = torch.rand(T, D // 2, device="cuda") * 6.28
    cos, sin = torch.cat([ang.cos()] * 2, -1).to(dt), torch.cat([ang.sin()] * 2, -1).to(dt)
    y, dx = torch.empty_like(x), torch.empty_like(x)

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


def rope_qk_cases(B, T, Hq, Hkv, D, dt, es):
    """rope on a query and a key tensor, as attention needs it: Hugging Face's layout (the
    projections' [B,T,H,D] memory seen as [B,H,T,D]). Liger rotates both in one call, and
    so does opkit's rope_qk (since 1.2; on the [B,T,H,D] memory); with
    OPKIT_BENCH_ROPE_TWO_CALLS=1 opkit makes two rope calls instead."""
    qp, kp = rnd(B, T, Hq, D, dtype=dt), rnd(B, T, Hkv, D, dtype=dt)
    dqp, dkp = rnd(B, T, Hq, D, dtype=dt), rnd(B, T, Hkv, D, dtype=dt)
    yq, yk, dq, dk = (torch.empty_like(t) for t in (qp, kp, qp, kp))
    ang = torch.rand(T, D // 2, device="cuda") * 6.28
    cos, sin = torch.cat([ang.cos()] * 2, -1).to(dt), torch.cat([ang.sin()] * 2, -1).to(dt)
    q, k = qp.transpose(1, 2), kp.transpose(1, 2)  # [B,H,T,D] views, as HF has them

    def rope2(q, k, c, s):  # HF's apply_rotary_pos_emb with cos/sin [T,D]
        return q * c + rotate_half(q) * s, k * c + rotate_half(k) * s

    qg, kg = q.detach().requires_grad_(), k.detach().requires_grad_()
    yq_e, yk_e = rope2(qg, kg, cos, sin)
    rc = torch.compile(rope2)
    L = LIGER
    if L:
        ql, kl = qp.clone().transpose(1, 2), kp.clone().transpose(1, 2)  # rotated in place by Liger
        qlg, klg = qp.clone().transpose(1, 2).requires_grad_(), kp.clone().transpose(1, 2).requires_grad_()
        yq_l, yk_l = L.rope.apply(qlg * 1, klg * 1, cos, sin)  # (x * 1: Liger writes its input)
    dq_h, dk_h = dqp.transpose(1, 2), dkp.transpose(1, 2)

    if ROPE_TWO_CALLS:  # opkit before 1.2, or the A/B of the two ways
        def opkit_fwd():
            opkit.rope_forward(qp, cos, sin, yq)
            opkit.rope_forward(kp, cos, sin, yk)

        def opkit_bwd():
            opkit.rope_backward(dqp, cos, sin, dq)
            opkit.rope_backward(dkp, cos, sin, dk)
    else:
        def opkit_fwd():
            opkit.rope_qk_forward(qp, kp, cos, sin, yq, yk)

        def opkit_bwd():
            opkit.rope_qk_backward(dqp, dkp, cos, sin, dq, dk)

    n = B * T * (Hq + Hkv) * D * es
    shape = f"{B}x{T}x({Hq}+{Hkv})x{D}"
    return [
        Case("rope_forward(q+k)", shape, dt, 2 * n, opkit_fwd, lambda: rope2(q, k, cos, sin),
             lambda: rc(q, k, cos, sin), liger_fn=L and (lambda: L.rope.apply(ql, kl, cos, sin))),
        Case("rope_backward(q+k)", shape, dt, 2 * n, opkit_bwd,
             lambda: torch.autograd.grad((yq_e, yk_e), (qg, kg), (dq_h, dk_h), retain_graph=True), None,
             liger_fn=L and (lambda: torch.autograd.grad((yq_l, yk_l), (qlg, klg), (dq_h, dk_h),
                                                         retain_graph=True))),
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
    L = LIGER
    if L:  # Liger's forward writes the gradient over its input when that requires grad
        lg_l = logits.detach().clone().requires_grad_()

    def liger_ce(x):
        return L.ce.apply(x, target, None, -100, 0.0, 0.0, "mean")
    n = R * V * es
    shape = f"{R}x{V}"
    opkit.cross_entropy_forward(logits, target, -100, 0.0, 1, loss, lse, None)
    return [
        Case("cross_entropy_forward(loss)", shape, dt, n,
             lambda: opkit.cross_entropy_forward(logits, target, -100, 0.0, 1, loss, lse, None),
             lambda: F.cross_entropy(logits, target), lambda: cc(logits, target),
             liger_fn=L and (lambda: liger_ce(logits))),
        Case("cross_entropy_forward(+dlogits)", shape, dt, 2 * n,
             lambda: opkit.cross_entropy_forward(logits, target, -100, 0.0, 1, loss, lse, dlogits),
             lambda: ce_fwd_bwd(logits, target), torch.compile(lambda: ce_fwd_bwd(logits, target)),
             liger_fn=L and (lambda: liger_ce(lg_l))),
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


# ------------------------------------------------------------------ host overhead --------

def overhead_cases(cols, dt):
    """(op, shape, {impl: fn}) for the host-overhead section: tiny tensors, one call each."""
    from opkit._library import lib
    from opkit._tensors import prepare

    x, b, w = rnd(1, cols, dtype=dt), rnd(1, cols, dtype=dt), rnd(cols, dtype=dt)
    y = torch.empty_like(x)
    rstd = torch.empty(1, device="cuda", dtype=torch.float32)
    acc = torch.zeros_like(x)
    s = torch.cuda.current_stream().cuda_stream

    def raw(cfn, *args):
        """A bare ctypes call on opkit_tensor pointers converted once: the cost of crossing
        into C and of the library's launch path, without the binding's per-call DLPack."""
        tensors = [a for a in args if isinstance(a, torch.Tensor) or a is None]
        _, ptrs, keep = prepare(s, tensors)
        it = iter(ptrs)
        cargs = [next(it) if (isinstance(a, torch.Tensor) or a is None) else a for a in args]

        def call():
            if cfn(*cargs, s):
                raise RuntimeError(f"{cfn.__name__}: {lib.opkit_last_error_message().decode()}")
        call.keep = keep  # the DLPack capsules the pointers point into live as long as call
        return call

    shape = f"1x{cols}"
    return [
        ("rms_norm_forward", shape, {
            "eager": lambda: F.rms_norm(x, (cols,), w, 1e-6),
            "opkit": lambda: opkit.rms_norm_forward(x, w, 1e-6, 0.0, y, rstd),
            "opkit_stream": lambda: opkit.rms_norm_forward(x, w, 1e-6, 0.0, y, rstd, stream=s),
            "opkit_ctypes": raw(lib.opkit_rms_norm_forward, x, w, 1e-6, 0.0, y, rstd)}),
        ("softmax_forward", shape, {
            "eager": lambda: torch.softmax(x, -1),
            "opkit": lambda: opkit.softmax_forward(x, y),
            "opkit_stream": lambda: opkit.softmax_forward(x, y, stream=s),
            "opkit_ctypes": raw(lib.opkit_softmax_forward, x, y)}),
        ("swiglu_forward", shape, {  # eager: two kernels (silu, mul), as a model writes it
            "eager": lambda: F.silu(x) * b,
            "opkit": lambda: opkit.swiglu_forward(x, b, y),
            "opkit_stream": lambda: opkit.swiglu_forward(x, b, y, stream=s),
            "opkit_ctypes": raw(lib.opkit_swiglu_forward, x, b, y)}),
        ("axpy", shape, {  # acc += 1e-3 * x, in place: torch.add's in-place form
            "eager": lambda: acc.add_(x, alpha=1e-3),
            "opkit": lambda: opkit.axpy(1e-3, x, acc),
            "opkit_stream": lambda: opkit.axpy(1e-3, x, acc, stream=s),
            "opkit_ctypes": raw(lib.opkit_axpy, 1e-3, x, acc)}),
    ]


def host_per_call(fn, calls, batches):
    """(wall, issue) microseconds per call, medians over batches of `calls` back-to-back
    calls: wall includes the synchronize at the batch end, issue is the host loop alone."""
    for _ in range(min(calls, 500)):
        fn()
    torch.cuda.synchronize()
    walls, issues = [], []
    for _ in range(batches):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        t1 = time.perf_counter()
        torch.cuda.synchronize()
        t2 = time.perf_counter()
        walls.append((t2 - t0) / calls * 1e6)
        issues.append((t1 - t0) / calls * 1e6)
    return statistics.median(walls), statistics.median(issues)


_SLEEP_CYCLES_PER_MS = None


def sleep_cycles_per_ms():
    """torch.cuda._sleep's spin cycles per millisecond on this GPU (None without it)."""
    global _SLEEP_CYCLES_PER_MS
    if _SLEEP_CYCLES_PER_MS is None and hasattr(torch.cuda, "_sleep"):
        cycles = 10_000_000
        ms = timed(lambda: torch.cuda._sleep(cycles), 5, warmup=1, behind_spin=False)
        _SLEEP_CYCLES_PER_MS = cycles / ms
    return _SLEEP_CYCLES_PER_MS


def busy_gpu_per_call(fn, queued, reps, host_us):
    """Calls queued behind a spin kernel, so that no call's kernel runs while the host
    issues them: (host us per call, GPU us per call, note). GPU time is CUDA events around
    the queued calls, which then run back to back with no host gap. When the calls were
    still being issued as the spin ended (the launch queue filled, or the host was slower
    than estimated), it retries with half as many calls queued."""
    per_ms = sleep_cycles_per_ms()
    if per_ms is None:
        return None, None, "torch.cuda._sleep is missing: no GPU-busy measurement"
    while True:
        spin_ms = max(2.0, 4 * queued * host_us / 1e3)
        hosts, gpus, late = [], [], 0
        for _ in range(reps + 1):  # the first is a warm-up
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            torch.cuda._sleep(int(spin_ms * per_ms))
            a.record()
            t1 = time.perf_counter()
            for _ in range(queued):
                fn()
            t2 = time.perf_counter()
            b.record()
            b.synchronize()
            hosts.append((t2 - t1) / queued * 1e6)
            gpus.append(a.elapsed_time(b) / queued * 1e3)
            late += (t2 - t0) * 1e3 > 0.8 * spin_ms
        if not late or queued <= 32:
            break
        queued //= 2
    note = ""
    if late:
        note = (f"{late} of {reps + 1} batches were still being issued when the spin kernel "
                "ended: busy-GPU numbers are not clean")
    return statistics.median(hosts[1:]), statistics.median(gpus[1:]), note


def run_overhead(args, dtypes, wanted, info, rows, overhead, save):
    loop_wall, loop_issue = host_per_call(lambda: None, args.calls, args.batches)
    info["overhead_python_loop_us"] = loop_issue
    print(f"# host time per call, {args.calls} back-to-back calls per batch, median of {args.batches} "
          f"batches; the Python loop and lambda alone cost {loop_issue:.3f} us per call (included)")
    print(f"{'op':18s} {'shape':8s} {'dtype':4s} {'impl':13s} {'wall us':>9s} {'issue us':>9s} "
          f"{'busy host us':>12s} {'GPU us':>8s}  bound", flush=True)
    for name in dtypes:
        dt = DT[name]
        for op, shape, fns in overhead_cases(args.overhead_cols, dt):
            if not wanted(op, shape):
                continue
            for impl, fn in fns.items():
                r = {"op": op, "shape": shape, "dtype": name, "impl": impl}
                try:
                    r["wall_us"], r["issue_us"] = host_per_call(fn, args.calls, args.batches)
                    r["busy_host_us"], r["gpu_us"], r["note"] = busy_gpu_per_call(
                        fn, args.queued, args.batches, r["issue_us"])
                except Exception as e:  # a path that cannot run is reported, not fatal
                    r["error"] = str(e)[:200]
                    print(f"{op:18s} {shape:8s} {name:4s} {impl:13s} failed: {r['error']}", flush=True)
                    overhead.append(r)
                    save()
                    continue
                bound = None
                if r["busy_host_us"] is not None and r["gpu_us"] is not None:
                    bound = r["busy_host_us"] > r["gpu_us"]
                r["host_bound"] = bound
                overhead.append(r)
                save()
                fmt = lambda v: f"{v:9.2f}" if isinstance(v, float) else f"{'-':>9s}"
                verdict = {True: "host", False: "GPU", None: "?"}[bound]
                print(f"{op:18s} {shape:8s} {name:4s} {impl:13s} {fmt(r['wall_us'])} {fmt(r['issue_us'])} "
                      f"{fmt(r['busy_host_us']):>12s} {fmt(r['gpu_us']):>8s}  {verdict}"
                      + (f"  ({r['note']})" if r["note"] else ""), flush=True)
            eager = next((o for o in overhead if o["op"] == op and o["dtype"] == name
                          and o["impl"] == "eager" and "wall_us" in o), None)
            if eager:
                ratios = ", ".join(f"{o['impl']} x{o['wall_us'] / eager['wall_us']:.2f}" for o in overhead
                                   if o["op"] == op and o["dtype"] == name and o["impl"] != "eager"
                                   and "wall_us" in o)
                print(f"{'':18s} wall time per call vs eager: {ratios}", flush=True)
    print("wall = batch time / calls (the final synchronize included); issue = host loop alone; busy host = "
          "issue time per call\nwhile a spin kernel keeps the GPU busy (the launch path alone); GPU = event time "
          "per call of the\nsame calls run back to back after the spin; bound: host when busy host > GPU. "
          "opkit = the binding as\ncalled (stream from torch), opkit_stream = with stream=, opkit_ctypes = the C "
          "function through ctypes\non tensors converted once.")


# ------------------------------------------------------------------ run info --------------

def driver_version():
    """The NVIDIA driver version: nvidia-smi, else NVML through pynvml; None if neither."""
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=60)
        if out.returncode == 0 and out.stdout.strip():
            return out.stdout.strip().splitlines()[0].strip()
    except (OSError, subprocess.SubprocessError):
        pass
    try:
        import pynvml
        pynvml.nvmlInit()
        v = pynvml.nvmlSystemGetDriverVersion()
        return v.decode() if isinstance(v, bytes) else v
    except Exception:
        return None


def cuda_driver_api_version():
    """The CUDA version the driver supports (e.g. "13.0"), through torch; None if unknown."""
    try:
        v = torch._C._cuda_getDriverVersion()
        return f"{v // 1000}.{v % 1000 // 10}"
    except Exception:
        return None


def triton_version():
    try:
        import triton
        return triton.__version__
    except Exception:
        return None


def liger_version():
    try:
        from importlib.metadata import version
        return version("liger-kernel") if LIGER else None
    except Exception:
        return None


def case_families(dt, quick=False):
    """(shape, builder) of every case family in dtype dt; builder() makes its Cases. The
    families are built one at a time by the caller (their tensors are freed before the
    next), and only when --shapes can keep them."""
    es = torch.empty((), dtype=dt).element_size()
    row_shapes = [(32768, 4096)] if quick else [(32768, 4096), (8192, 8192), (4096, 16384)]
    families = []
    for R, N in row_shapes:
        families.append((f"{R}x{N}", lambda R=R, N=N: row_cases(R, N, dt, es)))
        families.append((f"{R}x{N}", lambda R=R, N=N: gated_cases(R, N, dt, es)))
    families.append(("4x4096x32x128", lambda: rope_cases(4, 4096, 32, 128, dt, es)))
    families.append(("4x4096x(32+8)x128", lambda: rope_qk_cases(4, 4096, 32, 8, 128, dt, es)))
    for V in ([128256] if quick else [32000, 128256]):
        families.append((f"8192x{V}", lambda V=V: ce_cases(8192, V, dt, es)))
    families.append(("V128256xD4096,8192 ids", lambda: embedding_cases(128256, 4096, 8192, dt, es)))
    if dt == torch.bfloat16:
        for n in ([4096] if quick else [4096, 8192]):
            families.append((f"{n}^3", lambda n=n: matmul_cases(n, dt)))
    return families


def kept(items, text):
    """Whether text contains one of items (a substring_filter list; None keeps all)."""
    return items is None or any(f in text for f in items)


def selected_cases(dt, quick, ops_f, shapes_f):
    """The Cases of dtype dt whose op and shape --ops / --shapes keep, one family's list at
    a time; only families --shapes can keep are built. Drop each list before asking for the
    next, so that one family's tensors live at a time."""
    for family_shape, build in case_families(dt, quick):
        if kept(shapes_f, family_shape):
            # torch.compile afresh for this family's shape (the module docstring says why).
            torch._dynamo.reset()
            yield [c for c in build() if kept(ops_f, c.name) and kept(shapes_f, c.shape)]


def substring_filter(text):
    """None, or the comma-separated substrings of text."""
    if not text:
        return None
    items = [t.strip() for t in text.split(",") if t.strip()]
    return items or None


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dtypes", default="bf16,f32", help="comma list of bf16, f16, f32")
    p.add_argument("--reps", type=int, default=30)
    p.add_argument("--rounds", type=int, default=1,
                   help="time each case's implementations in N alternating rounds (bench/timing_rounds.py): "
                        "the median of the rounds is the row's time, each round's kept as <impl>_rounds_ms")
    p.add_argument("--quick", action="store_true", help="one shape per family")
    p.add_argument("--ops", default=None, help="comma list of substrings of op names to keep")
    p.add_argument("--shapes", default=None, help="comma list of substrings of shape strings to keep")
    p.add_argument("--overhead", action="store_true",
                   help="time the host-side overhead per call on tiny tensors instead of the bandwidth cases")
    p.add_argument("--overhead-cols", type=int, default=128, help="--overhead tensor shape 1xN")
    p.add_argument("--calls", type=int, default=20000, help="--overhead calls per batch")
    p.add_argument("--batches", type=int, default=7, help="--overhead batches (median)")
    p.add_argument("--queued", type=int, default=256, help="--overhead calls queued behind the spin kernel")
    p.add_argument("--impls", default="opkit,eager,compile,liger,copy",
                   help="comma list of the implementations to time (e.g. opkit alone, to compare two opkit builds; "
                        "copy: a device copy of the case's bytes)")
    p.add_argument("--out", default=None)
    args = p.parse_args()
    if args.rounds < 1:
        p.error("--rounds must be at least 1")
    ops_f, shapes_f = substring_filter(args.ops), substring_filter(args.shapes)

    def wanted(op, shape):
        return kept(ops_f, op) and kept(shapes_f, shape)

    torch.manual_seed(0)
    bw = copy_bandwidth(args.reps)
    info = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__,
            "cuda": torch.version.cuda, "driver_copy_GBps": bw, "opkit_version": opkit.version(),
            "driver": driver_version(), "cuda_driver_api": cuda_driver_api_version(),
            "triton": triton_version(), "argv": sys.argv[1:],
            "liger": liger_version(), "liger_error": LIGER_ERROR,
            "compile": "static: torch._dynamo.reset() before each case family"}
    print(f"# {info['gpu']}, torch {info['torch']}, CUDA {info['cuda']}, copy bandwidth {bw:.0f} GB/s")
    print(f"# driver {info['driver']} (CUDA {info['cuda_driver_api']}), triton {info['triton']}, "
          f"liger-kernel {info['liger'] or 'absent: ' + str(LIGER_ERROR)}")
    rows, overhead = [], []

    def save():
        """Rewrites --out with everything measured so far (a run cut short keeps it)."""
        if not args.out:
            return
        doc = {"info": info, "rows": rows}
        if args.overhead:
            doc["overhead"] = overhead
        tmp = args.out + ".tmp"
        with open(tmp, "w") as f:
            json.dump(doc, f, indent=1)
        os.replace(tmp, args.out)

    save()
    dtypes = args.dtypes.split(",")
    impls = args.impls.split(",")
    if args.overhead:
        run_overhead(args, dtypes, wanted, info, rows, overhead, save)
        save()
        return
    for name in dtypes:
        dt = DT[name]
        for cases in selected_cases(dt, args.quick, ops_f, shapes_f):
            for c in cases:
                r = {"op": c.name, "shape": c.shape, "dtype": name}
                active = {impl: fn for impl, fn in c.fns.items() if fn is not None and impl in impls}
                copy_error = None
                if "copy" in impls and c.bytes and not c.flops and "opkit" in active:
                    try:  # the copy's buffers (the case's bytes again) may not fit: reported, not fatal
                        active["copy"] = same_size_copy(c.bytes)
                    except RuntimeError as e:  # torch.cuda.OutOfMemoryError is one
                        copy_error = f"{type(e).__name__}: {e}"
                measured = time_in_rounds(active, args.rounds, lambda fn: timed(fn, args.reps))
                active.clear()  # drops the copy's buffers, so that the next case's copy can reuse the memory
                for impl in list(c.fns) + ["copy"]:
                    m = measured.get(impl)
                    r[impl + "_ms"] = m["ms"] if m else None
                    if m and m["error"]:  # a baseline that cannot run is reported, not fatal
                        r[impl + "_error"] = m["error"]
                    if m and args.rounds > 1 and m["rounds"]:
                        r[impl + "_rounds_ms"] = m["rounds"]
                if copy_error:
                    r["copy_error"] = copy_error
                ms = r["opkit_ms"]
                if ms:
                    if c.flops:
                        r["opkit_TFLOPs"] = c.flops / ms / 1e9
                        r["eager_TFLOPs"] = c.flops / r["eager_ms"] / 1e9 if r["eager_ms"] else None
                    r["opkit_GBps"] = c.bytes / ms / 1e6
                    r["frac_copy_bw"] = r["opkit_GBps"] / bw
                    r["vs_eager"] = r["eager_ms"] / ms if r["eager_ms"] else None
                    r["vs_compile"] = r["compile_ms"] / ms if r["compile_ms"] else None
                    r["vs_liger"] = r["liger_ms"] / ms if r.get("liger_ms") else None
                    r["frac_same_size_copy"] = r["copy_ms"] / ms if r.get("copy_ms") else None
                rows.append(r)
                save()
                fmt = lambda v: f"{v:8.3f}" if isinstance(v, float) else f"{'-':>8}"
                extra = f" {r.get('opkit_TFLOPs', 0):6.1f} TFLOP/s" if c.flops and ms else ""
                print(f"{c.name:34s} {c.shape:22s} {name:4s} opkit {fmt(ms)} eager {fmt(r['eager_ms'])} "
                      f"compile {fmt(r['compile_ms'])} liger {fmt(r.get('liger_ms'))} ms | "
                      f"{fmt(r.get('opkit_GBps'))} GB/s {fmt(r.get('frac_copy_bw'))} of copy "
                      f"{fmt(r.get('frac_same_size_copy'))} of same-size copy | "
                      f"x{fmt(r.get('vs_eager'))} eager x{fmt(r.get('vs_compile'))} compile "
                      f"x{fmt(r.get('vs_liger'))} liger{extra}", flush=True)
                if args.rounds > 1:
                    spread = []
                    for peer in ("compile", "liger"):
                        rng = ratio_range(r.get(peer + "_rounds_ms"), r.get("opkit_rounds_ms"))
                        if rng:
                            spread.append(f"{peer} x{rng[0]:.3f}-{rng[1]:.3f}")
                    print(f"{'':34s} {args.rounds} rounds, per-round ratios: {', '.join(spread) or '-'}", flush=True)
            del cases
    save()


if __name__ == "__main__":
    main()
