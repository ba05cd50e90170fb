"""The binding with PyTorch tensors on a CUDA GPU (the cuda vendor): every op forward and
backward in f32/f16/bf16 on contiguous and strided views must match opkit's CPU defaults
on the same inputs (torch CPU tensors, also through DLPack) and PyTorch itself; streams
follow torch's current stream. Skips, visibly, without torch or a GPU."""
import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed")
if not torch.cuda.is_available():
    pytest.skip("no CUDA GPU: the GPU binding tests did not run", allow_module_level=True)

import torch.nn.functional as F  # noqa: E402

import opkit  # noqa: E402
import tolerances  # noqa: E402

DTYPES = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}


@pytest.fixture(scope="module", autouse=True)
def cuda_vendor_ready():
    opkit.shutdown()
    opkit.init()
    if opkit.op_resolve("softmax_forward", "cuda") != "cuda":
        pytest.fail(f"the cuda vendor is not serving: {opkit.vendors()}")
    yield


def close(out, ref, dt, op, output, floor=0.0):
    """Within the tolerance of (op, output, dt) from the one table (core/tolerances.def)."""
    tolerances.check(out.double().cpu().numpy(), ref.double().cpu().numpy(), op, output, dt, floor)


# run_all's outputs: (op, output parameter) of each key.
OUTPUTS = {"rms_y": ("rms_norm_forward", "y"), "rms_r": ("rms_norm_forward", "rstd"),
           "rms_dx": ("rms_norm_backward", "dx"), "rms_dw": ("rms_norm_backward", "dweight"),
           "ln_y": ("layer_norm_forward", "y"), "ln_m": ("layer_norm_forward", "mean"),
           "ln_r": ("layer_norm_forward", "rstd"), "ln_dx": ("layer_norm_backward", "dx"),
           "ln_dw": ("layer_norm_backward", "dweight"), "ln_db": ("layer_norm_backward", "dbias"),
           "sm_y": ("softmax_forward", "y"), "sm_dx": ("softmax_backward", "dx"),
           "sw_y": ("swiglu_forward", "y"), "sw_da": ("swiglu_backward", "da"),
           "sw_db": ("swiglu_backward", "db"),
           "ge0_y": ("geglu_forward", "y"), "ge0_da": ("geglu_backward", "da"),
           "ge0_db": ("geglu_backward", "db"),
           "ge1_y": ("geglu_forward", "y"), "ge1_da": ("geglu_backward", "da"),
           "ge1_db": ("geglu_backward", "db"),
           "rope_y": ("rope_forward", "y"), "rope_dx": ("rope_backward", "dx"),
           "rqk_q": ("rope_qk_forward", "q_out"), "rqk_k": ("rope_qk_forward", "k_out"),
           "rqk_dq": ("rope_qk_backward", "dq"), "rqk_dk": ("rope_qk_backward", "dk"),
           "ce_loss": ("cross_entropy_forward", "loss"), "ce_lse": ("cross_entropy_forward", "lse"),
           "ce_d": ("cross_entropy_forward", "dlogits"), "ce_bd": ("cross_entropy_backward", "dlogits"),
           "emb_y": ("embedding_forward", "y"), "emb_dw": ("embedding_backward", "dweight"),
           "mm": ("matmul", "c"), "axpy": ("axpy", "y")}


def inputs(dt, strided, seed=0):
    """Every op's inputs on the CPU, in dtype dt; strided = views into wider rows."""
    g = torch.Generator().manual_seed(seed)
    dtype = DTYPES[dt]

    def r(*shape, scale=1.0):
        if strided and len(shape) == 2:
            return (torch.randn(shape[0], shape[1] + 3, generator=g) * scale).to(dtype)[:, :shape[1]]
        return (torch.randn(*shape, generator=g) * scale).to(dtype)

    R, N, V = 37, 1029, 3001
    ang = torch.rand(6, 32, generator=g) * 6.28
    t = {"x": r(R, N), "dy": r(R, N), "w": r(N), "b": r(N), "a": r(R, N), "g": r(R, N),
         "rx": r(2, 6, 4, 64), "rdy": r(2, 6, 4, 64),
         "qkv": r(2, 6, 4 + 2 + 2, 64), "dqkv": r(2, 6, 4 + 2 + 2, 64),  # fused projections, Hq 4, Hk 2
         "cos": torch.cat([ang.cos()] * 2, -1).to(dtype), "sin": torch.cat([ang.sin()] * 2, -1).to(dtype),
         "logits": r(R, V, scale=3.0), "target": torch.randint(0, V, (R,), generator=g),
         "emb": r(500, 96), "ids": torch.randint(0, 500, (5, 9), generator=g),
         "ma": r(65, 130), "mb": r(130, 33)}
    t["target"][::5] = -100
    t["ids"][0, :3] = 7
    return t


def run_all(t, device):
    """Every op through opkit on `device`; returns the outputs on the CPU."""
    t = {k: v.to(device) for k, v in t.items()}
    x, dy, w, b = t["x"], t["dy"], t["w"], t["b"]
    e = lambda *s, dtype=x.dtype: torch.full(s, float("nan"), dtype=dtype, device=device)  # noqa: E731
    R, N = x.shape
    o = {}
    o["rms_y"], o["rms_r"] = e(R, N), e(R, dtype=torch.float32)
    opkit.rms_norm_forward(x, w, 1e-6, 0.0, o["rms_y"], o["rms_r"])
    o["rms_dx"], o["rms_dw"] = e(R, N), e(N)
    opkit.rms_norm_backward(dy, x, w, o["rms_r"], 0.0, o["rms_dx"], o["rms_dw"])
    o["ln_y"], o["ln_m"], o["ln_r"] = e(R, N), e(R, dtype=torch.float32), e(R, dtype=torch.float32)
    opkit.layer_norm_forward(x, w, b, 1e-5, o["ln_y"], o["ln_m"], o["ln_r"])
    o["ln_dx"], o["ln_dw"], o["ln_db"] = e(R, N), e(N), e(N)
    opkit.layer_norm_backward(dy, x, w, o["ln_m"], o["ln_r"], o["ln_dx"], o["ln_dw"], o["ln_db"])
    o["sm_y"], o["sm_dx"] = e(R, N), e(R, N)
    opkit.softmax_forward(x, o["sm_y"])
    opkit.softmax_backward(dy, o["sm_y"], o["sm_dx"])
    for name, fwd, bwd, extra in (("sw", opkit.swiglu_forward, opkit.swiglu_backward, ()),
                                  ("ge0", opkit.geglu_forward, opkit.geglu_backward, (0,)),
                                  ("ge1", opkit.geglu_forward, opkit.geglu_backward, (1,))):
        o[name + "_y"], o[name + "_da"], o[name + "_db"] = e(R, N), e(R, N), e(R, N)
        fwd(t["a"], t["g"], *extra, o[name + "_y"])
        bwd(dy, t["a"], t["g"], *extra, o[name + "_da"], o[name + "_db"])
    o["rope_y"], o["rope_dx"] = e(*t["rx"].shape), e(*t["rx"].shape)
    opkit.rope_forward(t["rx"], t["cos"], t["sin"], o["rope_y"])
    opkit.rope_backward(t["rdy"], t["cos"], t["sin"], o["rope_dx"])
    # q and k as views into the fused qkv buffers
    q, k, dq, dk = t["qkv"][:, :, :4], t["qkv"][:, :, 4:6], t["dqkv"][:, :, :4], t["dqkv"][:, :, 4:6]
    o["rqk_q"], o["rqk_k"], o["rqk_dq"], o["rqk_dk"] = e(*q.shape), e(*k.shape), e(*q.shape), e(*k.shape)
    opkit.rope_qk_forward(q, k, t["cos"], t["sin"], o["rqk_q"], o["rqk_k"])
    opkit.rope_qk_backward(dq, dk, t["cos"], t["sin"], o["rqk_dq"], o["rqk_dk"])
    lg = t["logits"]
    o["ce_loss"], o["ce_lse"], o["ce_d"] = e(dtype=torch.float32), e(lg.shape[0], dtype=torch.float32), e(*lg.shape)
    opkit.cross_entropy_forward(lg, t["target"], -100, 0.1, opkit.REDUCTION_MEAN, o["ce_loss"], o["ce_lse"], o["ce_d"])
    o["ce_bd"] = e(*lg.shape)
    opkit.cross_entropy_backward(torch.tensor(2.0, device=device), lg, t["target"], None, -100, 0.1,
                                 opkit.REDUCTION_MEAN, o["ce_bd"])
    o["emb_y"] = e(*t["ids"].shape, t["emb"].shape[1])
    opkit.embedding_forward(t["emb"], t["ids"], o["emb_y"])
    o["emb_dw"] = e(*t["emb"].shape)
    opkit.embedding_backward(o["emb_y"], t["ids"], -1, o["emb_dw"])
    o["mm"] = e(t["ma"].shape[0], t["mb"].shape[1])
    opkit.matmul(t["ma"], t["mb"], o["mm"])
    o["axpy"] = x.clone()
    opkit.axpy(0.5, dy, o["axpy"])
    torch.cuda.synchronize()
    return {k: v.cpu() for k, v in o.items()}


@pytest.mark.parametrize("dt", list(DTYPES))
@pytest.mark.parametrize("strided", [False, True])
def test_every_op_on_the_gpu_matches_the_cpu_defaults(dt, strided):
    t = inputs(dt, strided)
    gpu, cpu = run_all(t, "cuda"), run_all(t, "cpu")
    for k in cpu:
        op, output = OUTPUTS[k]
        out_dt = "f32" if k.endswith(("_r", "_m", "_lse", "_loss")) else dt  # fp32 statistics
        floor = 0.0
        if k == "rms_dx":  # cancellation: measure against the size of the terms
            floor = (t["dy"].double() * t["w"].double()).abs().max().item() * cpu["rms_r"].double().max().item()
        elif k == "ln_m":  # the mean of O(1) inputs cancels to ~0
            floor = 1.0
        close(gpu[k], cpu[k], out_dt, op, output, floor)


@pytest.mark.parametrize("dt", list(DTYPES))
def test_gpu_results_match_pytorch(dt):
    t = {k: v.cuda() for k, v in inputs(dt, False, seed=3).items()}
    x, w = t["x"], t["w"]
    y = torch.empty_like(x)
    opkit.rms_norm_forward(x, w, 1e-6, 0.0, y)
    close(y, F.rms_norm(x.float(), (x.shape[1],), w.float(), 1e-6), dt, "rms_norm_forward", "y")
    opkit.softmax_forward(x, y)
    close(y, torch.softmax(x.float(), -1), dt, "softmax_forward", "y")
    opkit.geglu_forward(t["a"], t["g"], 1, y)
    close(y, F.gelu(t["a"].float(), approximate="tanh") * t["g"].float(), dt, "geglu_forward", "y")
    loss = torch.empty((), device="cuda")
    opkit.cross_entropy_forward(t["logits"], t["target"], -100, 0.0, opkit.REDUCTION_MEAN, loss)
    close(loss, F.cross_entropy(t["logits"].float(), t["target"]), "f32", "cross_entropy_forward", "loss")


def test_ops_follow_torchs_current_stream():
    """Work queued on a side stream is ordered before the op, which runs on that stream:
    without stream ordering, opkit would read x before the slow producer wrote it."""
    side = torch.cuda.Stream()
    big = torch.randn(4096, 4096, device="cuda")
    x = torch.empty(256, 1024, device="cuda")
    y = torch.empty_like(x)
    torch.cuda.synchronize()
    with torch.cuda.stream(side):
        for _ in range(20):  # keep the side stream busy for a while
            big = big @ big.T / 4096
        x.copy_(torch.arange(x.numel(), device="cuda", dtype=torch.float32).reshape(x.shape) % 7)
        opkit.softmax_forward(x, y)
        expected = torch.softmax(x, -1)
    side.synchronize()
    torch.testing.assert_close(y, expected)


def test_explicit_stream_synchronizes_with_the_producer():
    """stream= another stream: the binding passes it to __dlpack__, so PyTorch makes it
    wait for the work already queued on the current stream."""
    other = torch.cuda.Stream()
    big = torch.randn(4096, 4096, device="cuda")
    x = torch.empty(128, 2048, device="cuda")
    torch.cuda.synchronize()
    for _ in range(20):
        big = big @ big.T / 4096
    x.fill_(1.0)
    y = torch.empty_like(x)
    opkit.softmax_forward(x, y, stream=other.cuda_stream)
    other.synchronize()
    torch.testing.assert_close(y, torch.full_like(x, 1 / 2048))


def test_tensors_on_two_devices_are_rejected():
    x = torch.ones(4, 8, device="cuda")
    y = torch.empty(4, 8)
    with pytest.raises(opkit.InvalidArgumentError):
        opkit.softmax_forward(x, y)
    assert opkit.op_resolve("matmul", "cuda") == "cuda"
