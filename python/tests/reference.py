"""float64 NumPy references of every op (the semantics of docs/ops.md), and helpers to
make inputs in each dtype. Inputs are rounded to their dtype first, so a reference sees
exactly what opkit sees."""
import math

import numpy as np

import tolerances

try:
    import ml_dtypes
    BF16 = np.dtype(ml_dtypes.bfloat16)
except ImportError:  # the bf16 tests skip, visibly, without it
    BF16 = None

DTYPES = {"f32": np.dtype(np.float32), "f16": np.dtype(np.float16)}
if BF16 is not None:
    DTYPES["bf16"] = BF16


def rand(rng, shape, dtype, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(dtype)


def f64(a):
    return np.asarray(a).astype(np.float64)


def close(out, ref, dtype_name, op, output, floor=0.0):
    """out ≈ ref within the tolerance of (op, output, dtype) from the one table
    (core/tolerances.def, through tolerances.py). floor: the smallest scale S errors are
    measured against, for results that cancel to ~0 from larger terms."""
    tolerances.check(out, ref, op, output, dtype_name, floor)


def rms_norm(x, w, eps, off):
    x = f64(x)
    r = 1 / np.sqrt(np.mean(x * x, -1, keepdims=True) + eps)
    y = x * r * (f64(w) + off if w is not None else 1)
    return y, r[..., 0]


def rms_norm_bwd(dy, x, w, r, off):
    dy, x, r = f64(dy), f64(x), f64(r)[..., None]
    g = dy * (f64(w) + off) if w is not None else dy
    n = x.shape[-1]
    dx = r * g - x * r ** 3 * np.sum(g * x, -1, keepdims=True) / n
    dw = np.sum((dy * x * r).reshape(-1, n), 0) if w is not None else None
    return dx, dw


def layer_norm(x, w, b, eps):
    x = f64(x)
    mu = x.mean(-1, keepdims=True)
    r = 1 / np.sqrt(((x - mu) ** 2).mean(-1, keepdims=True) + eps)
    y = (x - mu) * r
    if w is not None:
        y = y * f64(w)
    if b is not None:
        y = y + f64(b)
    return y, mu[..., 0], r[..., 0]


def layer_norm_bwd(dy, x, w, mu, r):
    dy, x = f64(dy), f64(x)
    mu, r = f64(mu)[..., None], f64(r)[..., None]
    n = x.shape[-1]
    xh = (x - mu) * r
    g = dy * f64(w) if w is not None else dy
    dx = r * (g - g.mean(-1, keepdims=True) - xh * (g * xh).mean(-1, keepdims=True))
    return dx, np.sum((dy * xh).reshape(-1, n), 0), np.sum(dy.reshape(-1, n), 0)


def softmax(x):
    x = f64(x)
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def softmax_bwd(dy, y):
    dy, y = f64(dy), f64(y)
    return y * (dy - np.sum(dy * y, -1, keepdims=True))


def sigmoid(a):
    return 1 / (1 + np.exp(-a))


def swiglu(a, b):
    a = f64(a)
    return a * sigmoid(a) * f64(b)


def swiglu_bwd(dy, a, b):
    dy, a, b = f64(dy), f64(a), f64(b)
    s = sigmoid(a)
    return dy * b * s * (1 + a * (1 - s)), dy * a * s


_K = math.sqrt(2 / math.pi)
_erf = np.vectorize(math.erf)


def gelu(a, approximate):
    if approximate:
        return 0.5 * a * (1 + np.tanh(_K * (a + 0.044715 * a ** 3)))
    return 0.5 * a * (1 + _erf(a / math.sqrt(2)))


def gelu_grad(a, approximate):
    if approximate:
        t = np.tanh(_K * (a + 0.044715 * a ** 3))
        return 0.5 * (1 + t) + 0.5 * a * (1 - t * t) * _K * (1 + 3 * 0.044715 * a * a)
    return 0.5 * (1 + _erf(a / math.sqrt(2))) + a * np.exp(-0.5 * a * a) / math.sqrt(2 * math.pi)


def geglu(a, b, approximate):
    return gelu(f64(a), approximate) * f64(b)


def geglu_bwd(dy, a, b, approximate):
    dy, a, b = f64(dy), f64(a), f64(b)
    return dy * b * gelu_grad(a, approximate), dy * gelu(a, approximate)


def _rot(v):
    h = v.shape[-1] // 2
    return np.concatenate([-v[..., h:], v[..., :h]], -1)


def _bcast(c):  # [T,D] or [B,T,D] -> broadcastable over [B,T,H,D]
    c = f64(c)
    return c[None, :, None, :] if c.ndim == 2 else c[:, :, None, :]


def rope(x, cos, sin):
    x = f64(x)
    return x * _bcast(cos) + _rot(x) * _bcast(sin)


def rope_bwd(dy, cos, sin):
    dy = f64(dy)
    gs = dy * _bcast(sin)
    h = dy.shape[-1] // 2
    return dy * _bcast(cos) + np.concatenate([gs[..., h:], -gs[..., :h]], -1)


def cross_entropy(logits, target, ignore_index, eps, reduction):
    """(loss, lse, dlogits for an upstream gradient of 1)."""
    x = f64(logits)
    rows, v = x.shape
    m = x.max(-1, keepdims=True)
    lse = (m + np.log(np.exp(x - m).sum(-1, keepdims=True)))[:, 0]
    valid = target != ignore_index
    t = np.where(valid, target, 0)
    loss = lse - (1 - eps) * x[np.arange(rows), t] - eps / v * x.sum(-1)
    loss = np.where(valid, loss, 0.0)
    n_valid = valid.sum()
    onehot = np.zeros_like(x)
    onehot[np.arange(rows), t] = 1
    grad = np.exp(x - lse[:, None]) - (1 - eps) * onehot - eps / v
    grad = np.where(valid[:, None], grad, 0.0)
    if reduction == 1:
        return (loss.sum() / n_valid if n_valid else float("nan")), lse, grad / max(n_valid, 1)
    if reduction == 2:
        return loss.sum(), lse, grad
    return loss, lse, grad


def embedding_bwd(dy, ids, padding_idx, v):
    dy = f64(dy).reshape(-1, dy.shape[-1])
    out = np.zeros((v, dy.shape[-1]))
    for i, row in zip(ids.reshape(-1), dy):
        if i != padding_idx:
            out[i] += row
    return out
