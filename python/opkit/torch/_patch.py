"""One-call patching of Hugging Face transformers models, in the manner of Liger-Kernel's
apply_liger_kernel_to_llama: the model family's RMSNorm and gated-MLP forwards, its
apply_rotary_pos_emb and the causal-LM loss's cross-entropy are replaced by opkit's, in
place, for every model of the family (those built before and after the call). `unpatch`
restores exactly what was replaced. Written against transformers 5.x (5.17 on the GPU
machine): modeling_<family>.<Family>RMSNorm / <Family>MLP / apply_rotary_pos_emb and
transformers.loss.loss_utils.fixed_cross_entropy.
"""
import importlib
import types

import torch

from . import _functional as F

_saved = []  # (owner, attribute, original), in the order they were replaced


def _replace(owner, name, new):
    _saved.append((owner, name, owner.__dict__.get(name, getattr(owner, name))))
    setattr(owner, name, new)


def unpatch():
    """Restores every replaced attribute, newest first. Returns how many."""
    n = len(_saved)
    while _saved:
        owner, name, original = _saved.pop()
        setattr(owner, name, original)
    return n


def _rms_forward(self, hidden_states):
    """Llama-style RMSNorm (weight * normalized), opkit's kernel."""
    return F.rms_norm(hidden_states, self.weight, self.variance_epsilon if hasattr(self, "variance_epsilon") else self.eps, 0.0)


def _gemma_rms_forward(self, x):
    """Gemma's (1 + weight) form: opkit's weight offset."""
    return F.rms_norm(x, self.weight, self.eps, 1.0)


def _mlp_forward(self, x):
    act = getattr(self.config, "hidden_act", getattr(self.config, "hidden_activation", "silu"))
    g, u = self.gate_proj(x), self.up_proj(x)
    if act in ("silu", "swish"):
        h = F.swiglu(g, u)
    elif act in ("gelu_pytorch_tanh", "gelu_new", "gelu_fast"):
        h = F.geglu(g, u, "tanh")
    elif act == "gelu":
        h = F.geglu(g, u, "none")
    else:  # an activation opkit has no fused kernel for: the model's own
        h = self.act_fn(g) * u
    return self.down_proj(h)


def _apply_rotary_pos_emb(q, k, cos, sin, position_ids=None, unsqueeze_dim=1):
    """Hugging Face's signature; cos/sin [B,T,D] (or [T,D]); q, k [B,H,T,D] when
    unsqueeze_dim is 1, [B,T,H,D] when it is 2. q and k in one opkit call (rope_qk)."""
    return F.apply_rotary(q, k, cos, sin, "bhtd" if unsqueeze_dim == 1 else "bthd")


def _fixed_cross_entropy(source, target, num_items_in_batch=None, ignore_index=-100, **kwargs):
    """transformers.loss.loss_utils.fixed_cross_entropy with opkit's cross-entropy."""
    reduction = "sum" if num_items_in_batch is not None else "mean"
    loss = F.cross_entropy(source, target, ignore_index=ignore_index, reduction=reduction)
    if reduction == "sum":
        if torch.is_tensor(num_items_in_batch):
            num_items_in_batch = num_items_in_batch.to(loss.device)
        loss = loss / num_items_in_batch
    return loss


def _apply(family, model, rms_norm, swiglu, rope, cross_entropy):
    mod = importlib.import_module(f"transformers.models.{family}.modeling_{family}")
    prefix = {"llama": "Llama", "mistral": "Mistral", "qwen2": "Qwen2", "gemma": "Gemma"}[family]
    if model is not None and not type(model).__module__.startswith(mod.__name__):
        raise TypeError(f"apply_opkit_to_{family}: {type(model).__name__} is not a {prefix} model")
    # Every target is looked up before anything is replaced: a transformers version that
    # lacks one raises here and leaves the library untouched.
    plan = []
    if rms_norm:
        plan.append((getattr(mod, f"{prefix}RMSNorm"), "forward", _gemma_rms_forward if family == "gemma" else _rms_forward))
    if swiglu:
        plan.append((getattr(mod, f"{prefix}MLP"), "forward", _mlp_forward))
    if rope:
        getattr(mod, "apply_rotary_pos_emb")
        plan.append((mod, "apply_rotary_pos_emb", _apply_rotary_pos_emb))
    if cross_entropy:
        loss_utils = importlib.import_module("transformers.loss.loss_utils")
        getattr(loss_utils, "fixed_cross_entropy")
        plan.append((loss_utils, "fixed_cross_entropy", _fixed_cross_entropy))
    for owner, name, new in plan:
        _replace(owner, name, new)
    return model


def apply_opkit_to_llama(model=None, rms_norm=True, swiglu=True, rope=True, cross_entropy=True):
    return _apply("llama", model, rms_norm, swiglu, rope, cross_entropy)


def apply_opkit_to_mistral(model=None, rms_norm=True, swiglu=True, rope=True, cross_entropy=True):
    return _apply("mistral", model, rms_norm, swiglu, rope, cross_entropy)


def apply_opkit_to_qwen2(model=None, rms_norm=True, swiglu=True, rope=True, cross_entropy=True):
    return _apply("qwen2", model, rms_norm, swiglu, rope, cross_entropy)


def apply_opkit_to_gemma(model=None, rms_norm=True, swiglu=True, rope=True, cross_entropy=True):
    """Gemma's MLP is GeGLU (gelu_pytorch_tanh): `swiglu=True` patches it with opkit's
    geglu."""
    return _apply("gemma", model, rms_norm, swiglu, rope, cross_entropy)


_FAMILIES = {"llama": apply_opkit_to_llama, "mistral": apply_opkit_to_mistral, "qwen2": apply_opkit_to_qwen2,
             "gemma": apply_opkit_to_gemma}


def patch(model, **options):
    """apply_opkit_to_<family> for the family of `model` (from its config's model_type)."""
    family = getattr(getattr(model, "config", None), "model_type", None)
    if family not in _FAMILIES:
        raise ValueError(f"opkit.torch.patch: no patch for model_type {family!r} "
                         f"(supported: {', '.join(sorted(_FAMILIES))})")
    return _FAMILIES[family](model, **options)
