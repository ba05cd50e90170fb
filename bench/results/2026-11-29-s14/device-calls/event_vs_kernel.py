# Where gpu_compare.py's per-call time (events around one call queued behind a spin
# kernel) and the kernel's own duration (CUPTI, through torch.profiler) part, for opkit and
# Liger-Kernel on the rows where opkit trails Liger by more than Nsight Compute's kernel
# durations say (call 2: 1-2 % under ncu, 4.6-6 % in gpu_compare). Same calls, same
# buffers, same loop as gpu_compare.timed; the profiler records the kernels of the timed
# calls (the spin kernels and warm-up excluded by name / by count).
import os, statistics, sys, torch
from torch.profiler import profile, ProfilerActivity
sys.path.insert(0, os.path.join(os.getcwd(), "python"))
import opkit
from liger_kernel.ops.layer_norm import LigerLayerNormFunction
from liger_kernel.ops.rms_norm import LigerRMSNormFunction

def rnd(dt, *s): return torch.randn(*s, device="cuda").to(dt)

def timed(fn, reps=30, calls=1):
    for _ in range(5): fn()
    torch.cuda.synchronize()
    ev = []
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(reps):
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            torch.cuda._sleep(2_000_000)
            a.record()
            for _ in range(calls): fn()
            b.record()
            b.synchronize()
            ev.append(a.elapsed_time(b) * 1e3 / calls)
    ks = {}
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA and "sleep" not in e.name and "Memcpy" not in e.name:
            ks.setdefault(e.name, []).append(e.device_time if hasattr(e, "device_time") else e.cuda_time)
    return statistics.median(ev), {k: (statistics.median(v), len(v)) for k, v in ks.items()}

cases = []
for dt, R, N in ((torch.float32, 8192, 8192), (torch.bfloat16, 4096, 16384), (torch.bfloat16, 32768, 4096)):
    x, w, b = rnd(dt, R, N), rnd(dt, N), rnd(dt, N)
    y = torch.empty_like(x); rstd = torch.empty(R, device="cuda"); mean = torch.empty_like(rstd)
    tag = f"{str(dt)[6:]} {R}x{N}"
    cases += [
        (f"rms fwd {tag} opkit", lambda x=x, w=w, y=y, r=rstd: opkit.rms_norm_forward(x, w, 1e-6, 0.0, y, r)),
        (f"rms fwd {tag} liger", lambda x=x, w=w: LigerRMSNormFunction.apply(x, w, 1e-6, 0.0, "llama", True)),
        (f"ln fwd {tag} opkit", lambda x=x, w=w, b=b, y=y, m=mean, r=rstd: opkit.layer_norm_forward(x, w, b, 1e-5, y, m, r)),
        (f"ln fwd {tag} liger", lambda x=x, w=w, b=b: LigerLayerNormFunction.apply(x, w, b, 1e-5)),
    ]
for name, fn in cases:
    for calls in (1, 4):
        ev, ks = timed(fn, calls=calls)
        kdesc = "; ".join(f"{k[:40]} {v[0]:.1f} us x{v[1]}" for k, v in ks.items())
        print(f"{name:34s} calls {calls}: event {ev:7.1f} us/call | kernels: {kdesc}", flush=True)
