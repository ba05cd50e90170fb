"""Session 2026-11-29 (tenth): layer_norm backward outputs of the library OPKIT_LIBRARY
names at the A/B shapes (f16/bf16 rows of 4096, 8192 and 16384), saved for
ln_bwd_diff.py, which compares two libraries' outputs with each other and against a
float64 reference. Usage: ln_bwd_outputs.py OUT.pt"""
import sys

import torch

import opkit

torch.manual_seed(7)
out = {}
for dt in (torch.bfloat16, torch.float16):
    for R, N in ((32768, 4096), (8192, 8192), (4096, 16384), (1000, 4096)):
        g = torch.Generator(device="cuda").manual_seed(R * 7 + N)
        x = (torch.randn(R, N, device="cuda", generator=g) * 2 + 0.5).to(dt)
        dy = torch.randn(R, N, device="cuda", generator=g).to(dt)
        w = (torch.rand(N, device="cuda", generator=g) + 0.5).to(dt)
        xf = x.double()
        mean = xf.mean(-1)
        rstd = torch.rsqrt(xf.var(-1, unbiased=False) + 1e-5)
        mean, rstd = mean.float(), rstd.float()
        dx, dw, db = torch.empty_like(x), torch.empty_like(w), torch.empty_like(w)
        opkit.layer_norm_backward(dy, x, w, mean, rstd, dx, dw, db)
        torch.cuda.synchronize()
        key = f"{str(dt)[6:]}-{R}x{N}"
        out[key] = {"dx": dx.cpu(), "dw": dw.cpu(), "db": db.cpu(), "x": x.cpu(), "dy": dy.cpu(), "w": w.cpu(),
                    "mean": mean.cpu(), "rstd": rstd.cpu()}
torch.save(out, sys.argv[1])
print("saved", len(out), "cases")
