# The forward row kernels at 4096x16384 (rms_norm f32/bf16, softmax f32, layer_norm f32),
# once from opkit and once from Liger-Kernel, for ncu.
import os, sys, torch
sys.path.insert(0, os.path.join(os.getcwd(), "python"))
import opkit
from liger_kernel.ops.rms_norm import LigerRMSNormFunction
from liger_kernel.ops.layer_norm import LigerLayerNormFunction
from liger_kernel.ops.softmax import LigerSoftmaxFunction
R, N = 4096, 16384
for dt in (torch.float32, torch.bfloat16):
    x = torch.randn(R, N, device="cuda").to(dt)
    w = torch.randn(N, device="cuda").to(dt); b = torch.randn(N, device="cuda").to(dt)
    y = torch.empty_like(x); rstd = torch.empty(R, device="cuda"); mean = torch.empty_like(rstd)
    opkit.rms_norm_forward(x, w, 1e-6, 0.0, y, rstd)
    LigerRMSNormFunction.apply(x, w, 1e-6, 0.0, "llama", True)
    if dt == torch.float32:
        opkit.softmax_forward(x, y)
        LigerSoftmaxFunction.apply(x)
        opkit.layer_norm_forward(x, w, b, 1e-5, y, mean, rstd)
        LigerLayerNormFunction.apply(x, w, b, 1e-5)
torch.cuda.synchronize()
print("done")
