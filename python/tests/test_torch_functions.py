"""opkit.torch on the CPU: every function's forward and gradients against the same math in
float64 through PyTorch's autograd, gradcheck through f32, the modules, mixed precision.
Runs with any PyTorch (Debian 12's 1.13 takes the torch.autograd.Function path; >= 2.4 the
custom-op path); skipped, visibly, without PyTorch. GPU, torch.compile, CUDA graphs and
Hugging Face patching: test_torch_gpu.py."""
import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402

import opkit  # noqa: E402
import opkit.torch as okt  # noqa: E402

RTOL, ATOL = 2e-5, 2e-6  # f32 kernels against f64 math (docs/tolerances.md's f32 scale)


def leaf(*shape, scale=1.0, dtype=torch.float32):
    return (torch.randn(*shape, dtype=torch.float64) * scale).to(dtype).requires_grad_()


def check(fn, ref, inputs, grad_out=None, rtol=RTOL, atol=ATOL):
    """fn(*inputs) against ref(*inputs in f64): outputs, and the gradients of every input
    that requires them."""
    out = fn(*inputs)
    refs = [x.detach().double().requires_grad_(x.requires_grad) if torch.is_tensor(x) and x.is_floating_point()
            else x for x in inputs]
    want = ref(*refs)
    torch.testing.assert_close(out.double(), want, rtol=rtol, atol=atol)
    g = torch.randn_like(want) if grad_out is None else grad_out
    diff = [x for x in inputs if torch.is_tensor(x) and x.requires_grad]
    diff_ref = [x for x in refs if torch.is_tensor(x) and x.requires_grad]
    got = torch.autograd.grad(out, diff, g.to(out.dtype))
    exp = torch.autograd.grad(want, diff_ref, g.double())
    for a, b in zip(got, exp):
        torch.testing.assert_close(a.double(), b, rtol=rtol * 10, atol=atol * 10)
    return out


@pytest.fixture(autouse=True)
def seed():
    torch.manual_seed(0)


def ref_rms(x, w, eps=1e-6, offset=0.0):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * (w + offset)


def test_rms_norm_llama_and_gemma_forms():
    x, w = leaf(4, 7, 32), leaf(32)
    check(lambda x, w: okt.rms_norm(x, w, 1e-6), ref_rms, (x, w))
    check(lambda x, w: okt.rms_norm(x, w, 1e-6, 1.0), lambda x, w: ref_rms(x, w, 1e-6, 1.0), (x, w))
    assert opkit.last_dispatch().served_by == "default"  # the backward ran on opkit's kernels


def test_layer_norm():
    x, w, b = leaf(5, 40), leaf(40), leaf(40)
    check(lambda x, w, b: okt.layer_norm(x, w, b, 1e-5),
          lambda x, w, b: F.layer_norm(x, (40,), w, b, 1e-5), (x, w, b))


def test_softmax():
    check(okt.softmax, lambda x: torch.softmax(x, -1), (leaf(6, 33, scale=3.0),))


def test_swiglu_and_geglu():
    a, b = leaf(3, 4, 24), leaf(3, 4, 24)
    check(okt.swiglu, lambda a, b: F.silu(a) * b, (a, b))
    check(lambda a, b: okt.geglu(a, b, "tanh"), lambda a, b: F.gelu(a, approximate="tanh") * b, (a, b))
    check(lambda a, b: okt.geglu(a, b, "none"), lambda a, b: F.gelu(a) * b, (a, b))


def hf_rope(q, k, cos, sin, unsqueeze_dim=1):
    def rot(v):
        h = v.shape[-1] // 2
        return torch.cat((-v[..., h:], v[..., :h]), -1)
    cos, sin = cos.unsqueeze(unsqueeze_dim), sin.unsqueeze(unsqueeze_dim)
    return q * cos + rot(q) * sin, k * cos + rot(k) * sin


@pytest.mark.parametrize("layout", ["bhtd", "bthd"])
def test_apply_rotary_both_layouts(layout):
    B, T, Hq, Hk, D = 2, 5, 4, 2, 16
    ang = torch.rand(B, T, D // 2, dtype=torch.float64) * 6.0
    cos, sin = torch.cat([ang.cos()] * 2, -1).float(), torch.cat([ang.sin()] * 2, -1).float()
    # Hugging Face's q is a transposed view of the projection's [B,T,H,D] memory.
    qm, km = leaf(B, T, Hq, D), leaf(B, T, Hk, D)
    q, k = (qm.transpose(1, 2), km.transpose(1, 2)) if layout == "bhtd" else (qm, km)
    ud = 1 if layout == "bhtd" else 2
    q2, k2 = okt.apply_rotary(q, k, cos, sin, layout)
    qr, kr = hf_rope(q.detach().double(), k.detach().double(), cos.double(), sin.double(), ud)
    torch.testing.assert_close(q2.double(), qr, rtol=RTOL, atol=ATOL)
    torch.testing.assert_close(k2.double(), kr, rtol=RTOL, atol=ATOL)
    gq, gk = torch.randn_like(q2), torch.randn_like(k2)
    dqm, dkm = torch.autograd.grad((q2, k2), (qm, km), (gq, gk))
    qd, kd = qm.detach().double().requires_grad_(), km.detach().double().requires_grad_()
    qv, kv = (qd.transpose(1, 2), kd.transpose(1, 2)) if layout == "bhtd" else (qd, kd)
    qr, kr = hf_rope(qv, kv, cos.double(), sin.double(), ud)
    eq, ek = torch.autograd.grad((qr, kr), (qd, kd), (gq.double(), gk.double()))
    torch.testing.assert_close(dqm.double(), eq, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(dkm.double(), ek, rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError):
        okt.apply_rotary(q, k, cos, sin, "thbd")


def test_apply_rotary_is_one_rope_qk_call_forward_and_backward():
    """q and k (grouped KV heads) go through one opkit call each way: the last op call of
    the forward and of the backward is rope_qk's."""
    B, T, Hq, Hk, D = 2, 3, 4, 2, 8
    ang = torch.rand(B, T, D // 2, dtype=torch.float64)
    cos, sin = torch.cat([ang.cos()] * 2, -1).float(), torch.cat([ang.sin()] * 2, -1).float()
    q, k = leaf(B, Hq, T, D), leaf(B, Hk, T, D)
    q2, k2 = okt.apply_rotary(q, k, cos, sin)
    assert opkit.last_dispatch().op == "rope_qk_forward"
    (q2.sum() + 2 * k2.sum()).backward()
    assert opkit.last_dispatch().op == "rope_qk_backward"
    qd, kd = q.detach().double().requires_grad_(), k.detach().double().requires_grad_()
    qr, kr = hf_rope(qd, kd, cos.double(), sin.double())
    (qr.sum() + 2 * kr.sum()).backward()
    torch.testing.assert_close(q2.double(), qr, rtol=RTOL, atol=ATOL)
    torch.testing.assert_close(k2.double(), kr, rtol=RTOL, atol=ATOL)
    torch.testing.assert_close(q.grad.double(), qd.grad, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(k.grad.double(), kd.grad, rtol=1e-4, atol=1e-5)


def test_rope_qk_views_of_a_fused_qkv_projection_and_one_output_used():
    """okt.rope_qk on q and k viewed out of one [B,T,Hq+Hk+Hv,D] projection, equal to two
    rope calls; a loss of q alone still gives k (and the projection) its gradient."""
    B, T, Hq, Hk, Hv, D = 2, 5, 4, 2, 2, 16
    ang = torch.rand(B, T, D // 2, dtype=torch.float64) * 6.0
    cos, sin = torch.cat([ang.cos()] * 2, -1).float(), torch.cat([ang.sin()] * 2, -1).float()
    qkv = leaf(B, T, Hq + Hk + Hv, D)
    q, k = qkv[:, :, :Hq], qkv[:, :, Hq:Hq + Hk]
    q2, k2 = okt.rope_qk(q, k, cos, sin)
    qs, ks = torch.empty(q.shape), torch.empty(k.shape)  # two rope calls: the same bits
    opkit.rope_forward(q.detach(), cos, sin, qs)
    opkit.rope_forward(k.detach(), cos, sin, ks)
    qr, kr = hf_rope(q.detach().double(), k.detach().double(), cos.double(), sin.double(), 2)
    torch.testing.assert_close(q2.double(), qr, rtol=RTOL, atol=ATOL)
    torch.testing.assert_close(k2.double(), kr, rtol=RTOL, atol=ATOL)
    torch.testing.assert_close(q2, qs, rtol=0, atol=0)
    torch.testing.assert_close(k2, ks, rtol=0, atol=0)
    g = torch.randn_like(q2)
    (dqkv,) = torch.autograd.grad(q2, qkv, g)
    assert torch.all(dqkv[:, :, Hq:] == 0)  # k and v took no part in the loss
    qd = q.detach().double().requires_grad_()
    qr, _ = hf_rope(qd, kr, cos.double(), sin.double(), 2)
    (eq,) = torch.autograd.grad(qr, qd, g.double())
    torch.testing.assert_close(dqkv[:, :, :Hq].double(), eq, rtol=1e-4, atol=1e-5)


def test_apply_rotary_falls_back_to_two_rope_calls_for_mismatched_q_and_k():
    """q and k of other dtypes (or lengths): two rope calls, as before rope_qk."""
    B, T, H, D = 1, 4, 2, 8
    ang = torch.rand(B, T, D // 2, dtype=torch.float64)
    cos, sin = torch.cat([ang.cos()] * 2, -1).float(), torch.cat([ang.sin()] * 2, -1).float()
    q, k = torch.randn(B, H, T, D), torch.randn(B, H, T, D, dtype=torch.float64).to(torch.bfloat16)
    q2, k2 = okt.apply_rotary(q, k, cos, sin)
    assert opkit.last_dispatch().op == "rope_forward"
    qr, kr = hf_rope(q.double(), k.double(), cos.double(), sin.double())
    torch.testing.assert_close(q2.double(), qr, rtol=RTOL, atol=ATOL)
    torch.testing.assert_close(k2.double(), kr, rtol=1e-2, atol=1e-2)


def test_apply_rotary_takes_hugging_faces_broadcast_tables():
    """Hugging Face's rotary embedding gives cos/sin of [1,T,D] for a batch of B: one row
    broadcast (opkit takes [T,D] or [B,T,D])."""
    B, T, H, D = 3, 5, 2, 8
    ang = torch.rand(1, T, D // 2, dtype=torch.float64)
    cos, sin = torch.cat([ang.cos()] * 2, -1).float(), torch.cat([ang.sin()] * 2, -1).float()
    q, k = torch.randn(B, H, T, D), torch.randn(B, H, T, D)
    q2, k2 = okt.apply_rotary(q, k, cos, sin)
    qr, kr = hf_rope(q.double(), k.double(), cos.double(), sin.double())
    torch.testing.assert_close(q2.double(), qr, rtol=RTOL, atol=ATOL)
    torch.testing.assert_close(k2.double(), kr, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("smoothing", [0.0, 0.1])
def test_cross_entropy(reduction, smoothing):
    logits = leaf(9, 50, scale=2.0)
    target = torch.randint(0, 50, (9,))
    target[2] = -100
    g = torch.randn(9, dtype=torch.float64) if reduction == "none" else torch.tensor(1.7, dtype=torch.float64)
    check(lambda l, t: okt.cross_entropy(l, t, -100, smoothing, reduction),
          lambda l, t: F.cross_entropy(l, t, ignore_index=-100, label_smoothing=smoothing, reduction=reduction),
          (logits, target), grad_out=g)
    with pytest.raises(ValueError):
        okt.cross_entropy(logits, target, reduction="avg")


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_inplace_overwrites_logits_with_the_gradient(reduction):
    """The opt-in memory trick: same loss and gradient as F.cross_entropy, and the logits'
    own storage holds the gradient afterwards (no second logits-sized buffer)."""
    base = torch.randn(7, 30, dtype=torch.float64).float()
    target = torch.randint(0, 30, (7,))
    target[3] = -100
    logits = base.clone().requires_grad_()
    h = logits * 1.0  # a non-leaf, as an LM head's output is
    loss = okt.cross_entropy_inplace(h, target, label_smoothing=0.1, reduction=reduction)
    ref = base.double().requires_grad_()
    want = F.cross_entropy(ref, target, label_smoothing=0.1, reduction=reduction)
    torch.testing.assert_close(loss.double(), want, rtol=RTOL, atol=ATOL)
    g = torch.rand_like(want) + 0.5
    loss.backward(g.float())
    (wg,) = torch.autograd.grad(want, (ref,), g)
    torch.testing.assert_close(logits.grad.double(), wg, rtol=1e-4, atol=1e-6)
    assert not torch.equal(h.detach(), base), "the logits were not overwritten"


def test_cross_entropy_flattens_leading_dims():
    logits, target = leaf(2, 3, 11), torch.randint(0, 11, (2, 3))
    check(okt.cross_entropy, lambda l, t: F.cross_entropy(l.reshape(-1, 11), t.reshape(-1)), (logits, target))


def test_embedding():
    w = leaf(10, 6)
    ids = torch.tensor([[1, 3, 3], [9, 0, 1]])
    check(lambda w, i: okt.embedding(i, w), lambda w, i: F.embedding(i, w), (w, ids))


_ang = torch.rand(3, 2, dtype=torch.float64) * 6
ROPE_COS, ROPE_SIN = torch.cat([_ang.cos()] * 2, -1).float(), torch.cat([_ang.sin()] * 2, -1).float()
CE_TARGET = torch.tensor([1, -100, 4])
EMB_IDS = torch.tensor([0, 3, 3, 1])


@pytest.mark.parametrize("fn,make", [
    (lambda x, w: okt.rms_norm(x, w), lambda: (leaf(2, 5, dtype=torch.float64), leaf(5, dtype=torch.float64))),
    (lambda x: okt.softmax(x), lambda: (leaf(3, 6, dtype=torch.float64),)),
    (lambda a, b: okt.swiglu(a, b), lambda: (leaf(2, 4, dtype=torch.float64), leaf(2, 4, dtype=torch.float64))),
    (lambda a, b: okt.geglu(a, b, "none"), lambda: (leaf(2, 4, dtype=torch.float64), leaf(2, 4, dtype=torch.float64))),
    (lambda x, w, b: okt.layer_norm(x, w, b), lambda: (leaf(2, 6, dtype=torch.float64), leaf(6, dtype=torch.float64),
                                                       leaf(6, dtype=torch.float64))),
    (lambda q, k: torch.cat([t.reshape(-1) for t in okt.apply_rotary(q, k, ROPE_COS, ROPE_SIN, "bthd")]),
     lambda: (leaf(1, 3, 2, 4, dtype=torch.float64), leaf(1, 3, 1, 4, dtype=torch.float64))),
    (lambda x: okt.cross_entropy(x, CE_TARGET, label_smoothing=0.1), lambda: (leaf(3, 5, dtype=torch.float64),)),
    (lambda w: okt.embedding(EMB_IDS, w), lambda: (leaf(4, 3, dtype=torch.float64),)),
])
def test_gradcheck_through_f32(fn, make):
    """torch.autograd.gradcheck on f64 inputs cast to f32 around the op: finite
    differences in f64 against opkit's f32 analytic gradients. Tolerances are f32's
    (a step of 1e-3 on f32 values is exact to about 1e-4 relative)."""
    def f32_op(*xs):
        return fn(*[x.float() for x in xs]).double()
    assert torch.autograd.gradcheck(f32_op, make(), eps=1e-3, atol=2e-3, rtol=2e-2)


def test_modules_match_their_pytorch_counterparts():
    x = torch.randn(3, 16)
    n = okt.RMSNorm(16)
    torch.testing.assert_close(n(x), ref_rms(x, n.weight.detach()), rtol=RTOL, atol=ATOL)
    g = okt.RMSNorm(16, offset=1.0)  # Gemma: zero weights, (1 + w)
    assert torch.count_nonzero(g.weight) == 0
    torch.testing.assert_close(g(x), ref_rms(x, torch.zeros(16), offset=1.0), rtol=RTOL, atol=ATOL)
    ln, ref = okt.LayerNorm(16), torch.nn.LayerNorm(16)
    torch.testing.assert_close(ln(x), ref(x), rtol=RTOL, atol=ATOL)
    mlp = okt.SwiGLUMLP(16, 24)
    want = mlp.down_proj(F.silu(mlp.gate_proj(x)) * mlp.up_proj(x))
    torch.testing.assert_close(mlp(x), want, rtol=1e-4, atol=1e-5)
    gm = okt.GeGLUMLP(16, 24)
    want = gm.down_proj(F.gelu(gm.gate_proj(x), approximate="tanh") * gm.up_proj(x))
    torch.testing.assert_close(gm(x), want, rtol=1e-4, atol=1e-5)
    emb = okt.Embedding(10, 4)
    ids = torch.tensor([3, 3, 9])
    torch.testing.assert_close(emb(ids), emb.weight.detach()[ids])
    loss = okt.CrossEntropyLoss(label_smoothing=0.05)
    logits, t = torch.randn(5, 7), torch.randint(0, 7, (5,))
    torch.testing.assert_close(loss(logits, t), F.cross_entropy(logits, t, label_smoothing=0.05), rtol=1e-5, atol=1e-6)
    assert set(dict(mlp.named_parameters())) == {"gate_proj.weight", "up_proj.weight", "down_proj.weight"}


def test_mixed_precision_weight_is_cast_once_and_its_gradient_back():
    """bf16 activations with an fp32 weight: opkit takes one float dtype per call, so the
    weight is cast to bf16 for the kernel and its gradient returned as fp32."""
    x = torch.randn(4, 32).to(torch.bfloat16).requires_grad_()
    w = torch.randn(32, requires_grad=True)
    y = okt.rms_norm(x, w)
    assert y.dtype == torch.bfloat16
    y.float().sum().backward()
    assert w.grad.dtype == torch.float32 and x.grad.dtype == torch.bfloat16
    want = ref_rms(x.detach().double(), w.detach().to(torch.bfloat16).double())
    torch.testing.assert_close(y.double(), want, rtol=2 ** -7, atol=1e-2)


def test_bad_input_raises_opkit_errors():
    with pytest.raises(opkit.Error):
        okt.rms_norm(torch.randn(3, 8), torch.randn(7))  # weight of the wrong size
    with pytest.raises(opkit.Error):
        okt.embedding(torch.tensor([0.5]), torch.randn(4, 2))  # float ids
