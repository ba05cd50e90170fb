"""opkit.torch on a GPU (CUDA or ROCm PyTorch): bf16 against the eager math,
torch.compile(fullgraph=True) through the custom ops, CUDA graph capture, and the Hugging
Face patch/unpatch round trip on a tiny random-weight Llama. Each test skips, with its
reason, where PyTorch, a GPU, PyTorch >= 2.4 or transformers is missing."""
import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402

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


def tiny_llama():
    transformers = pytest.importorskip("transformers")
    cfg = transformers.LlamaConfig(vocab_size=211, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                                   num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64)
    torch.manual_seed(0)
    return transformers, transformers.LlamaForCausalLM(cfg).cuda()


@gpu
def test_llama_patch_and_unpatch_round_trip():
    transformers, model = tiny_llama()
    from transformers.models.llama import modeling_llama
    from transformers.loss import loss_utils
    originals = (modeling_llama.LlamaRMSNorm.forward, modeling_llama.LlamaMLP.forward,
                 modeling_llama.apply_rotary_pos_emb, loss_utils.fixed_cross_entropy)
    ids = torch.randint(0, 211, (2, 24), device="cuda")

    def loss_and_grads():
        model.zero_grad()
        out = model(input_ids=ids, labels=ids)
        out.loss.backward()
        return out.loss.detach(), {n: p.grad.detach().clone() for n, p in model.named_parameters()}

    want_loss, want_grads = loss_and_grads()
    okt.apply_opkit_to_llama(model)
    try:
        assert modeling_llama.LlamaRMSNorm.forward is not originals[0]
        assert modeling_llama.apply_rotary_pos_emb is not originals[2]
        loss, grads = loss_and_grads()
    finally:
        restored = okt.unpatch()
    assert restored == 4
    assert (modeling_llama.LlamaRMSNorm.forward, modeling_llama.LlamaMLP.forward,
            modeling_llama.apply_rotary_pos_emb, loss_utils.fixed_cross_entropy) == originals
    torch.testing.assert_close(loss, want_loss, rtol=1e-4, atol=1e-4)
    for n, g in grads.items():
        torch.testing.assert_close(g, want_grads[n], rtol=1e-3, atol=1e-4, msg=lambda m: f"{n}: {m}")
    back_loss, _ = loss_and_grads()
    torch.testing.assert_close(back_loss, want_loss, rtol=0, atol=0)  # the original code again
    with pytest.raises(TypeError):
        okt.apply_opkit_to_qwen2(model)  # a Llama model is not a Qwen2 one
    assert okt.unpatch() == 0
