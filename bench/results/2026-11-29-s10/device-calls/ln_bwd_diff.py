"""Compares two ln_bwd_outputs.py files (old, new): per case, how many dx/dw/db elements
differ between them, and each one's largest error against a float64 reference scaled by
the reference's largest magnitude. Exit status 1 when the new library's error is more
than twice the old one's plus one 2-byte ulp at the reference's scale."""
import sys

import torch

old, new = torch.load(sys.argv[1]), torch.load(sys.argv[2])
bad = 0
for key in old:
    o, n = old[key], new[key]
    x, dy, w = o["x"].double(), o["dy"].double(), o["w"].double()
    mean, rstd = o["mean"].double()[:, None], o["rstd"].double()[:, None]
    xhat = (x - mean) * rstd
    g = dy * w
    ref_dx = rstd * (g - g.mean(-1, keepdim=True) - xhat * (g * xhat).mean(-1, keepdim=True))
    ref = {"dx": ref_dx, "dw": (dy * xhat).sum(0), "db": dy.sum(0)}
    ulp = 2.0 ** -7 if "bfloat16" in key else 2.0 ** -10
    for t in ("dx", "dw", "db"):
        scale = ref[t].abs().max().item()
        eo = ((o[t].double() - ref[t]).abs().max() / scale).item()
        en = ((n[t].double() - ref[t]).abs().max() / scale).item()
        differ = (o[t] != n[t]).sum().item()
        flag = "" if en <= 2 * eo + ulp else "  WORSE"
        bad += bool(flag)
        print(f"{key:22s} {t}: {differ:10d} of {o[t].numel():10d} differ; max err/scale old {eo:.3e} new {en:.3e}{flag}")
print("FAIL" if bad else "OK", bad, "worse")
sys.exit(1 if bad else 0)
