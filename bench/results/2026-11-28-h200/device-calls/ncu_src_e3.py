# The bf16 rms_norm forward at 4096x16384 (now the fixed-group kernel) and the fp32
# layer_norm backward at 8192x8192, from opkit and from Liger-Kernel, for ncu.
import os, sys, torch
sys.path.insert(0, os.path.join(os.getcwd(), "python"))
import opkit
from liger_kernel.ops.rms_norm import LigerRMSNormFunction
from liger_kernel.ops.layer_norm import LigerLayerNormFunction
R, N = 4096, 16384
x = torch.randn(R, N, device="cuda").to(torch.bfloat16)
w = torch.randn(N, device="cuda").to(torch.bfloat16)
y = torch.empty_like(x); rstd = torch.empty(R, device="cuda")
opkit.rms_norm_forward(x, w, 1e-6, 0.0, y, rstd)
LigerRMSNormFunction.apply(x, w, 1e-6, 0.0, "llama", True)
R = N = 8192
x = torch.randn(R, N, device="cuda"); w = torch.randn(N, device="cuda"); b = torch.randn(N, device="cuda")
dy = torch.randn_like(x); y = torch.empty_like(x); mean = torch.empty(R, device="cuda"); rstd = torch.empty_like(mean)
opkit.layer_norm_forward(x, w, b, 1e-5, y, mean, rstd)
dx = torch.empty_like(x); dw = torch.empty_like(w); db = torch.empty_like(b)
opkit.layer_norm_backward(dy, x, w, mean, rstd, dx, dw, db)
xs = x.clone().requires_grad_(True); ws = w.clone().requires_grad_(True); bs = b.clone().requires_grad_(True)
LigerLayerNormFunction.apply(xs, ws, bs, 1e-5).backward(dy)
torch.cuda.synchronize()
print("done")
