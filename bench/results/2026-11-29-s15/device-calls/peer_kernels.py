#!/usr/bin/env python3
"""Compiles the peers' forward kernels once each, so that their Triton sources and PTX land
in TRITON_CACHE_DIR / TORCHINDUCTOR_CACHE_DIR for reading: torch.compile's rms_norm,
layer_norm and softmax forwards and Liger-Kernel's rms_norm / layer_norm forwards, fp32
and bf16, at 32768x4096 and 8192x8192 (bench/gpu_compare.py's shapes and calls). The
question: which cache hints and launch shapes the kernels that beat opkit's forwards use.
"""
import torch
import torch.nn.functional as F

from liger_kernel.ops.layer_norm import LigerLayerNormFunction
from liger_kernel.ops.rms_norm import LigerRMSNormFunction

for dt in (torch.float32, torch.bfloat16):
    for R, N in ((32768, 4096), (8192, 8192)):
        x = torch.randn(R, N, device="cuda", dtype=dt)
        w, b = torch.randn(N, device="cuda", dtype=dt), torch.randn(N, device="cuda", dtype=dt)
        torch._dynamo.reset()
        torch.compile(lambda x, w: F.rms_norm(x, (N,), w, 1e-6))(x, w)
        torch.compile(lambda x, w, b: F.layer_norm(x, (N,), w, b, 1e-5))(x, w, b)
        torch.compile(lambda x: torch.softmax(x, -1))(x)
        LigerRMSNormFunction.apply(x, w, 1e-6, 0.0, "llama", True)
        LigerLayerNormFunction.apply(x, w, b, 1e-5)
        torch.cuda.synchronize()
        print(dt, R, N, "compiled")
