# One layer_norm backward, bf16 8192x8192, from opkit and from Liger-Kernel, for ncu.
import os, sys, torch
sys.path.insert(0, os.path.join(os.getcwd(), "python"))
import opkit
from liger_kernel.ops.layer_norm import LigerLayerNormFunction
R = N = 8192
dt = torch.bfloat16
x = torch.randn(R, N, device="cuda").to(dt); dy = torch.randn(R, N, device="cuda").to(dt)
w = torch.randn(N, device="cuda").to(dt); b = torch.randn(N, device="cuda").to(dt)
y, dx, dw, db = torch.empty_like(x), torch.empty_like(x), torch.empty_like(w), torch.empty_like(b)
mean = torch.empty(R, device="cuda"); rstd = torch.empty_like(mean)
opkit.layer_norm_forward(x, w, b, 1e-5, y, mean, rstd)
opkit.layer_norm_backward(dy, x, w, mean, rstd, dx, dw, db)
xg, wg, bg = x.clone().requires_grad_(), w.clone().requires_grad_(), b.clone().requires_grad_()
yl = LigerLayerNormFunction.apply(xg, wg, bg, 1e-5)
yl.backward(dy)
torch.cuda.synchronize()
print("done")
