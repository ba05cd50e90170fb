"""opkit.torch on a GPU (CUDA or ROCm PyTorch): bf16 against the eager math,
torch.compile(fullgraph=True) through the custom ops, CUDA graph capture, and the Hugging
Face patch/unpatch round trip on tiny random-weight Llama, Mistral, Qwen2 and Gemma models. Each test skips, with its
reason, where PyTorch, a GPU, PyTorch >= 2.4 or transformers is missing."""
import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402

import opkit  # noqa: E402
import opkit.torch as okt  # noqa: E402

gpu = pytest.mark.skipif(not torch.cuda.is_available(), reason="PyTorch sees no CUDA/ROCm GPU")
needs_custom_op = pytest.mark.skipif(not okt.HAS_CUSTOM_OP, reason="torch.library.custom_op needs PyTorch >= 2.4")
BF16 = dict(rtol=2e-2, atol=2e-2)  # bf16 outputs: 8 bits of mantissa, values of order 1


def ref_rms(x, w, eps=1e-6):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


@gpu
def test_bf16_functions_against_eager_math():
    torch.manual_seed(0)
    dev, bf = "cuda", torch.bfloat16
    x = torch.randn(64, 512, device=dev, dtype=bf, requires_grad=True)
    w = torch.randn(512, device=dev, dtype=bf, requires_grad=True)
    y = okt.rms_norm(x, w)
    torch.testing.assert_close(y.float(), ref_rms(x.float(), w.float()), **BF16)
    g = torch.randn_like(y)
    dx, dw = torch.autograd.grad(y, (x, w), g)
    xr, wr = x.detach().float().requires_grad_(), w.detach().float().requires_grad_()
    ex, ew = torch.autograd.grad(ref_rms(xr, wr), (xr, wr), g.float())
    torch.testing.assert_close(dx.float(), ex, **BF16)
    torch.testing.assert_close(dw.float(), ew, rtol=2e-2, atol=0.5)  # a sum over 64 rows
    a, b = torch.randn(2, 3, 256, device=dev, dtype=bf), torch.randn(2, 3, 256, device=dev, dtype=bf)
    torch.testing.assert_close(okt.swiglu(a, b).float(), (F.silu(a.float()) * b.float()), **BF16)
    torch.testing.assert_close(okt.softmax(a).float(), torch.softmax(a.float(), -1), **BF16)
    b_ln, w_ln = torch.randn(256, device=dev, dtype=bf), torch.randn(256, device=dev, dtype=bf)
    torch.testing.assert_close(okt.layer_norm(a, w_ln, b_ln).float(),
                               F.layer_norm(a.float(), (256,), w_ln.float(), b_ln.float()), **BF16)
    torch.testing.assert_close(okt.geglu(a, b).float(), F.gelu(a.float(), approximate="tanh") * b.float(), **BF16)
    emb = torch.randn(50, 256, device=dev, dtype=bf)
    ids = torch.randint(0, 50, (2, 7), device=dev)
    torch.testing.assert_close(okt.embedding(ids, emb), F.embedding(ids, emb), rtol=0, atol=0)
    q, k = torch.randn(2, 4, 9, 64, device=dev, dtype=bf), torch.randn(2, 2, 9, 64, device=dev, dtype=bf)
    ang = torch.rand(1, 9, 32, device=dev) * 6
    cos, sin = torch.cat([ang.cos()] * 2, -1).to(bf), torch.cat([ang.sin()] * 2, -1).to(bf)

    def rot(v):
        return torch.cat((-v[..., 32:], v[..., :32]), -1)
    q2, k2 = okt.apply_rotary(q, k, cos, sin)
    c4, s4 = cos.float().unsqueeze(1), sin.float().unsqueeze(1)
    torch.testing.assert_close(q2.float(), q.float() * c4 + rot(q.float()) * s4, **BF16)
    torch.testing.assert_close(k2.float(), k.float() * c4 + rot(k.float()) * s4, **BF16)
    logits = torch.randn(32, 1000, device=dev, dtype=bf)
    t = torch.randint(0, 1000, (32,), device=dev)
    torch.testing.assert_close(okt.cross_entropy(logits, t), F.cross_entropy(logits.float(), t), rtol=1e-3, atol=1e-3)


@gpu
@needs_custom_op
def test_torch_compile_fullgraph_through_a_block():
    """An RMSNorm -> SwiGLU MLP -> cross-entropy block compiles with fullgraph=True (a
    graph break would raise) and matches the uncompiled block, forward and backward."""
    torch.manual_seed(0)
    norm, mlp = okt.RMSNorm(128).cuda(), okt.SwiGLUMLP(128, 256).cuda()
    head = torch.nn.Linear(128, 97).cuda()

    def block(x, t):
        return okt.cross_entropy(head(mlp(norm(x))), t)

    x = torch.randn(16, 128, device="cuda", requires_grad=True)
    t = torch.randint(0, 97, (16,), device="cuda")
    want = block(x, t)
    (gx_want,) = torch.autograd.grad(want, (x,))
    compiled = torch.compile(block, fullgraph=True)
    got = compiled(x, t)
    (gx,) = torch.autograd.grad(got, (x,))
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(gx, gx_want, rtol=1e-4, atol=1e-6)


@gpu
def test_cuda_graph_capture_and_replay():
    torch.manual_seed(0)
    x = torch.randn(32, 256, device="cuda")
    w = torch.randn(256, device="cuda")
    okt.rms_norm(x, w)  # warm-up outside capture (module loading)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        y = okt.rms_norm(x, w)
    x.copy_(torch.randn_like(x))
    g.replay()
    torch.cuda.synchronize()
    torch.testing.assert_close(y, ref_rms(x, w), rtol=1e-5, atol=1e-5)


@gpu
def test_cuda_graph_capture_of_a_norm_backward():
    """layer_norm's backward sums dweight and dbias in a second kernel, which on sm_90+ is a
    programmatic dependent launch of the row kernel (it may start while that one drains and
    waits for it on the device): captured into a CUDA graph and replayed on new inputs, its
    gradients still match PyTorch's. Rows of 8192: the stash kernels on sm_90+."""
    torch.manual_seed(0)
    dev, bf, R, N = "cuda", torch.bfloat16, 600, 8192
    x, dy = torch.randn(R, N, device=dev, dtype=bf), torch.randn(R, N, device=dev, dtype=bf)
    w, b = torch.randn(N, device=dev, dtype=bf), torch.randn(N, device=dev, dtype=bf)
    y, dx = torch.empty_like(x), torch.empty_like(x)
    dw, db = torch.empty_like(w), torch.empty_like(b)
    mean, rstd = torch.empty(R, device=dev), torch.empty(R, device=dev)

    def step():
        opkit.layer_norm_forward(x, w, b, 1e-5, y, mean, rstd)
        opkit.layer_norm_backward(dy, x, w, mean, rstd, dx, dw, db)
    step()  # module loading outside the capture
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        step()
    x.copy_(torch.randn_like(x))
    dy.copy_(torch.randn_like(dy))
    g.replay()
    torch.cuda.synchronize()
    xr, wr, br = (t.float().requires_grad_() for t in (x, w, b))
    ex, ew, eb = torch.autograd.grad(F.layer_norm(xr, (N,), wr, br, 1e-5), (xr, wr, br), dy.float())
    torch.testing.assert_close(dx.float(), ex, **BF16)
    torch.testing.assert_close(dw.float(), ew, rtol=2e-2, atol=1.0)  # sums over 600 rows, bf16 out
    torch.testing.assert_close(db.float(), eb, rtol=2e-2, atol=1.0)


FAMILIES = {"llama": ("LlamaConfig", "LlamaForCausalLM"), "mistral": ("MistralConfig", "MistralForCausalLM"),
            "qwen2": ("Qwen2Config", "Qwen2ForCausalLM"), "gemma": ("GemmaConfig", "GemmaForCausalLM")}


def tiny_model(family):
    transformers = pytest.importorskip("transformers")
    cfg_name, model_name = FAMILIES[family]
    cfg = getattr(transformers, cfg_name)(vocab_size=211, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                                          num_attention_heads=4, num_key_value_heads=2, head_dim=16,
                                          max_position_embeddings=64)
    torch.manual_seed(0)
    return getattr(transformers, model_name)(cfg).cuda()


@gpu
@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_patch_and_unpatch_round_trip(family):
    """Loss and every parameter's gradient of a tiny random model, patched against
    unpatched; after unpatch the original functions are back and the loss is bit-identical."""
    model = tiny_model(family)
    import importlib
    mod = importlib.import_module(f"transformers.models.{family}.modeling_{family}")
    from transformers.loss import loss_utils
    prefix = {"llama": "Llama", "mistral": "Mistral", "qwen2": "Qwen2", "gemma": "Gemma"}[family]
    targets = [(getattr(mod, f"{prefix}RMSNorm"), "forward"), (getattr(mod, f"{prefix}MLP"), "forward"),
               (mod, "apply_rotary_pos_emb"), (loss_utils, "fixed_cross_entropy")]
    originals = [getattr(o, n) for o, n in targets]
    ids = torch.randint(0, 211, (2, 24), device="cuda")

    def loss_and_grads():
        model.zero_grad()
        out = model(input_ids=ids, labels=ids)
        out.loss.backward()
        return out.loss.detach(), {n: p.grad.detach().clone() for n, p in model.named_parameters()}

    want_loss, want_grads = loss_and_grads()
    okt.patch(model)
    try:
        assert all(getattr(o, n) is not f for (o, n), f in zip(targets, originals))
        loss, grads = loss_and_grads()
    finally:
        restored = okt.unpatch()
    assert restored == 4
    assert all(getattr(o, n) is f for (o, n), f in zip(targets, originals))
    torch.testing.assert_close(loss, want_loss, rtol=1e-4, atol=1e-4)
    for n, g in grads.items():
        torch.testing.assert_close(g, want_grads[n], rtol=1e-3, atol=1e-4, msg=lambda m: f"{n}: {m}")
    back_loss, _ = loss_and_grads()
    torch.testing.assert_close(back_loss, want_loss, rtol=0, atol=0)  # the original code again
    other = "qwen2" if family != "qwen2" else "llama"
    with pytest.raises(TypeError):
        getattr(okt, f"apply_opkit_to_{other}")(model)  # a model of another family
    assert okt.unpatch() == 0
