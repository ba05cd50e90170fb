#!/usr/bin/env python3
"""opkit on PyTorch tensors on a GPU: the same ops as numpy_cpu.py, on CUDA (the cuda
vendor) or ROCm (the rocm vendor), on PyTorch's current stream, checked against PyTorch.

    python3 examples/python/torch_gpu.py     # exit status 77 (skipped) without a GPU

For autograd, modules and one-call patching of Hugging Face models use opkit.torch
(docs/pytorch.md); this example calls the ops directly with pre-allocated outputs.
"""
import sys

import opkit

try:
    import torch
    import torch.nn.functional as F
except ImportError:
    print("torch_gpu: skipped (no PyTorch)")
    sys.exit(77)
if not torch.cuda.is_available():
    print("torch_gpu: skipped (PyTorch sees no CUDA/ROCm GPU)")
    sys.exit(77)

dev = "cuda"
torch.manual_seed(0)
x = torch.randn(4096, 1024, device=dev, dtype=torch.bfloat16)
w = torch.randn(1024, device=dev, dtype=torch.bfloat16)
y, rstd = torch.empty_like(x), torch.empty(4096, device=dev, dtype=torch.float32)
opkit.rms_norm_forward(x, w, 1e-6, 0.0, y, rstd)       # on torch's current stream
want = F.rms_norm(x.float(), (1024,), w.float(), 1e-6)
torch.testing.assert_close(y.float(), want, rtol=2e-2, atol=2e-2)

logits = torch.randn(512, 32000, device=dev, dtype=torch.bfloat16)
target = torch.randint(0, 32000, (512,), device=dev)
loss = torch.empty((), device=dev, dtype=torch.float32)
lse = torch.empty(512, device=dev, dtype=torch.float32)
opkit.cross_entropy_forward(logits, target, -100, 0.0, 1, loss, lse, None)
torch.testing.assert_close(loss, F.cross_entropy(logits.float(), target), rtol=1e-3, atol=1e-3)

served = opkit.op_resolve("rms_norm_forward", opkit.DEVICE_ROCM if torch.version.hip else opkit.DEVICE_CUDA)
print(f"torch_gpu: ok on {torch.cuda.get_device_name()} (rms_norm served by {served})")
