"""The math the benchmarks hand to PyTorch eager and torch.compile as opkit's peers, in one
place, so that every script times the same graphs (bench/gpu_compare.py's tables, and
placement_probe.py, ncu_ops.py and inductor_dump.py that profile or dump the same kernels).
Imports torch alone: inductor_dump.py runs without opkit."""
import torch


def rotate_half(v):
    """Hugging Face's rotate_half: [-v2, v1] over the last dimension's halves."""
    D = v.shape[-1]
    return torch.cat([-v[..., D // 2:], v[..., : D // 2]], -1)


def rope(v, c, s):
    """rope forward on [B, T, H, D] with cos / sin tables of [T, D]."""
    return v * c[None, :, None, :] + rotate_half(v) * s[None, :, None, :]


def sm_bwd_math(dy, y):
    """The softmax backward written out (dx = y * (dy - sum(dy * y))), in fp32."""
    yf = y.float()
    return (yf * (dy.float() - (dy.float() * yf).sum(-1, keepdim=True))).to(y.dtype)


def sw_bwd(dy, a, b):
    """swiglu's explicit backward: (da, db) of y = silu(a) * b, in fp32."""
    af = a.float()
    s = torch.sigmoid(af)
    return (dy.float() * b.float() * s * (1 + af * (1 - s))).to(a.dtype), (dy.float() * af * s).to(a.dtype)
