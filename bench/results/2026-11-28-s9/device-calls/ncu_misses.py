# The GPU rows that still miss Liger-Kernel on the H200 (bf16), once from opkit and once from
# Liger, for Nsight Compute: layer_norm backward 8192x8192, softmax backward 8192x8192,
# softmax forward 4096x16384, rms_norm forward 32768x4096.
import os, sys, torch
sys.path.insert(0, os.path.join(os.getcwd(), "python"))
import opkit
from liger_kernel.ops.layer_norm import LigerLayerNormFunction
from liger_kernel.ops.rms_norm import LigerRMSNormFunction
from liger_kernel.ops.softmax import LigerSoftmaxFunction
dt, dev = torch.bfloat16, "cuda"
def rnd(*s): return torch.randn(*s, device=dev).to(dt)

x, w, b, dy = rnd(8192, 8192), rnd(8192), rnd(8192), rnd(8192, 8192)
y = torch.empty_like(x); mean = torch.empty(8192, device=dev); rstd = torch.empty_like(mean)
opkit.layer_norm_forward(x, w, b, 1e-5, y, mean, rstd)
dx, dw, db = torch.empty_like(x), torch.empty_like(w), torch.empty_like(b)
opkit.layer_norm_backward(dy, x, w, mean, rstd, dx, dw, db)
xs, ws, bs = (t.clone().requires_grad_(True) for t in (x, w, b))
LigerLayerNormFunction.apply(xs, ws, bs, 1e-5).backward(dy)

x, dy = rnd(8192, 8192), rnd(8192, 8192)
y = torch.empty_like(x); opkit.softmax_forward(x, y)
dx = torch.empty_like(x); opkit.softmax_backward(dy, y, dx)
xs = x.clone().requires_grad_(True)
LigerSoftmaxFunction.apply(xs).backward(dy)

x = rnd(4096, 16384); y = torch.empty_like(x); opkit.softmax_forward(x, y)
LigerSoftmaxFunction.apply(x)

x, w = rnd(32768, 4096), rnd(4096); y = torch.empty_like(x)
rs = torch.empty(32768, device=dev)
opkit.rms_norm_forward(x, w, 1e-6, 0.0, y, rs)
LigerRMSNormFunction.apply(x, w, 1e-6, 0.0, "llama", False)
torch.cuda.synchronize()
print("done")
