#!/usr/bin/env python3
"""Does where the output lies, relative to the inputs, move an op's time by the few percent
that separate opkit from a peer on some ops (rope forward, the bf16 softmax backward, the
embedding forward against torch.compile; the bf16 rms_norm and softmax forwards against
Liger-Kernel; the bf16 swiglu forward against torch.compile; the bf16 softmax backward at
4096x16384 and the fp32 layer_norm forward against Liger-Kernel, the fp32 rms_norm forward
against torch.compile; since the thirty-fifth session, for --profile, the fp32 swiglu
backward against torch.compile, the bf16 rms_norm forward at 32768x4096 and the fp32
softmax backward at 4096x16384 against Liger-Kernel, the fp32 embedding forward; since the
thirty-ninth, the fp32 rms_norm forward at 4096x16384 against torch.compile's static kernel,
since the fortieth at 8192x8192 too, since the forty-ninth the bf16 rms_norm forward at
8192x8192 against torch.compile)?

bench/gpu_compare.py gives opkit an output from torch.empty_like at set-up, while a
compiled function's output comes from the caching allocator at each call, so the two
write to different addresses relative to the same inputs. Here opkit writes, in one
process, to outputs at several byte offsets inside one larger allocation, and to the
peer's own output tensor (the bytes the peer writes); the peer (whichever the case names)
is timed as gpu_compare.py times it. Run on the GPU machine from the repository root:

    PYTHONPATH=python OPKIT_LIBRARY=$PWD/build-check/lib/libopkit.so.1 \\
        python3 bench/placement_probe.py [--ops rope_f32,...]   # Liger's cases: its wheel on PYTHONPATH

With --profile it times nothing and runs one call of opkit and one of the peer a case for
Nsight Compute (`ncu --profile-from-start off --set full ... --profile`).
"""
import argparse
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
from gpu_compare import rnd, timed  # noqa: E402
from peer_math import rope, sm_bwd_math, sw_bwd  # noqa: E402

import opkit  # noqa: E402  (gpu_compare put python/ on the path)

# Offsets (bytes) of opkit's output inside its allocation: none, sub-page, a page, 64 KiB,
# and several MiB with and without a page on top.
OFFSETS = [0, 512, 4096, 65536, 1 << 20, (1 << 20) + 2048, 3 << 20, (16 << 20) + 4096]


def placed(like, offset):
    """A tensor shaped and typed as `like`, `offset` bytes into a fresh allocation."""
    nbytes = like.numel() * like.element_size()
    raw = torch.empty(nbytes + offset, dtype=torch.uint8, device="cuda")
    return raw[offset:offset + nbytes].view(like.dtype).view(like.shape)


def rope_case(dt):
    B, T, H, D = 4, 4096, 32, 128
    x = rnd(B, T, H, D, dtype=dt)
    ang = torch.rand(T, D // 2, device="cuda") * 6.28
    cos, sin = torch.cat([ang.cos()] * 2, -1).to(dt), torch.cat([ang.sin()] * 2, -1).to(dt)

    rc = torch.compile(rope)
    return x, (lambda out: opkit.rope_forward(x, cos, sin, out)), (lambda: rc(x, cos, sin))


def softmax_bwd_case(dt):
    R, N = 32768, 4096
    dy = rnd(R, N, dtype=dt)
    ys = torch.softmax(rnd(R, N, dtype=torch.float32), -1).to(dt)

    bc = torch.compile(sm_bwd_math)
    return dy, (lambda out: opkit.softmax_backward(dy, ys, out)), (lambda: bc(dy, ys))


def embedding_case(dt):
    V, D, BT = 128256, 4096, 8192
    w = rnd(V, D, dtype=dt)
    ids = torch.randint(0, V, (BT,), device="cuda")
    ec = torch.compile(lambda i, w: F.embedding(i, w))
    like = torch.empty(BT, D, device="cuda", dtype=dt)
    return like, (lambda out: opkit.embedding_forward(w, ids, out)), (lambda: ec(ids, w))


def liger():
    """Liger-Kernel's ops module (its wheel on PYTHONPATH, as gpu_compare.py loads it)."""
    import liger_kernel.ops as L  # noqa: F401
    from liger_kernel.ops.rms_norm import LigerRMSNormFunction
    from liger_kernel.ops.softmax import LigerSoftmaxFunction
    return LigerRMSNormFunction, LigerSoftmaxFunction


def rms_fwd_case(dt, R=4096, N=16384):  # the standing table's 0.98x Liger row (then 0.99x at 32768x4096)
    x, w = rnd(R, N, dtype=dt), rnd(N, dtype=dt)
    rstd = torch.empty(R, device="cuda", dtype=torch.float32)
    rms = liger()[0]
    return x, (lambda out: opkit.rms_norm_forward(x, w, 1e-6, 0.0, out, rstd)), \
        (lambda: rms.apply(x, w, 1e-6, 0.0, "llama", True))


def softmax_fwd_case(dt):  # 0.99x Liger at 8192x8192
    x = rnd(8192, 8192, dtype=dt)
    sm = liger()[1]
    return x, (lambda out: opkit.softmax_forward(x, out)), (lambda: sm.apply(x))


# 0.97x Liger at 4096x16384 through opk_softmax_bwd_wide_* (bf16, f16), whose name the case
# keeps for the earlier sessions' commands; since 5218f5b 2-byte flat rows of 16384 take
# opk_softmax_bwd_block_row_*_g512x4 instead (fp32 rows: the exact kernel, unchanged).
def softmax_bwd_wide_case(dt):
    dy = rnd(4096, 16384, dtype=dt)
    x = rnd(4096, 16384, dtype=dt).requires_grad_()
    sm = liger()[1]
    y_l = sm.apply(x)
    ys = y_l.detach()
    return dy, (lambda out: opkit.softmax_backward(dy, ys, out)), \
        (lambda: torch.autograd.grad(y_l, (x,), dy, retain_graph=True)[0])


def ln_fwd_case(dt):  # fp32 0.97x Liger at 8192x8192
    from liger_kernel.ops.layer_norm import LigerLayerNormFunction
    x, w, b = rnd(8192, 8192, dtype=dt), rnd(8192, dtype=dt), rnd(8192, dtype=dt)
    mean = torch.empty(8192, device="cuda", dtype=torch.float32)
    rstd = torch.empty_like(mean)
    return x, (lambda out: opkit.layer_norm_forward(x, w, b, 1e-5, out, mean, rstd)), \
        (lambda: LigerLayerNormFunction.apply(x, w, b, 1e-5))


def rms_fwd_compile_case(dt, R=32768, N=4096):  # fp32 0.98x compile at 32768x4096; 0.97x at 4096x16384 (s39)
    x, w = rnd(R, N, dtype=dt), rnd(N, dtype=dt)
    rstd = torch.empty(R, device="cuda", dtype=torch.float32)
    c = torch.compile(lambda x, w: F.rms_norm(x, (N,), w, 1e-6))
    return x, (lambda out: opkit.rms_norm_forward(x, w, 1e-6, 0.0, out, rstd)), (lambda: c(x, w))


def swiglu_fwd_case(dt):  # 0.996x compile at 32768x4096
    a, b = rnd(32768, 4096, dtype=dt), rnd(32768, 4096, dtype=dt)
    c = torch.compile(lambda a, b: F.silu(a) * b)
    return a, (lambda out: opkit.swiglu_forward(a, b, out)), (lambda: c(a, b))


def swiglu_bwd_case(dt):  # fp32 0.99x compile at 8192x8192, short in every round
    dy, a, b = rnd(8192, 8192, dtype=dt), rnd(8192, 8192, dtype=dt), rnd(8192, 8192, dtype=dt)
    db = torch.empty_like(a)

    c = torch.compile(sw_bwd)
    return a, (lambda out: opkit.swiglu_backward(dy, a, b, out, db)), (lambda: c(dy, a, b)[0])


CASES = {
    "rope_f32": lambda: rope_case(torch.float32),
    "rope_bf16": lambda: rope_case(torch.bfloat16),
    "softmax_bwd_bf16": lambda: softmax_bwd_case(torch.bfloat16),
    "embedding_bf16": lambda: embedding_case(torch.bfloat16),
    "rms_fwd_bf16": lambda: rms_fwd_case(torch.bfloat16),
    "softmax_fwd_bf16": lambda: softmax_fwd_case(torch.bfloat16),
    "swiglu_fwd_bf16": lambda: swiglu_fwd_case(torch.bfloat16),
    "softmax_bwd_wide_bf16": lambda: softmax_bwd_wide_case(torch.bfloat16),
    "ln_fwd_f32": lambda: ln_fwd_case(torch.float32),
    "rms_fwd_compile_f32": lambda: rms_fwd_compile_case(torch.float32),
    "rms_fwd_compile_f32_8k": lambda: rms_fwd_compile_case(torch.float32, 8192, 8192),
    "rms_fwd_compile_f32_16k": lambda: rms_fwd_compile_case(torch.float32, 4096, 16384),
    "swiglu_bwd_f32": lambda: swiglu_bwd_case(torch.float32),
    "rms_fwd_rows4096_bf16": lambda: rms_fwd_case(torch.bfloat16, 32768, 4096),
    "softmax_bwd_wide_f32": lambda: softmax_bwd_wide_case(torch.float32),
    "embedding_f32": lambda: embedding_case(torch.float32),
    # the forty-eighth session's new miss: 0.994x compile at 8192x8192 after ef72821
    "rms_fwd_compile_bf16_8k": lambda: rms_fwd_compile_case(torch.bfloat16, 8192, 8192),
}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--ops", default=",".join(CASES))
    p.add_argument("--reps", type=int, default=50)
    p.add_argument("--rounds", type=int, default=2, help="passes over all placements (drift shows)")
    p.add_argument("--profile", action="store_true",
                   help="no timing: one call of opkit and one of the peer a case, between "
                        "cudaProfilerStart/Stop (ncu --profile-from-start off sees those alone)")
    args = p.parse_args()
    print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}")
    for name in args.ops.split(","):
        # torch.compile afresh for each case (a case sharing another's code object would
        # otherwise be a recompile with dynamic sizes, as gpu_compare.py found).
        torch._dynamo.reset()
        like, opkit_into, peer = CASES[name]()
        peer_out = peer()  # kept: opkit writes these bytes too
        torch.cuda.synchronize()
        if args.profile:
            out = torch.empty_like(like)
            opkit_into(out)  # modules loaded before the profiled window
            torch.cuda.synchronize()
            torch.cuda.profiler.start()
            opkit_into(out)
            peer()
            torch.cuda.synchronize()
            torch.cuda.profiler.stop()
            print(f"{name}: profiled one opkit call and one peer call")
            continue
        outs = [(f"offset {o}", placed(like, o)) for o in OFFSETS] + [("peer's own output", peer_out)]
        base = like.data_ptr()  # the case's first input (embedding: an output-shaped tensor)
        for rnd_i in range(args.rounds):
            t_peer = timed(peer, args.reps)
            print(f"{name} round {rnd_i + 1}: peer    {t_peer * 1000:8.2f} us")
            for label, out in outs:
                t = timed(lambda: opkit_into(out), args.reps)
                delta = out.data_ptr() - base
                print(f"{name} round {rnd_i + 1}: opkit {t * 1000:8.2f} us  ({t / t_peer:.3f} of the peer)"
                      f"  into {label:<22} output - input {delta:+d} B (mod 2 MiB {delta % (2 << 20)})")
        fresh = peer()
        print(f"{name}: a later peer output lies at output - input {fresh.data_ptr() - base:+d} B")
        del outs, peer_out, fresh
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
