"""nn.Modules over opkit.torch's functions, drop-in for their PyTorch / Hugging Face
counterparts (same parameters, same state_dict keys)."""
import torch
from torch import nn

from . import _functional as F


class RMSNorm(nn.Module):
    """y = x / rms(x) * (weight + offset). offset=1.0 with zero-initialized weights is
    Gemma's form; offset=0.0 with ones is Llama's."""

    def __init__(self, hidden_size, eps=1e-6, offset=0.0, device=None, dtype=None):
        super().__init__()
        init = torch.zeros if offset else torch.ones
        self.weight = nn.Parameter(init(hidden_size, device=device, dtype=dtype))
        self.eps, self.offset = eps, offset

    def forward(self, x):
        return F.rms_norm(x, self.weight, self.eps, self.offset)

    def extra_repr(self):
        return f"{tuple(self.weight.shape)}, eps={self.eps}, offset={self.offset}"


class LayerNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-5, bias=True, device=None, dtype=None):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))
        self.bias = nn.Parameter(torch.zeros(hidden_size, device=device, dtype=dtype)) if bias else None
        self.eps = eps

    def forward(self, x):
        return F.layer_norm(x, self.weight, self.bias, self.eps)


class _GatedMLP(nn.Module):
    """down(act(gate(x)) * up(x)) with the projections as nn.Linear (cuBLAS through
    PyTorch: opkit's matmul is no faster there) and opkit's fused gate."""

    def __init__(self, hidden_size, intermediate_size, bias=False, device=None, dtype=None):
        super().__init__()
        kw = dict(bias=bias, device=device, dtype=dtype)
        self.gate_proj = nn.Linear(hidden_size, intermediate_size, **kw)
        self.up_proj = nn.Linear(hidden_size, intermediate_size, **kw)
        self.down_proj = nn.Linear(intermediate_size, hidden_size, **kw)


class SwiGLUMLP(_GatedMLP):
    def forward(self, x):
        return self.down_proj(F.swiglu(self.gate_proj(x), self.up_proj(x)))


class GeGLUMLP(_GatedMLP):
    def __init__(self, hidden_size, intermediate_size, bias=False, approximate="tanh", device=None, dtype=None):
        super().__init__(hidden_size, intermediate_size, bias, device, dtype)
        self.approximate = approximate

    def forward(self, x):
        return self.down_proj(F.geglu(self.gate_proj(x), self.up_proj(x), self.approximate))


class CrossEntropyLoss(nn.Module):
    def __init__(self, ignore_index=-100, label_smoothing=0.0, reduction="mean"):
        super().__init__()
        self.ignore_index, self.label_smoothing, self.reduction = ignore_index, label_smoothing, reduction

    def forward(self, logits, target):
        return F.cross_entropy(logits, target, self.ignore_index, self.label_smoothing, self.reduction)


class Embedding(nn.Module):
    def __init__(self, num_embeddings, embedding_dim, device=None, dtype=None):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(num_embeddings, embedding_dim, device=device, dtype=dtype))

    def forward(self, ids):
        return F.embedding(ids, self.weight)
