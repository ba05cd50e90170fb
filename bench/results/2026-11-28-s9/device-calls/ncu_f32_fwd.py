# fp32 rms_norm and layer_norm forwards at 32768x4096, where torch.compile measured 0.943x /
# 0.953x opkit's time on the H200 (compare-f32, call 3): opkit's kernel and Inductor's, for
# Nsight Compute.
import os, sys, torch
import torch.nn.functional as F
sys.path.insert(0, os.path.join(os.getcwd(), "python"))
import opkit
x = torch.randn(32768, 4096, device="cuda"); w = torch.randn(4096, device="cuda"); b = torch.randn_like(w)
y = torch.empty_like(x); rs = torch.empty(32768, device="cuda"); mean = torch.empty_like(rs)
rms_c = torch.compile(lambda x, w: F.rms_norm(x, (4096,), w, 1e-6))
ln_c = torch.compile(lambda x, w, b: F.layer_norm(x, (4096,), w, b, 1e-5))
for _ in range(2):
    rms_c(x, w); ln_c(x, w, b)
torch.cuda.synchronize()
torch.cuda.cudart().cudaProfilerStart()
opkit.rms_norm_forward(x, w, 1e-6, 0.0, y, rs)
rms_c(x, w)
opkit.layer_norm_forward(x, w, b, 1e-5, y, mean, rs)
ln_c(x, w, b)
torch.cuda.synchronize()
torch.cuda.cudart().cudaProfilerStop()
print("done")
