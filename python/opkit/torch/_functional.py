"""opkit's op pairs as differentiable PyTorch functions.

Each pair is two operators: a forward that returns its outputs and the statistics the
backward needs (rstd, mean, lse in fp32), and a backward. With PyTorch >= 2.4 they are
`torch.library.custom_op`s in the `opkit` namespace with fake (meta) implementations and
`register_autograd`, so `torch.compile(fullgraph=True)` traces through them and CUDA graphs
capture them; with an older PyTorch (Debian 12 ships 1.13) the same implementations run in
`torch.autograd.Function`s. Either way the kernels are opkit's, on the device of the
inputs, on PyTorch's current stream.

One float dtype per call (opkit's rule): a weight of another dtype than the activations
(an fp32 weight with bf16 activations) is cast to the activations' dtype once per call,
and its gradient cast back.
"""
from typing import List, Optional, Tuple

import torch

import opkit as _ok

HAS_CUSTOM_OP = hasattr(torch, "library") and hasattr(torch.library, "custom_op")
_F32 = torch.float32


def _c(t):
    """The tensor as opkit takes it: detached (DLPack refuses tensors that require grad;
    autograd is handled here, not by the kernels) and with an innermost stride of 1
    (other strides are free)."""
    if t is None:
        return None
    t = t.detach()
    return t if t.dim() == 0 or t.stride(-1) == 1 else t.contiguous()


def _as(t, dtype):
    return t if t is None or t.dtype == dtype else t.to(dtype)


def _rows(x):
    """The statistics' shape: one value per row, all leading dims flattened (opkit's rule)."""
    n = 1
    for d in x.shape[:-1]:
        n = n * d
    return (n,)


# ---------------------------------------------------------------- implementations -------
# Plain functions: tensors in, new tensors out. Both registration paths below use them.

def _rms_fwd(x: torch.Tensor, w: Optional[torch.Tensor], eps: float, offset: float) -> Tuple[torch.Tensor, torch.Tensor]:
    x = _c(x)
    y = torch.empty_like(x, memory_format=torch.contiguous_format)
    rstd = torch.empty(_rows(x), device=x.device, dtype=_F32)
    _ok.rms_norm_forward(x, _c(_as(w, x.dtype)), eps, offset, y, rstd)
    return y, rstd


def _rms_bwd(dy: torch.Tensor, x: torch.Tensor, w: Optional[torch.Tensor], rstd: torch.Tensor,
             offset: float) -> Tuple[torch.Tensor, torch.Tensor]:
    x, dy = _c(x), _c(dy)
    dx = torch.empty_like(x, memory_format=torch.contiguous_format)
    dw = torch.empty(x.shape[-1], device=x.device, dtype=x.dtype)
    _ok.rms_norm_backward(dy, x, _c(_as(w, x.dtype)), _c(rstd), offset, dx, dw if w is not None else None)
    return dx, dw


def _ln_fwd(x: torch.Tensor, w: Optional[torch.Tensor], b: Optional[torch.Tensor],
            eps: float) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    x = _c(x)
    y = torch.empty_like(x, memory_format=torch.contiguous_format)
    mean = torch.empty(_rows(x), device=x.device, dtype=_F32)
    rstd = torch.empty_like(mean)
    _ok.layer_norm_forward(x, _c(_as(w, x.dtype)), _c(_as(b, x.dtype)), eps, y, mean, rstd)
    return y, mean, rstd


def _ln_bwd(dy: torch.Tensor, x: torch.Tensor, w: Optional[torch.Tensor], mean: torch.Tensor,
            rstd: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    x, dy = _c(x), _c(dy)
    dx = torch.empty_like(x, memory_format=torch.contiguous_format)
    dw = torch.empty(x.shape[-1], device=x.device, dtype=x.dtype)
    db = torch.empty_like(dw)
    _ok.layer_norm_backward(dy, x, _c(_as(w, x.dtype)), _c(mean), _c(rstd), dx, dw, db)
    return dx, dw, db


def _softmax_fwd(x: torch.Tensor) -> torch.Tensor:
    x = _c(x)
    y = torch.empty_like(x, memory_format=torch.contiguous_format)
    _ok.softmax_forward(x, y)
    return y


def _softmax_bwd(dy: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    dx = torch.empty_like(y, memory_format=torch.contiguous_format)
    _ok.softmax_backward(_c(dy), _c(y), dx)
    return dx


def _gated_fwd(a: torch.Tensor, b: torch.Tensor, kind: int) -> torch.Tensor:
    """kind: -1 = swiglu, else geglu with opkit's `approximate` (0 erf, 1 tanh)."""
    a, b = _c(a), _c(_as(b, a.dtype))
    y = torch.empty_like(a, memory_format=torch.contiguous_format)
    if kind < 0:
        _ok.swiglu_forward(a, b, y)
    else:
        _ok.geglu_forward(a, b, kind, y)
    return y


def _gated_bwd(dy: torch.Tensor, a: torch.Tensor, b: torch.Tensor, kind: int) -> Tuple[torch.Tensor, torch.Tensor]:
    a, b, dy = _c(a), _c(_as(b, a.dtype)), _c(dy)
    da = torch.empty_like(a, memory_format=torch.contiguous_format)
    db = torch.empty_like(da)
    if kind < 0:
        _ok.swiglu_backward(dy, a, b, da, db)
    else:
        _ok.geglu_backward(dy, a, b, kind, da, db)
    return da, db


def _rope_fwd(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, backward: bool) -> torch.Tensor:
    """x [B,T,H,D] (any outer strides); cos/sin [T,D] or [B,T,D]. The backward is the
    same shape of call with the transposed rotation."""
    x = _c(x)
    y = torch.empty(x.shape, device=x.device, dtype=x.dtype)
    (_ok.rope_backward if backward else _ok.rope_forward)(x, _c(_as(cos, x.dtype)), _c(_as(sin, x.dtype)), y)
    return y


def _rope_qk_fwd(q: torch.Tensor, k: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor,
                 backward: bool) -> Tuple[torch.Tensor, torch.Tensor]:
    """_rope_fwd on q [B,T,Hq,D] and k [B,T,Hk,D] in one opkit call (rope_qk_*): the same
    B, T, D and dtype, any head counts."""
    q, k = _c(q), _c(k)
    q_out = torch.empty(q.shape, device=q.device, dtype=q.dtype)
    k_out = torch.empty(k.shape, device=k.device, dtype=k.dtype)
    (_ok.rope_qk_backward if backward else _ok.rope_qk_forward)(q, k, _c(_as(cos, q.dtype)), _c(_as(sin, q.dtype)),
                                                               q_out, k_out)
    return q_out, k_out


_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _ce_fwd(logits: torch.Tensor, target: torch.Tensor, ignore_index: int, label_smoothing: float,
            reduction: int) -> Tuple[torch.Tensor, torch.Tensor]:
    logits = _c(logits)
    loss = torch.empty(logits.shape[:1] if reduction == 0 else (), device=logits.device, dtype=_F32)
    lse = torch.empty(logits.shape[:1], device=logits.device, dtype=_F32)
    _ok.cross_entropy_forward(logits, _c(target), ignore_index, label_smoothing, reduction, loss, lse, None)
    return loss, lse


def _ce_bwd(dloss: torch.Tensor, logits: torch.Tensor, target: torch.Tensor, lse: torch.Tensor,
            ignore_index: int, label_smoothing: float, reduction: int) -> torch.Tensor:
    logits = _c(logits)
    dlogits = torch.empty_like(logits, memory_format=torch.contiguous_format)
    _ok.cross_entropy_backward(_c(dloss.to(_F32)), logits, _c(target), _c(lse), ignore_index, label_smoothing,
                               reduction, dlogits)
    return dlogits


def _emb_fwd(weight: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
    y = torch.empty(tuple(ids.shape) + (weight.shape[-1],), device=weight.device, dtype=weight.dtype)
    _ok.embedding_forward(_c(weight), _c(ids), y)
    return y


def _emb_bwd(dy: torch.Tensor, ids: torch.Tensor, num_embeddings: int, padding_idx: int) -> torch.Tensor:
    dw = torch.empty((num_embeddings, dy.shape[-1]), device=dy.device, dtype=dy.dtype)
    _ok.embedding_backward(_c(dy), _c(ids), padding_idx, dw)
    return dw


# ---------------------------------------------------------------- registration ----------

def _empty_like_rows(x, dtype=_F32):
    return x.new_empty(_rows(x), dtype=dtype)


if HAS_CUSTOM_OP:
    from torch.library import custom_op, register_fake

    def _op(name, impl):
        return custom_op(f"opkit::{name}", impl, mutates_args=())

    rms_fwd_op = _op("rms_norm_fwd", _rms_fwd)
    rms_bwd_op = _op("rms_norm_bwd", _rms_bwd)
    ln_fwd_op = _op("layer_norm_fwd", _ln_fwd)
    ln_bwd_op = _op("layer_norm_bwd", _ln_bwd)
    softmax_fwd_op = _op("softmax_fwd", _softmax_fwd)
    softmax_bwd_op = _op("softmax_bwd", _softmax_bwd)
    gated_fwd_op = _op("gated_fwd", _gated_fwd)
    gated_bwd_op = _op("gated_bwd", _gated_bwd)
    rope_op = _op("rope", _rope_fwd)
    rope_qk_op = _op("rope_qk", _rope_qk_fwd)
    ce_fwd_op = _op("cross_entropy_fwd", _ce_fwd)
    ce_bwd_op = _op("cross_entropy_bwd", _ce_bwd)
    emb_fwd_op = _op("embedding_fwd", _emb_fwd)
    emb_bwd_op = _op("embedding_bwd", _emb_bwd)

    # Fakes: shapes and dtypes only, for torch.compile's tracing.
    @rms_fwd_op.register_fake
    def _(x, w, eps, offset):
        return torch.empty_like(x, memory_format=torch.contiguous_format), _empty_like_rows(x)

    @rms_bwd_op.register_fake
    def _(dy, x, w, rstd, offset):
        return torch.empty_like(x, memory_format=torch.contiguous_format), x.new_empty(x.shape[-1:])

    @ln_fwd_op.register_fake
    def _(x, w, b, eps):
        return torch.empty_like(x, memory_format=torch.contiguous_format), _empty_like_rows(x), _empty_like_rows(x)

    @ln_bwd_op.register_fake
    def _(dy, x, w, mean, rstd):
        return (torch.empty_like(x, memory_format=torch.contiguous_format), x.new_empty(x.shape[-1:]),
                x.new_empty(x.shape[-1:]))

    @softmax_fwd_op.register_fake
    def _(x):
        return torch.empty_like(x, memory_format=torch.contiguous_format)

    @softmax_bwd_op.register_fake
    def _(dy, y):
        return torch.empty_like(y, memory_format=torch.contiguous_format)

    @gated_fwd_op.register_fake
    def _(a, b, kind):
        return torch.empty_like(a, memory_format=torch.contiguous_format)

    @gated_bwd_op.register_fake
    def _(dy, a, b, kind):
        return (torch.empty_like(a, memory_format=torch.contiguous_format),
                torch.empty_like(a, memory_format=torch.contiguous_format))

    @rope_op.register_fake
    def _(x, cos, sin, backward):
        return x.new_empty(x.shape)

    @rope_qk_op.register_fake
    def _(q, k, cos, sin, backward):
        return q.new_empty(q.shape), k.new_empty(k.shape)

    @ce_fwd_op.register_fake
    def _(logits, target, ignore_index, label_smoothing, reduction):
        loss = logits.new_empty(logits.shape[:1] if reduction == 0 else (), dtype=_F32)
        return loss, logits.new_empty(logits.shape[:1], dtype=_F32)

    @ce_bwd_op.register_fake
    def _(dloss, logits, target, lse, ignore_index, label_smoothing, reduction):
        return torch.empty_like(logits, memory_format=torch.contiguous_format)

    @emb_fwd_op.register_fake
    def _(weight, ids):
        return weight.new_empty(tuple(ids.shape) + (weight.shape[-1],))

    @emb_bwd_op.register_fake
    def _(dy, ids, num_embeddings, padding_idx):
        return dy.new_empty((num_embeddings, dy.shape[-1]))
else:  # PyTorch < 2.4: the implementations are called directly
    rms_fwd_op, rms_bwd_op, ln_fwd_op, ln_bwd_op = _rms_fwd, _rms_bwd, _ln_fwd, _ln_bwd
    softmax_fwd_op, softmax_bwd_op, gated_fwd_op, gated_bwd_op = _softmax_fwd, _softmax_bwd, _gated_fwd, _gated_bwd
    rope_op, ce_fwd_op, ce_bwd_op, emb_fwd_op, emb_bwd_op = _rope_fwd, _ce_fwd, _ce_bwd, _emb_fwd, _emb_bwd
    rope_qk_op = _rope_qk_fwd


def _grad_of(param, g):
    """A parameter's gradient in the parameter's own dtype (None when it needs none)."""
    if param is None or g is None:
        return None
    return g.to(param.dtype) if g.dtype != param.dtype else g


# Autograd: one (setup_context, backward) pair per op, used by register_autograd, and by
# the Function classes of the fallback path.

def _rms_setup(ctx, inputs, output):
    x, w, eps, offset = inputs
    ctx.save_for_backward(x, w, output[1])
    ctx.offset = offset


def _rms_backward(ctx, dy, _drstd):
    x, w, rstd = ctx.saved_tensors
    dx, dw = rms_bwd_op(dy, x, w, rstd, ctx.offset)
    return dx, (_grad_of(w, dw) if ctx.needs_input_grad[1] else None), None, None


def _ln_setup(ctx, inputs, output):
    x, w, b, eps = inputs
    ctx.save_for_backward(x, w, b, output[1], output[2])


def _ln_backward(ctx, dy, _dmean, _drstd):
    x, w, b, mean, rstd = ctx.saved_tensors
    dx, dw, db = ln_bwd_op(dy, x, w, mean, rstd)
    return dx, _grad_of(w, dw), _grad_of(b, db), None


def _softmax_setup(ctx, inputs, output):
    ctx.save_for_backward(output)


def _softmax_backward(ctx, dy):
    (y,) = ctx.saved_tensors
    return softmax_bwd_op(dy, y)


def _gated_setup(ctx, inputs, output):
    a, b, kind = inputs
    ctx.save_for_backward(a, b)
    ctx.kind = kind


def _gated_backward(ctx, dy):
    a, b = ctx.saved_tensors
    da, db = gated_bwd_op(dy, a, b, ctx.kind)
    return da, _grad_of(b, db), None


def _rope_setup(ctx, inputs, output):
    x, cos, sin, backward = inputs
    ctx.save_for_backward(cos, sin)
    ctx.backward = backward


def _rope_backward(ctx, dy):
    cos, sin = ctx.saved_tensors
    return rope_op(dy, cos, sin, not ctx.backward), None, None, None


def _rope_qk_setup(ctx, inputs, output):
    q, k, cos, sin, backward = inputs
    ctx.save_for_backward(cos, sin)
    ctx.backward = backward
    ctx.qk_shapes = (q.shape, k.shape)


def _rope_qk_backward(ctx, dq, dk):
    cos, sin = ctx.saved_tensors
    # an output that reached no loss may come without its gradient
    if dq is None:
        dq = cos.new_zeros(ctx.qk_shapes[0], dtype=dk.dtype)
    if dk is None:
        dk = cos.new_zeros(ctx.qk_shapes[1], dtype=dq.dtype)
    gq, gk = rope_qk_op(dq, dk, cos, sin, not ctx.backward)
    return gq, gk, None, None, None


def _ce_setup(ctx, inputs, output):
    logits, target, ignore_index, label_smoothing, reduction = inputs
    ctx.save_for_backward(logits, target, output[1])
    ctx.args = (ignore_index, label_smoothing, reduction)


def _ce_backward(ctx, dloss, _dlse):
    logits, target, lse = ctx.saved_tensors
    return ce_bwd_op(dloss, logits, target, lse, *ctx.args), None, None, None, None


def _emb_setup(ctx, inputs, output):
    weight, ids = inputs
    ctx.save_for_backward(ids)
    ctx.num_embeddings = weight.shape[0]
    ctx.padding_idx = -1


def _emb_backward(ctx, dy):
    (ids,) = ctx.saved_tensors
    return emb_bwd_op(dy, ids, ctx.num_embeddings, ctx.padding_idx), None


# The fourth field: how many leading outputs are differentiable (the rest are statistics).
_AUTOGRAD = [("rms", "rms_fwd_op", _rms_setup, _rms_backward), ("ln", "ln_fwd_op", _ln_setup, _ln_backward),
             ("softmax", "softmax_fwd_op", _softmax_setup, _softmax_backward),
             ("gated", "gated_fwd_op", _gated_setup, _gated_backward),
             ("rope", "rope_op", _rope_setup, _rope_backward), ("ce", "ce_fwd_op", _ce_setup, _ce_backward),
             ("emb", "emb_fwd_op", _emb_setup, _emb_backward),
             ("rope_qk", "rope_qk_op", _rope_qk_setup, _rope_qk_backward, 2)]
_APPLY = {}
for _key, _fwd_name, _setup, _backward, *_n_diff in _AUTOGRAD:
    _fwd = globals()[_fwd_name]
    if HAS_CUSTOM_OP:
        _fwd.register_autograd(_backward, setup_context=_setup)
        _APPLY[_key] = _fwd
    else:
        def _make(fwd, setup, backward, n_diff):
            class Fn(torch.autograd.Function):
                @staticmethod
                def forward(ctx, *args):
                    out = fwd(*args)
                    setup(ctx, args, out)
                    if isinstance(out, tuple) and len(out) > n_diff:  # statistics are not differentiable
                        ctx.mark_non_differentiable(*out[n_diff:])
                    return out

                @staticmethod
                def backward(ctx, *grads):
                    return backward(ctx, *grads)
            return Fn.apply
        _APPLY[_key] = _make(_fwd, _setup, _backward, _n_diff[0] if _n_diff else 1)


# ---------------------------------------------------------------- public functions -------

def rms_norm(x, weight=None, eps=1e-6, offset=0.0):
    """y = x / rms(x) * (weight + offset) over the last dim (Gemma: offset 1.0)."""
    return _APPLY["rms"](x, weight, float(eps), float(offset))[0]


def layer_norm(x, weight=None, bias=None, eps=1e-5):
    return _APPLY["ln"](x, weight, bias, float(eps))[0]


def softmax(x):
    """Softmax over the last dim."""
    return _APPLY["softmax"](x)


def swiglu(a, b):
    """silu(a) * b."""
    return _APPLY["gated"](a, b, -1)


def geglu(a, b, approximate="tanh"):
    """gelu(a) * b; approximate "tanh" or "none" (erf), as F.gelu."""
    return _APPLY["gated"](a, b, {"none": _ok.GELU_NONE, "tanh": _ok.GELU_TANH}[approximate])


def _rope_table(t, batch):
    """cos/sin as opkit takes them, [T,D] or [B,T,D]: Hugging Face's [1,T,D] (one batch
    row broadcast) becomes [T,D]; an already unsqueezed [B,1,T,D] loses the head dim."""
    if t.dim() == 4 and t.shape[1] == 1:
        t = t.squeeze(1)
    if t.dim() == 3 and t.shape[0] == 1 and batch != 1:
        t = t.squeeze(0)
    return t


def apply_rotary(q, k, cos, sin, layout="bhtd"):
    """NeoX rotate-half RoPE on q and k: q, k [B,H,T,D] ("bhtd", Hugging Face's) or
    [B,T,H,D] ("bthd"); cos/sin [T,D] or [B,T,D]. One opkit call for both (rope_qk, any
    head counts: grouped KV heads too); two rope calls where q and k differ in dtype, batch,
    length or head dim."""
    if layout not in ("bhtd", "bthd"):
        raise ValueError(f"layout must be 'bhtd' or 'bthd', not {layout!r}")
    cos, sin = _rope_table(cos, q.shape[0]), _rope_table(sin, q.shape[0])
    qx, kx = (q.transpose(1, 2), k.transpose(1, 2)) if layout == "bhtd" else (q, k)
    if q.dtype == k.dtype and q.dim() == k.dim() == 4 and (qx.shape[:2], qx.shape[3]) == (kx.shape[:2], kx.shape[3]):
        yq, yk = _APPLY["rope_qk"](qx, kx, cos, sin, False)
    else:
        yq, yk = _APPLY["rope"](qx, cos, sin, False), _APPLY["rope"](kx, cos, sin, False)
    return (yq.transpose(1, 2), yk.transpose(1, 2)) if layout == "bhtd" else (yq, yk)


def rope_qk(q, k, cos, sin):
    """apply_rotary for q [B,T,Hq,D] and k [B,T,Hk,D] (opkit's layout) in one opkit call,
    without the fallback: the same B, T, D and dtype, as opkit_rope_qk_forward requires."""
    cos, sin = _rope_table(cos, q.shape[0]), _rope_table(sin, q.shape[0])
    return _APPLY["rope_qk"](q, k, cos, sin, False)


def cross_entropy(logits, target, ignore_index=-100, label_smoothing=0.0, reduction="mean"):
    """F.cross_entropy for logits [N, V] (more leading dims are flattened) and int targets."""
    if reduction not in _REDUCTIONS:
        raise ValueError(f"reduction must be one of {sorted(_REDUCTIONS)}, not {reduction!r}")
    if logits.dim() > 2:
        logits, target = logits.reshape(-1, logits.shape[-1]), target.reshape(-1)
    return _APPLY["ce"](logits, target, int(ignore_index), float(label_smoothing), _REDUCTIONS[reduction])[0]


class _CrossEntropyInPlace(torch.autograd.Function):
    """Liger's memory trick, opt-in: the forward writes the loss's gradient (for an upstream
    gradient of 1) over the logits, so no second logits-sized buffer exists; the backward
    scales it by the upstream gradient in place. The caller's logits are overwritten: use
    it only where nothing else reads them (the logits of an LM head feeding the loss). An
    autograd.Function (a custom op may not both mutate its input and have autograd), so
    torch.compile breaks the graph here; eager mode only."""

    @staticmethod
    def forward(ctx, logits, target, ignore_index, label_smoothing, reduction):
        if logits.stride(-1) != 1:
            raise ValueError("cross_entropy(inplace_backward=True) needs logits whose last dim is contiguous")
        lg = logits.detach()
        loss = torch.empty(lg.shape[:1] if reduction == 0 else (), device=lg.device, dtype=_F32)
        _ok.cross_entropy_forward(lg, _c(target), ignore_index, label_smoothing, reduction, loss, None, lg)
        ctx.save_for_backward(lg)
        ctx.reduction = reduction
        return loss

    @staticmethod
    def backward(ctx, dloss):
        (grad,) = ctx.saved_tensors
        if ctx.reduction == 0:  # per-row upstream gradients
            grad.mul_(dloss.to(grad.dtype).unsqueeze(-1))
        elif not (dloss.numel() == 1 and float(dloss) == 1.0):
            grad.mul_(dloss.to(grad.dtype))
        return grad, None, None, None, None


def cross_entropy_inplace(logits, target, ignore_index=-100, label_smoothing=0.0, reduction="mean"):
    """cross_entropy whose gradient overwrites `logits` (see _CrossEntropyInPlace)."""
    if reduction not in _REDUCTIONS:
        raise ValueError(f"reduction must be one of {sorted(_REDUCTIONS)}, not {reduction!r}")
    if logits.dim() > 2:
        logits, target = logits.reshape(-1, logits.shape[-1]), target.reshape(-1)
    return _CrossEntropyInPlace.apply(logits, target, int(ignore_index), float(label_smoothing), _REDUCTIONS[reduction])


def embedding(ids, weight):
    """weight[ids]; the gradient of weight accumulated in fp32."""
    return _APPLY["emb"](weight, ids)
