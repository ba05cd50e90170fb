#!/usr/bin/env python3
"""opkit on NumPy arrays, on the CPU defaults: a forward and backward pass of a tiny
RMSNorm -> SwiGLU -> cross-entropy block, each result checked against NumPy's math.

    pip install ./python            # or PYTHONPATH=python from a checkout
    python3 examples/python/numpy_cpu.py

Outputs are pre-allocated arrays: opkit writes into them and allocates nothing.
"""
import numpy as np

import opkit

rng = np.random.default_rng(0)
rows, hidden, vocab = 8, 64, 50
x = rng.standard_normal((rows, hidden), dtype=np.float32)
w = (1.0 + 0.1 * rng.standard_normal(hidden)).astype(np.float32)

# RMSNorm: y = x / rms(x) * w, with rstd saved for the backward.
y, rstd = np.empty_like(x), np.empty(rows, dtype=np.float32)
opkit.rms_norm_forward(x, w, 1e-6, 0.0, y, rstd)
want = x / np.sqrt((x.astype(np.float64) ** 2).mean(1, keepdims=True) + 1e-6) * w
assert np.allclose(y, want, rtol=1e-5, atol=1e-6)

# SwiGLU on the two halves of a projection: silu(a) * b.
a, b = y[:, : hidden // 2].copy(), y[:, hidden // 2:].copy()
h = np.empty_like(a)
opkit.swiglu_forward(a, b, h)
assert np.allclose(h, a / (1 + np.exp(-a.astype(np.float64))) * b, rtol=1e-5, atol=1e-6)

# Logits through opkit's matmul, then cross-entropy with its gradient.
proj = (0.1 * rng.standard_normal((hidden // 2, vocab))).astype(np.float32)
logits = np.empty((rows, vocab), dtype=np.float32)
opkit.matmul(h, proj, logits, 1.0, 0.0, 0, 0)
assert np.allclose(logits, h.astype(np.float64) @ proj, rtol=1e-4, atol=1e-5)
target = rng.integers(0, vocab, rows).astype(np.int64)
loss, lse = np.empty((), dtype=np.float32), np.empty(rows, dtype=np.float32)
dlogits = np.empty_like(logits)
opkit.cross_entropy_forward(logits, target, -100, 0.0, 1, loss, lse, dlogits)  # 1 = mean
l64 = logits.astype(np.float64)
lse_want = np.log(np.exp(l64 - l64.max(1, keepdims=True)).sum(1)) + l64.max(1)
assert np.allclose(lse, lse_want, rtol=1e-5)
assert np.isclose(loss, (lse_want - l64[np.arange(rows), target]).mean(), rtol=1e-5)
p = np.exp(l64 - lse_want[:, None])
p[np.arange(rows), target] -= 1
assert np.allclose(dlogits, p / rows, rtol=1e-4, atol=1e-6)

# The RMSNorm backward against its closed form.
dy = rng.standard_normal((rows, hidden), dtype=np.float32)
dx, dw = np.empty_like(x), np.empty_like(w)
opkit.rms_norm_backward(dy, x, w, rstd, 0.0, dx, dw)
x64, r = x.astype(np.float64), rstd.astype(np.float64)[:, None]
g = dy * w
dx_want = r * g - x64 * r ** 3 * (g * x64).mean(1, keepdims=True)
assert np.allclose(dx, dx_want, rtol=1e-4, atol=1e-5)
assert np.allclose(dw, (dy * x64 * r).sum(0), rtol=1e-4, atol=1e-5)

served = {op: opkit.op_resolve(op, opkit.DEVICE_CPU) for op in ("rms_norm_forward", "matmul")}
print(f"numpy_cpu: ok (opkit {opkit.version()} from {opkit.library_path}; served by {served})")
