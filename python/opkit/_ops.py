"""The ops of opkit.h, one Python function each, same argument order and meaning as in
C. Tensors: anything with __dlpack__ (or a NumPy array); None where C takes NULL.
stream: None = the current stream of the framework owning the tensors (see
_tensors.prepare), or an int handle (CUstream, hipStream_t, aclrtStream)."""
from ._errors import check
from ._library import lib
from ._tensors import prepare

# The C functions, looked up once (lib.<name> is an attribute lookup per call otherwise).
_rms_norm_forward_c = lib.opkit_rms_norm_forward
_rms_norm_backward_c = lib.opkit_rms_norm_backward
_layer_norm_forward_c = lib.opkit_layer_norm_forward
_layer_norm_backward_c = lib.opkit_layer_norm_backward
_softmax_forward_c = lib.opkit_softmax_forward
_softmax_backward_c = lib.opkit_softmax_backward
_swiglu_forward_c = lib.opkit_swiglu_forward
_swiglu_backward_c = lib.opkit_swiglu_backward
_geglu_forward_c = lib.opkit_geglu_forward
_geglu_backward_c = lib.opkit_geglu_backward
_rope_forward_c = lib.opkit_rope_forward
_rope_backward_c = lib.opkit_rope_backward
_cross_entropy_forward_c = lib.opkit_cross_entropy_forward
_cross_entropy_backward_c = lib.opkit_cross_entropy_backward
_embedding_forward_c = lib.opkit_embedding_forward
_embedding_backward_c = lib.opkit_embedding_backward
_matmul_c = lib.opkit_matmul
_axpy_c = lib.opkit_axpy
_rope_qk_forward_c = lib.opkit_rope_qk_forward
_rope_qk_backward_c = lib.opkit_rope_qk_backward

REDUCTION_NONE = 0
REDUCTION_MEAN = 1
REDUCTION_SUM = 2
GELU_NONE = 0
GELU_TANH = 1


def rms_norm_forward(x, weight, eps, weight_offset, y, rstd=None, *, stream=None):
    s, (tx, tw, ty, tr), keep = prepare(stream, (x, weight, y, rstd))
    status = _rms_norm_forward_c(tx, tw, eps, weight_offset, ty, tr, s)
    if status:
        check(status)


def rms_norm_backward(dy, x, weight, rstd, weight_offset, dx, dweight=None, *, stream=None):
    s, (tdy, tx, tw, tr, tdx, tdw), keep = prepare(stream, (dy, x, weight, rstd, dx, dweight))
    status = _rms_norm_backward_c(tdy, tx, tw, tr, weight_offset, tdx, tdw, s)
    if status:
        check(status)


def layer_norm_forward(x, weight, bias, eps, y, mean=None, rstd=None, *, stream=None):
    s, (tx, tw, tb, ty, tm, tr), keep = prepare(stream, (x, weight, bias, y, mean, rstd))
    status = _layer_norm_forward_c(tx, tw, tb, eps, ty, tm, tr, s)
    if status:
        check(status)


def layer_norm_backward(dy, x, weight, mean, rstd, dx, dweight=None, dbias=None, *,
                        stream=None):
    s, t, keep = prepare(stream, (dy, x, weight, mean, rstd, dx, dweight, dbias))
    status = _layer_norm_backward_c(*t, s)
    if status:
        check(status)


def softmax_forward(x, y, *, stream=None):
    s, (tx, ty), keep = prepare(stream, (x, y))
    status = _softmax_forward_c(tx, ty, s)
    if status:
        check(status)


def softmax_backward(dy, y, dx, *, stream=None):
    s, (tdy, ty, tdx), keep = prepare(stream, (dy, y, dx))
    status = _softmax_backward_c(tdy, ty, tdx, s)
    if status:
        check(status)


def swiglu_forward(a, b, y, *, stream=None):
    s, (ta, tb, ty), keep = prepare(stream, (a, b, y))
    status = _swiglu_forward_c(ta, tb, ty, s)
    if status:
        check(status)


def swiglu_backward(dy, a, b, da, db, *, stream=None):
    s, (tdy, ta, tb, tda, tdb), keep = prepare(stream, (dy, a, b, da, db))
    status = _swiglu_backward_c(tdy, ta, tb, tda, tdb, s)
    if status:
        check(status)


def geglu_forward(a, b, approximate, y, *, stream=None):
    s, (ta, tb, ty), keep = prepare(stream, (a, b, y))
    status = _geglu_forward_c(ta, tb, approximate, ty, s)
    if status:
        check(status)


def geglu_backward(dy, a, b, approximate, da, db, *, stream=None):
    s, (tdy, ta, tb, tda, tdb), keep = prepare(stream, (dy, a, b, da, db))
    status = _geglu_backward_c(tdy, ta, tb, approximate, tda, tdb, s)
    if status:
        check(status)


def rope_forward(x, cos, sin, y, *, stream=None):
    s, (tx, tc, ts, ty), keep = prepare(stream, (x, cos, sin, y))
    status = _rope_forward_c(tx, tc, ts, ty, s)
    if status:
        check(status)


def rope_backward(dy, cos, sin, dx, *, stream=None):
    s, (tdy, tc, ts, tdx), keep = prepare(stream, (dy, cos, sin, dx))
    status = _rope_backward_c(tdy, tc, ts, tdx, s)
    if status:
        check(status)


def cross_entropy_forward(logits, target, ignore_index, label_smoothing, reduction, loss,
                          lse=None, dlogits=None, *, stream=None):
    s, (tl, tt, tloss, tlse, td), keep = prepare(stream, (logits, target, loss, lse, dlogits))
    status = _cross_entropy_forward_c(tl, tt, ignore_index, label_smoothing, reduction,
                                      tloss, tlse, td, s)
    if status:
        check(status)


def cross_entropy_backward(dloss, logits, target, lse, ignore_index, label_smoothing,
                           reduction, dlogits, *, stream=None):
    s, (tdl, tl, tt, tlse, td), keep = prepare(stream, (dloss, logits, target, lse, dlogits))
    status = _cross_entropy_backward_c(tdl, tl, tt, tlse, ignore_index, label_smoothing,
                                       reduction, td, s)
    if status:
        check(status)


def embedding_forward(weight, ids, y, *, stream=None):
    s, (tw, ti, ty), keep = prepare(stream, (weight, ids, y))
    status = _embedding_forward_c(tw, ti, ty, s)
    if status:
        check(status)


def embedding_backward(dy, ids, padding_idx, dweight, *, stream=None):
    s, (tdy, ti, tdw), keep = prepare(stream, (dy, ids, dweight))
    status = _embedding_backward_c(tdy, ti, padding_idx, tdw, s)
    if status:
        check(status)


def matmul(a, b, c, alpha=1.0, beta=0.0, trans_a=0, trans_b=0, *, stream=None):
    s, (ta, tb, tc), keep = prepare(stream, (a, b, c))
    status = _matmul_c(ta, tb, tc, alpha, beta, 1 if trans_a else 0, 1 if trans_b else 0, s)
    if status:
        check(status)


def axpy(alpha, x, y, *, stream=None):
    s, (tx, ty), keep = prepare(stream, (x, y))
    status = _axpy_c(alpha, tx, ty, s)
    if status:
        check(status)


def rope_qk_forward(q, k, cos, sin, q_out, k_out, *, stream=None):
    s, (tq, tk, tc, ts, tqo, tko), keep = prepare(stream, (q, k, cos, sin, q_out, k_out))
    status = _rope_qk_forward_c(tq, tk, tc, ts, tqo, tko, s)
    if status:
        check(status)


def rope_qk_backward(dq_out, dk_out, cos, sin, dq, dk, *, stream=None):
    s, (tdqo, tdko, tc, ts, tdq, tdk), keep = prepare(stream, (dq_out, dk_out, cos, sin, dq, dk))
    status = _rope_qk_backward_c(tdqo, tdko, tc, ts, tdq, tdk, s)
    if status:
        check(status)

__all__ = ['rms_norm_forward', 'rms_norm_backward', 'layer_norm_forward', 'layer_norm_backward', 'softmax_forward', 'softmax_backward', 'swiglu_forward', 'swiglu_backward', 'geglu_forward', 'geglu_backward', 'rope_forward', 'rope_backward', 'cross_entropy_forward', 'cross_entropy_backward', 'embedding_forward', 'embedding_backward', 'matmul', 'axpy', 'rope_qk_forward', 'rope_qk_backward', 'REDUCTION_NONE', 'REDUCTION_MEAN', 'REDUCTION_SUM', 'GELU_NONE', 'GELU_TANH']
