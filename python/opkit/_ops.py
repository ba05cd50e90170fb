"""The ops of opkit.h, one Python function each, same argument order and meaning as in
C. Tensors: anything with __dlpack__ (or a NumPy array); None where C takes NULL.
stream: None = the current stream of the framework owning the tensors (see
_tensors.prepare), or an int handle (CUstream, hipStream_t, aclrtStream)."""
from ._errors import check
from ._library import lib
from ._tensors import prepare

REDUCTION_NONE = 0
REDUCTION_MEAN = 1
REDUCTION_SUM = 2
GELU_NONE = 0
GELU_TANH = 1


def rms_norm_forward(x, weight, eps, weight_offset, y, rstd=None, *, stream=None):
    s, (tx, tw, ty, tr), keep = prepare(stream, (x, weight, y, rstd))
    check(lib.opkit_rms_norm_forward(tx, tw, eps, weight_offset, ty, tr, s))


def rms_norm_backward(dy, x, weight, rstd, weight_offset, dx, dweight=None, *, stream=None):
    s, (tdy, tx, tw, tr, tdx, tdw), keep = prepare(stream, (dy, x, weight, rstd, dx, dweight))
    check(lib.opkit_rms_norm_backward(tdy, tx, tw, tr, weight_offset, tdx, tdw, s))


def layer_norm_forward(x, weight, bias, eps, y, mean=None, rstd=None, *, stream=None):
    s, (tx, tw, tb, ty, tm, tr), keep = prepare(stream, (x, weight, bias, y, mean, rstd))
    check(lib.opkit_layer_norm_forward(tx, tw, tb, eps, ty, tm, tr, s))


def layer_norm_backward(dy, x, weight, mean, rstd, dx, dweight=None, dbias=None, *,
                        stream=None):
    s, t, keep = prepare(stream, (dy, x, weight, mean, rstd, dx, dweight, dbias))
    check(lib.opkit_layer_norm_backward(*t, s))


def softmax_forward(x, y, *, stream=None):
    s, (tx, ty), keep = prepare(stream, (x, y))
    check(lib.opkit_softmax_forward(tx, ty, s))


def softmax_backward(dy, y, dx, *, stream=None):
    s, (tdy, ty, tdx), keep = prepare(stream, (dy, y, dx))
    check(lib.opkit_softmax_backward(tdy, ty, tdx, s))


def swiglu_forward(a, b, y, *, stream=None):
    s, (ta, tb, ty), keep = prepare(stream, (a, b, y))
    check(lib.opkit_swiglu_forward(ta, tb, ty, s))


def swiglu_backward(dy, a, b, da, db, *, stream=None):
    s, (tdy, ta, tb, tda, tdb), keep = prepare(stream, (dy, a, b, da, db))
    check(lib.opkit_swiglu_backward(tdy, ta, tb, tda, tdb, s))


def geglu_forward(a, b, approximate, y, *, stream=None):
    s, (ta, tb, ty), keep = prepare(stream, (a, b, y))
    check(lib.opkit_geglu_forward(ta, tb, approximate, ty, s))


def geglu_backward(dy, a, b, approximate, da, db, *, stream=None):
    s, (tdy, ta, tb, tda, tdb), keep = prepare(stream, (dy, a, b, da, db))
    check(lib.opkit_geglu_backward(tdy, ta, tb, approximate, tda, tdb, s))


def rope_forward(x, cos, sin, y, *, stream=None):
    s, (tx, tc, ts, ty), keep = prepare(stream, (x, cos, sin, y))
    check(lib.opkit_rope_forward(tx, tc, ts, ty, s))


def rope_backward(dy, cos, sin, dx, *, stream=None):
    s, (tdy, tc, ts, tdx), keep = prepare(stream, (dy, cos, sin, dx))
    check(lib.opkit_rope_backward(tdy, tc, ts, tdx, s))


def cross_entropy_forward(logits, target, ignore_index, label_smoothing, reduction, loss,
                          lse=None, dlogits=None, *, stream=None):
    s, (tl, tt, tloss, tlse, td), keep = prepare(stream, (logits, target, loss, lse, dlogits))
    check(lib.opkit_cross_entropy_forward(tl, tt, ignore_index, label_smoothing, reduction,
                                          tloss, tlse, td, s))


def cross_entropy_backward(dloss, logits, target, lse, ignore_index, label_smoothing,
                           reduction, dlogits, *, stream=None):
    s, (tdl, tl, tt, tlse, td), keep = prepare(stream, (dloss, logits, target, lse, dlogits))
    check(lib.opkit_cross_entropy_backward(tdl, tl, tt, tlse, ignore_index, label_smoothing,
                                           reduction, td, s))


def embedding_forward(weight, ids, y, *, stream=None):
    s, (tw, ti, ty), keep = prepare(stream, (weight, ids, y))
    check(lib.opkit_embedding_forward(tw, ti, ty, s))


def embedding_backward(dy, ids, padding_idx, dweight, *, stream=None):
    s, (tdy, ti, tdw), keep = prepare(stream, (dy, ids, dweight))
    check(lib.opkit_embedding_backward(tdy, ti, padding_idx, tdw, s))


def matmul(a, b, c, alpha=1.0, beta=0.0, trans_a=0, trans_b=0, *, stream=None):
    s, (ta, tb, tc), keep = prepare(stream, (a, b, c))
    check(lib.opkit_matmul(ta, tb, tc, alpha, beta, int(bool(trans_a)), int(bool(trans_b)), s))


def axpy(alpha, x, y, *, stream=None):
    s, (tx, ty), keep = prepare(stream, (x, y))
    check(lib.opkit_axpy(alpha, tx, ty, s))

__all__ = ['rms_norm_forward', 'rms_norm_backward', 'layer_norm_forward', 'layer_norm_backward', 'softmax_forward', 'softmax_backward', 'swiglu_forward', 'swiglu_backward', 'geglu_forward', 'geglu_backward', 'rope_forward', 'rope_backward', 'cross_entropy_forward', 'cross_entropy_backward', 'embedding_forward', 'embedding_backward', 'matmul', 'axpy', 'REDUCTION_NONE', 'REDUCTION_MEAN', 'REDUCTION_SUM', 'GELU_NONE', 'GELU_TANH']
