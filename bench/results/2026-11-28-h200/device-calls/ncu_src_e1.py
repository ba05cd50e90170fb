# The bf16 rms_norm forward and bf16 softmax backward at 4096x16384 (the widest gaps to
# Liger-Kernel on the H200), once from opkit and once from Liger, for ncu's source page.
import os, sys, torch
sys.path.insert(0, os.path.join(os.getcwd(), "python"))
import opkit
from liger_kernel.ops.rms_norm import LigerRMSNormFunction
from liger_kernel.ops.softmax import LigerSoftmaxFunction
R, N = 4096, 16384
dt = torch.bfloat16
x = torch.randn(R, N, device="cuda").to(dt)
w = torch.randn(N, device="cuda").to(dt)
y = torch.empty_like(x); rstd = torch.empty(R, device="cuda")
opkit.rms_norm_forward(x, w, 1e-6, 0.0, y, rstd)
LigerRMSNormFunction.apply(x, w, 1e-6, 0.0, "llama", True)
ys = torch.softmax(x.float(), -1).to(dt); dy = torch.randn_like(ys); dx = torch.empty_like(ys)
opkit.softmax_backward(dy, ys, dx)
xs = x.clone().requires_grad_(True)
LigerSoftmaxFunction.apply(xs).backward(dy)
torch.cuda.synchronize()
print("done")
