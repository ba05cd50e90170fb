"""Every op through the Python binding on NumPy arrays (CPU defaults), forward and
backward, f32/f16/bf16, contiguous and strided, against float64 references."""
import numpy as np
import pytest

import opkit
import reference as ref

DT = list(ref.DTYPES)


def poisoned(shape, dtype):
    """An output that is all NaN, so an element the op forgets to write fails."""
    return np.full(shape, np.nan, dtype=dtype)


def rows_input(rng, rows, n, dtype, strided):
    """[rows, n]; with strided, a view into wider rows (row stride n + 5)."""
    if strided:
        return ref.rand(rng, (rows, n + 5), dtype)[:, :n]
    return ref.rand(rng, (rows, n), dtype)


@pytest.mark.parametrize("dt", DT)
@pytest.mark.parametrize("strided", [False, True])
@pytest.mark.parametrize("n", [1, 3, 127, 4097])
def test_rms_norm(rng, dt, strided, n):
    dtype = ref.DTYPES[dt]
    x = rows_input(rng, 5, n, dtype, strided)
    w = ref.rand(rng, (n,), dtype)
    y, rstd = poisoned((5, n), dtype), poisoned((5,), np.float32)
    opkit.rms_norm_forward(x, w, 1e-6, 0.5, y, rstd)
    y_ref, r_ref = ref.rms_norm(x, w, 1e-6, 0.5)
    ref.close(y, y_ref, dt, "rms_norm_forward", "y")
    ref.close(rstd, r_ref, "f32", "rms_norm_forward", "rstd")

    dy = rows_input(rng, 5, n, dtype, strided)
    dx, dw = poisoned((5, n), dtype), poisoned((n,), dtype)
    opkit.rms_norm_backward(dy, x, w, rstd, 0.5, dx, dw)
    dx_ref, dw_ref = ref.rms_norm_bwd(dy, x, w, rstd, 0.5)
    # dx is a difference of two terms of size |dy·w·rstd|; with N = 1 they cancel to
    # ~eps, so the error is measured against the terms, not the tiny result.
    terms = float(np.max(np.abs(ref.f64(dy) * (ref.f64(w) + 0.5) * ref.f64(rstd)[:, None])))
    ref.close(dx, dx_ref, dt, "rms_norm_backward", "dx", floor=terms)
    ref.close(dw, dw_ref, dt, "rms_norm_backward", "dweight")


@pytest.mark.parametrize("dt", DT)
@pytest.mark.parametrize("strided", [False, True])
def test_layer_norm(rng, dt, strided):
    dtype, n = ref.DTYPES[dt], 127
    x = rows_input(rng, 7, n, dtype, strided)
    w, b = ref.rand(rng, (n,), dtype), ref.rand(rng, (n,), dtype)
    y = poisoned((7, n), dtype)
    mean, rstd = poisoned((7,), np.float32), poisoned((7,), np.float32)
    opkit.layer_norm_forward(x, w, b, 1e-5, y, mean, rstd)
    y_ref, m_ref, r_ref = ref.layer_norm(x, w, b, 1e-5)
    ref.close(y, y_ref, dt, "layer_norm_forward", "y")
    ref.close(mean, m_ref, "f32", "layer_norm_forward", "mean", floor=1.0)
    ref.close(rstd, r_ref, "f32", "layer_norm_forward", "rstd")

    dy = rows_input(rng, 7, n, dtype, strided)
    dx, dw, db = poisoned((7, n), dtype), poisoned((n,), dtype), poisoned((n,), dtype)
    opkit.layer_norm_backward(dy, x, w, mean, rstd, dx, dw, db)
    dx_ref, dw_ref, db_ref = ref.layer_norm_bwd(dy, x, w, mean, rstd)
    ref.close(dx, dx_ref, dt, "layer_norm_backward", "dx")
    ref.close(dw, dw_ref, dt, "layer_norm_backward", "dweight")
    ref.close(db, db_ref, dt, "layer_norm_backward", "dbias")


@pytest.mark.parametrize("dt", DT)
@pytest.mark.parametrize("n", [1, 127, 4097])
def test_softmax(rng, dt, n):
    dtype = ref.DTYPES[dt]
    x = rows_input(rng, 3, n, dtype, True)
    y = poisoned((3, n), dtype)
    opkit.softmax_forward(x, y)
    ref.close(y, ref.softmax(x), dt, "softmax_forward", "y")
    dy, dx = ref.rand(rng, (3, n), dtype), poisoned((3, n), dtype)
    opkit.softmax_backward(dy, y, dx)
    ref.close(dx, ref.softmax_bwd(dy, y), dt, "softmax_backward", "dx")


@pytest.mark.parametrize("dt", DT)
@pytest.mark.parametrize("gate", ["swiglu", "geglu-erf", "geglu-tanh"])
def test_gated(rng, dt, gate):
    dtype, shape = ref.DTYPES[dt], (4, 129)
    a, b, dy = (rows_input(rng, *shape, dtype, True) for _ in range(3))
    y, da, db = (poisoned(shape, dtype) for _ in range(3))
    if gate == "swiglu":
        opkit.swiglu_forward(a, b, y)
        opkit.swiglu_backward(dy, a, b, da, db)
        y_ref, (da_ref, db_ref) = ref.swiglu(a, b), ref.swiglu_bwd(dy, a, b)
    else:
        approx = opkit.GELU_TANH if gate.endswith("tanh") else opkit.GELU_NONE
        opkit.geglu_forward(a, b, approx, y)
        opkit.geglu_backward(dy, a, b, approx, da, db)
        y_ref, (da_ref, db_ref) = ref.geglu(a, b, approx), ref.geglu_bwd(dy, a, b, approx)
    fwd, bwd = ("swiglu_forward", "swiglu_backward") if gate == "swiglu" else ("geglu_forward", "geglu_backward")
    ref.close(y, y_ref, dt, fwd, "y")
    ref.close(da, da_ref, dt, bwd, "da")
    ref.close(db, db_ref, dt, bwd, "db")


@pytest.mark.parametrize("dt", DT)
@pytest.mark.parametrize("batched_angles", [False, True])
def test_rope(rng, dt, batched_angles):
    dtype, (B, T, H, D) = ref.DTYPES[dt], (2, 5, 3, 8)
    x = ref.rand(rng, (B, T, H, D), dtype)
    ang = rng.uniform(0, 6.28, (B, T, D // 2) if batched_angles else (T, D // 2))
    cos = np.concatenate([np.cos(ang)] * 2, -1).astype(dtype)
    sin = np.concatenate([np.sin(ang)] * 2, -1).astype(dtype)
    y, dx = poisoned(x.shape, dtype), poisoned(x.shape, dtype)
    opkit.rope_forward(x, cos, sin, y)
    ref.close(y, ref.rope(x, cos, sin), dt, "rope_forward", "y")
    opkit.rope_backward(y, cos, sin, dx)
    ref.close(dx, ref.rope_bwd(y, cos, sin), dt, "rope_backward", "dx")


@pytest.mark.parametrize("dt", DT)
@pytest.mark.parametrize("batched_angles", [False, True])
@pytest.mark.parametrize("fused", [False, True], ids=["separate", "fused-qkv"])
def test_rope_qk(rng, dt, batched_angles, fused):
    """rope_qk = rope of q and of k (Hq != Hk), bit for bit; q and k may be views into one
    fused qkv buffer, outputs may be their inputs."""
    dtype, (B, T, Hq, Hk, Hv, D) = ref.DTYPES[dt], (2, 5, 4, 2, 2, 8)
    if fused:
        qkv = ref.rand(rng, (B, T, Hq + Hk + Hv, D), dtype)
        q, k = qkv[:, :, :Hq], qkv[:, :, Hq:Hq + Hk]
    else:
        q, k = ref.rand(rng, (B, T, Hq, D), dtype), ref.rand(rng, (B, T, Hk, D), dtype)
    ang = rng.uniform(0, 6.28, (B, T, D // 2) if batched_angles else (T, D // 2))
    cos = np.concatenate([np.cos(ang)] * 2, -1).astype(dtype)
    sin = np.concatenate([np.sin(ang)] * 2, -1).astype(dtype)
    q_out, k_out = poisoned(q.shape, dtype), poisoned(k.shape, dtype)
    opkit.rope_qk_forward(q, k, cos, sin, q_out, k_out)
    ref.close(q_out, ref.rope(q, cos, sin), dt, "rope_qk_forward", "q_out")
    ref.close(k_out, ref.rope(k, cos, sin), dt, "rope_qk_forward", "k_out")
    q1, k1 = poisoned(q.shape, dtype), poisoned(k.shape, dtype)
    opkit.rope_forward(q, cos, sin, q1)
    opkit.rope_forward(k, cos, sin, k1)
    assert q_out.tobytes() == q1.tobytes() and k_out.tobytes() == k1.tobytes()
    dq, dk = poisoned(q.shape, dtype), poisoned(k.shape, dtype)
    opkit.rope_qk_backward(q_out, k_out, cos, sin, dq, dk)
    ref.close(dq, ref.rope_bwd(q_out, cos, sin), dt, "rope_qk_backward", "dq")
    ref.close(dk, ref.rope_bwd(k_out, cos, sin), dt, "rope_qk_backward", "dk")
    # in place (on the fused buffer: its v heads untouched)
    before = q.copy(), k.copy(), (qkv[:, :, Hq + Hk:].copy() if fused else None)
    opkit.rope_qk_forward(q, k, cos, sin, q, k)
    assert q.tobytes() == q1.tobytes() and k.tobytes() == k1.tobytes()
    if fused:
        assert qkv[:, :, Hq + Hk:].tobytes() == before[2].tobytes()
    opkit.rope_qk_backward(q, k, cos, sin, q, k)
    ref.close(q, ref.rope_bwd(q1, cos, sin), dt, "rope_qk_backward", "dq")
    ref.close(k, ref.rope_bwd(k1, cos, sin), dt, "rope_qk_backward", "dk")


def test_rope_qk_errors():
    """k's B, T, D and dtype must be q's; outputs may alias only their own input."""
    q, cos, sin = np.ones((2, 3, 4, 8), np.float32), np.ones((3, 8), np.float32), np.ones((3, 8), np.float32)
    q_out = np.full_like(q, np.nan)
    with pytest.raises(opkit.InvalidArgumentError, match="rope_qk_forward: k has shape"):
        opkit.rope_qk_forward(q, np.ones((2, 4, 2, 8), np.float32), cos, sin, q_out, np.empty((2, 4, 2, 8), np.float32))
    with pytest.raises(opkit.InvalidArgumentError, match="rope_qk_forward: k has dtype f16 but q has f32"):
        opkit.rope_qk_forward(q, np.ones((2, 3, 2, 8), np.float16), cos, sin, q_out, np.empty((2, 3, 2, 8), np.float16))
    k = np.ones((2, 3, 2, 8), np.float32)
    with pytest.raises(opkit.InvalidArgumentError, match="rope_qk_backward: output dq overlaps dk_out"):
        opkit.rope_qk_backward(q[:, :, :2], k, cos, sin, k, k)
    assert np.isnan(q_out).all()


@pytest.mark.parametrize("dt", DT)
@pytest.mark.parametrize("reduction", [0, 1, 2])
@pytest.mark.parametrize("smoothing", [0.0, 0.1])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_cross_entropy(rng, dt, reduction, smoothing, index_dtype):
    dtype, rows, v = ref.DTYPES[dt], 6, 1000
    logits = ref.rand(rng, (rows, v), dtype, scale=3.0)
    target = rng.integers(0, v, rows).astype(index_dtype)
    target[2] = -100
    loss = poisoned((rows,) if reduction == 0 else (), np.float32)
    lse, dlogits = poisoned((rows,), np.float32), poisoned((rows, v), dtype)
    opkit.cross_entropy_forward(logits, target, -100, smoothing, reduction, loss, lse, dlogits)
    l_ref, lse_ref, g_ref = ref.cross_entropy(logits, target, -100, smoothing, reduction)
    ref.close(loss, l_ref, "f32", "cross_entropy_forward", "loss")
    ref.close(lse, lse_ref, "f32", "cross_entropy_forward", "lse")
    ref.close(dlogits, g_ref, dt, "cross_entropy_forward", "dlogits")

    dloss = (rng.standard_normal(rows) if reduction == 0 else np.array(1.5)).astype(np.float32)
    dl = poisoned((rows, v), dtype)
    opkit.cross_entropy_backward(dloss, logits, target, None, -100, smoothing, reduction, dl)
    scale = dloss[:, None] if reduction == 0 else dloss
    ref.close(dl, g_ref * ref.f64(scale), dt, "cross_entropy_backward", "dlogits")


def test_cross_entropy_all_rows_ignored_is_nan_like_pytorch(rng):
    logits = ref.rand(rng, (3, 10), np.float32)
    target = np.full(3, -100, dtype=np.int64)
    loss, dlogits = poisoned((), np.float32), poisoned((3, 10), np.float32)
    opkit.cross_entropy_forward(logits, target, -100, 0.0, opkit.REDUCTION_MEAN, loss, None,
                                dlogits)
    assert np.isnan(loss)
    assert np.all(dlogits == 0)


@pytest.mark.parametrize("dt", DT)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_embedding(rng, dt, index_dtype):
    dtype, v, d = ref.DTYPES[dt], 11, 6
    w = ref.rand(rng, (v, d), dtype)
    ids = rng.integers(0, v, (3, 4)).astype(index_dtype)
    ids[0, 0] = ids[1, 1] = 4  # a repeated id accumulates in the backward
    y = poisoned((3, 4, d), dtype)
    opkit.embedding_forward(w, ids, y)
    ref.close(y, ref.f64(w)[ids], dt, "embedding_forward", "y")
    dy, dw = ref.rand(rng, (3, 4, d), dtype), poisoned((v, d), dtype)
    opkit.embedding_backward(dy, ids, 4, dw)
    ref.close(dw, ref.embedding_bwd(dy, ids, 4, v), dt, "embedding_backward", "dweight")
    assert np.all(ref.f64(dw)[4] == 0)  # padding_idx contributes nothing


@pytest.mark.parametrize("dt", DT)
@pytest.mark.parametrize("trans_a,trans_b", [(0, 0), (1, 0), (0, 1), (1, 1)])
def test_matmul(rng, dt, trans_a, trans_b):
    dtype, (m, k, n) = ref.DTYPES[dt], (17, 33, 9)
    a = ref.rand(rng, (k, m) if trans_a else (m, k), dtype)
    b = ref.rand(rng, (n, k) if trans_b else (k, n), dtype)
    c = ref.rand(rng, (m, n), dtype)
    expected = 0.5 * (ref.f64(a).T if trans_a else ref.f64(a)) @ (ref.f64(b).T if trans_b else ref.f64(b)) \
        + 2.0 * ref.f64(c)
    opkit.matmul(a, b, c, 0.5, 2.0, trans_a, trans_b)
    ref.close(c, expected, dt, "matmul", "c")


def test_matmul_batched_broadcast(rng):
    a = ref.rand(rng, (3, 4, 5), np.float32)
    b = ref.rand(rng, (1, 5, 6), np.float32)
    c = poisoned((3, 4, 6), np.float32)
    opkit.matmul(a, b, c)  # beta = 0: c is not read, the NaN poison must not propagate
    ref.close(c, ref.f64(a) @ ref.f64(b), "f32", "matmul", "c")


@pytest.mark.parametrize("dt", DT)
def test_axpy(rng, dt):
    dtype = ref.DTYPES[dt]
    x, y = ref.rand(rng, (3, 50), dtype), ref.rand(rng, (3, 50), dtype)
    expected = ref.f64(y) - 0.25 * ref.f64(x)
    opkit.axpy(-0.25, x, y)
    ref.close(y, expected, dt, "axpy", "y")


def test_in_place_forward_is_allowed(rng):
    x = ref.rand(rng, (4, 64), np.float32)
    expected = ref.softmax(x)
    opkit.softmax_forward(x, x)
    ref.close(x, expected, "f32", "softmax_forward", "y")


def test_read_only_input_goes_through_array_interface(rng):
    x = ref.rand(rng, (2, 16), np.float32)
    x.flags.writeable = False  # DLPack cannot export it; __array_interface__ can
    y = poisoned((2, 16), np.float32)
    opkit.softmax_forward(x, y)
    ref.close(y, ref.softmax(x), "f32", "softmax_forward", "y")


@pytest.mark.skipif(ref.BF16 is None, reason="ml_dtypes is not installed: no NumPy bfloat16")
def test_bf16_array_reports_bf16_to_opkit(rng):
    x = ref.rand(rng, (2, 8), ref.BF16)
    with pytest.raises(opkit.InvalidArgumentError, match="dtype"):
        opkit.softmax_forward(x, np.empty((2, 8), np.float32))  # bf16 in, f32 out: mixed
