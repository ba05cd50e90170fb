#!/usr/bin/env python3
"""PyTorch eager and torch.compile timings for the shapes of the cuda vendor's first
bandwidth look (tests/gpu/test_cuda_bench.cpp: bf16, 2^26 elements as M x N), so that the
two can be read side by side from one GPU session. CUDA events, median of 20 after
warm-up; GB/s counts each input read once and each output written once.

    python3 bench/torch_baseline.py
"""
import statistics

import torch
import torch.nn.functional as F


def timed(fn, reps=20):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    out = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        out.append(a.elapsed_time(b))
    return statistics.median(out)


def main():
    print(f"# {torch.cuda.get_device_name()} torch {torch.__version__} CUDA {torch.version.cuda}")
    src = torch.empty(1 << 28, device="cuda").uniform_()
    dst = torch.empty_like(src)
    ms = timed(lambda: dst.copy_(src))
    print(f"TORCH memcpy d2d 1 GiB {ms:9.3f} ms {2 * src.numel() * 4 / ms / 1e6:8.0f} GB/s")
    dt = torch.bfloat16
    for N in (4096, 32768):
        torch._dynamo.reset()  # compile each shape statically (gpu_compare.py says why)
        M = (1 << 26) // N
        x = torch.randn(M, N, device="cuda", dtype=dt)
        w = torch.randn(N, device="cuda", dtype=dt)
        dy = torch.randn_like(x)
        e = x.numel() * 2
        y = torch.softmax(x.float(), -1).to(dt)
        rms_c = torch.compile(lambda x, w: F.rms_norm(x, (N,), w, 1e-6))
        sm_c = torch.compile(lambda x: torch.softmax(x, -1))
        sw_c = torch.compile(lambda a, b: F.silu(a) * b)
        smb = lambda dy, y: (y.float() * (dy.float() - (dy.float() * y.float()).sum(-1, keepdim=True))).to(dt)
        smb_c = torch.compile(smb)
        cases = [
            ("rms_norm_forward", 2 * e, lambda: F.rms_norm(x, (N,), w, 1e-6), lambda: rms_c(x, w)),
            ("softmax_forward", 2 * e, lambda: torch.softmax(x, -1), lambda: sm_c(x)),
            ("softmax_backward", 3 * e, lambda: torch._softmax_backward_data(dy, y, -1, dt), lambda: smb_c(dy, y)),
            ("swiglu_forward", 3 * e, lambda: F.silu(x) * dy, lambda: sw_c(x, dy)),
            ("axpy", 3 * e, lambda: dy.add_(x, alpha=0.5), None),
        ]
        for name, nbytes, eager, compiled in cases:
            me = timed(eager)
            mc = timed(compiled) if compiled else float("nan")
            print(f"TORCH {name:18s} {M}x{N:<6d} eager {me:8.3f} ms {nbytes / me / 1e6:6.0f} GB/s | "
                  f"compile {mc:8.3f} ms {nbytes / mc / 1e6:6.0f} GB/s")
    a = torch.randn(8192, 8192, device="cuda", dtype=dt)
    b = torch.randn_like(a)
    ms = timed(lambda: a @ b)
    print(f"TORCH matmul 8192^3 bf16 {ms:8.3f} ms {2 * 8192 ** 3 / ms / 1e9:6.0f} TFLOP/s")


if __name__ == "__main__":
    main()
