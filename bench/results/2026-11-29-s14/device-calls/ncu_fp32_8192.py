# The rows where opkit trails Liger-Kernel in the thirteenth session's peer run, once from
# opkit and once from Liger, for Nsight Compute: fp32 rms_norm / layer_norm forward and
# rms_norm backward at 8192x8192 (0.95x / 0.95x / 0.97x), bf16 rms_norm forward at
# 4096x16384 (0.95x, the same launch shape as Liger's: 512 threads of four packs a row).
import os, sys, torch
sys.path.insert(0, os.path.join(os.getcwd(), "python"))
import opkit
from liger_kernel.ops.layer_norm import LigerLayerNormFunction
from liger_kernel.ops.rms_norm import LigerRMSNormFunction
dev = "cuda"
def rnd(dt, *s): return torch.randn(*s, device=dev).to(dt)

dt = torch.float32
x, w, b, dy = rnd(dt, 8192, 8192), rnd(dt, 8192), rnd(dt, 8192), rnd(dt, 8192, 8192)
y = torch.empty_like(x); rstd = torch.empty(8192, device=dev); mean = torch.empty_like(rstd)
opkit.rms_norm_forward(x, w, 1e-6, 0.0, y, rstd)
dx, dw = torch.empty_like(x), torch.empty_like(w)
opkit.rms_norm_backward(dy, x, w, rstd, 0.0, dx, dw)
xs, ws = x.clone().requires_grad_(True), w.clone().requires_grad_(True)
LigerRMSNormFunction.apply(xs, ws, 1e-6, 0.0, "llama", False).backward(dy)
opkit.layer_norm_forward(x, w, b, 1e-5, y, mean, rstd)
LigerLayerNormFunction.apply(x, w, b, 1e-5)

dt = torch.bfloat16
x, w = rnd(dt, 4096, 16384), rnd(dt, 16384)
y = torch.empty_like(x); rstd = torch.empty(4096, device=dev)
opkit.rms_norm_forward(x, w, 1e-6, 0.0, y, rstd)
LigerRMSNormFunction.apply(x, w, 1e-6, 0.0, "llama", False)
torch.cuda.synchronize()
print("done")
