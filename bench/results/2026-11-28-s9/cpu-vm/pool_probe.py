# Run from the checkout root: OPKIT_NUM_THREADS=2 OPKIT_VENDORS_DISABLE=cuda,rocm OPKIT_LIBRARY=<build>/lib/libopkit.so.1
# python bench/results/2026-11-28-s9/cpu-vm/pool_probe.py opkit|torch: the bf16 softmax backward (2048x4096, 2
# threads) timed fresh and after each norm case of bench/cpu_compare.py (opkit's or PyTorch's calls only).
import os, sys, time, statistics, torch
import torch.nn.functional as F
sys.path.insert(0, "bench"); sys.path.insert(0, "python")
import opkit, cpu_compare as cc
torch.set_num_threads(2)
mode = sys.argv[1]
cs = {}
for dt in (torch.float32, torch.bfloat16):
    for op, ok, pt in cc.cases(torch, F, opkit, dt):
        cs[(op, str(dt))] = (ok, pt)
def med(fn, reps=11):
    time.sleep(0.25); fn(); fn()
    t = []
    for _ in range(reps):
        t0 = time.perf_counter(); fn(); t.append(time.perf_counter() - t0)
    return statistics.median(t) * 1e3
b = "torch.bfloat16"
target = cs[("softmax_backward", b)][0]
print("fresh", f"{med(target):.3f}")
for op in ["rms_norm_forward", "rms_norm_backward", "layer_norm_forward", "layer_norm_backward"]:
    ok, pt = cs[(op, b)]
    if mode in ("opkit", "both"): med(ok)
    if mode in ("torch", "both"): med(pt)
    print("after", op, f"{med(target):.3f}")
