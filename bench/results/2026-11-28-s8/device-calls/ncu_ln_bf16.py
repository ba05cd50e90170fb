# The bf16 layer_norm backward at 8192x8192 (0.79x Liger-Kernel on the H200) and forward at
# 32768x4096 (0.89x), once from opkit and once from Liger, for ncu's source page.
import os, sys, torch
sys.path.insert(0, os.path.join(os.getcwd(), "python"))
import opkit
from liger_kernel.ops.layer_norm import LigerLayerNormFunction
dt = torch.bfloat16
for R, N, bwd in ((8192, 8192, True), (32768, 4096, False)):
    x = torch.randn(R, N, device="cuda").to(dt); w = torch.randn(N, device="cuda").to(dt)
    b = torch.randn(N, device="cuda").to(dt); dy = torch.randn_like(x)
    y = torch.empty_like(x); mean = torch.empty(R, device="cuda"); rstd = torch.empty_like(mean)
    opkit.layer_norm_forward(x, w, b, 1e-5, y, mean, rstd)
    xs = x.clone().requires_grad_(True); ws = w.clone().requires_grad_(True); bs = b.clone().requires_grad_(True)
    out = LigerLayerNormFunction.apply(xs, ws, bs, 1e-5)
    if bwd:
        dx = torch.empty_like(x); dw = torch.empty_like(w); db = torch.empty_like(b)
        opkit.layer_norm_backward(dy, x, w, mean, rstd, dx, dw, db)
        out.backward(dy)
torch.cuda.synchronize()
print("done")
