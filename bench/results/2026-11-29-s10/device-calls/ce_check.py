"""Session 2026-11-29 (tenth): the cross-entropy forward for the loss alone (no dlogits:
opk_ce_fwd_loss_* for rows of 512-thread blocks or more) of the library OPKIT_LIBRARY
names, against PyTorch's cross_entropy in float64, at gpu_compare's shapes and an odd V,
with ignored rows, label smoothing and the three reductions. Exit status 1 on a miss."""
import sys

import torch
import torch.nn.functional as F

import opkit

bad = 0
for dt in (torch.bfloat16, torch.float32):
    for R, V in ((8192, 32000), (8192, 128256), (1000, 50257), (77, 20000)):
        g = torch.Generator(device="cuda").manual_seed(R + V)
        x = (torch.randn(R, V, device="cuda", generator=g) * 3).to(dt)
        t = torch.randint(0, V, (R,), device="cuda", generator=g)
        t[::13] = -100
        for eps in (0.0, 0.1):
            for red, name in ((0, "none"), (1, "mean"), (2, "sum")):
                loss = torch.empty(R if red == 0 else (), device="cuda")
                lse = torch.empty(R, device="cuda")
                opkit.cross_entropy_forward(x, t, -100, eps, red, loss, lse)
                ref = F.cross_entropy(x.double(), t, ignore_index=-100, reduction=name, label_smoothing=eps)
                ref_lse = torch.logsumexp(x.double(), -1)
                el = ((loss.double() - ref).abs() / ref.abs().clamp(min=1)).max().item()
                es = ((lse.double() - ref_lse).abs() / ref_lse.abs().clamp(min=1)).max().item()
                ok = el < 1e-5 and es < 1e-5
                bad += not ok
                print(f"{str(dt)[6:]:9s} {R}x{V} eps {eps} {name:4s}: loss err {el:.2e} lse err {es:.2e}"
                      f"{'' if ok else '  MISS'}")
print("FAIL" if bad else "OK", bad, "misses")
sys.exit(1 if bad else 0)
