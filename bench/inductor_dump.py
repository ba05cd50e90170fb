#!/usr/bin/env python3
"""torch.compile's generated Triton code and launch settings for the peers' kernels that lead
opkit's by a few percent (the bf16 softmax backward at 32768x4096 and 4096x16384, the fp32
rope forward), written as bench/gpu_compare.py compiles them. Run on the GPU machine:

    TORCH_LOGS=output_code python3 bench/inductor_dump.py 2> inductor-code.txt
"""
import torch

torch.manual_seed(0)


def sm_bwd_math(dy, y):
    yf = y.float()
    return (yf * (dy.float() - (dy.float() * yf).sum(-1, keepdim=True))).to(y.dtype)


def rope(v, c, s):
    D = v.shape[-1]
    rot = torch.cat([-v[..., D // 2:], v[..., : D // 2]], -1)
    return v * c[None, :, None, :] + rot * s[None, :, None, :]


for R, N in ((32768, 4096), (4096, 16384)):
    dy = torch.randn(R, N, device="cuda").to(torch.bfloat16)
    y = torch.softmax(torch.randn(R, N, device="cuda"), -1).to(torch.bfloat16)
    torch.compile(sm_bwd_math)(dy, y)
    torch._dynamo.reset()
x = torch.randn(4, 4096, 32, 128, device="cuda")
cos, sin = torch.rand(4096, 128, device="cuda"), torch.rand(4096, 128, device="cuda")
torch.compile(rope)(x, cos, sin)
torch.cuda.synchronize()
print("done")
