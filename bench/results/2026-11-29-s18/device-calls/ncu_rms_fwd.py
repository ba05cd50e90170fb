# bf16 rms_norm forward at 32768x4096, opkit's kernel and Liger-Kernel's, three calls each
# back to back on the same buffers (as gpu_compare.py repeats a call: the previous call's
# output still dirty in L2), for Nsight Compute with and without its cache flush.
import os, sys, torch
sys.path.insert(0, os.path.join(os.getcwd(), "python"))
import opkit
from liger_kernel.ops.rms_norm import LigerRMSNormFunction
dt, dev = torch.bfloat16, "cuda"
torch.manual_seed(0)
x, w = torch.randn(32768, 4096, device=dev).to(dt), torch.randn(4096, device=dev).to(dt)
y, rs = torch.empty_like(x), torch.empty(32768, device=dev)
for _ in range(3):
    opkit.rms_norm_forward(x, w, 1e-6, 0.0, y, rs)
for _ in range(3):
    out = LigerRMSNormFunction.apply(x, w, 1e-6, 0.0, "llama", False)
torch.cuda.synchronize()
print("done")
