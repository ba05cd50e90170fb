#!/usr/bin/env python3
"""torch.compile's generated Triton code and launch settings for the peers' kernels that lead
opkit's by a few percent, written as bench/gpu_compare.py compiles them (each shape on its
own: Dynamo is reset between cases, so no kernel is a recompile with dynamic sizes). Run on
the GPU machine:

    TORCH_LOGS=output_code python3 bench/inductor_dump.py [CASE ...] 2> inductor-code.txt

CASE: names from CASES below (default: all). The thirty-second session dumped the bf16
softmax backward and the fp32 rope forward; the thirty-ninth added the gaps that the static
compiles showed (the fp32 rms_norm forward at rows of 8192 and 16384, the bf16 swiglu and
geglu forwards at 8192x8192 and the bf16 swiglu backward at 4096x16384).
"""
import sys

import torch
import torch.nn.functional as F

from peer_math import rope, sm_bwd_math, sw_bwd

torch.manual_seed(0)


def rand(*shape, dtype=torch.float32):
    return torch.randn(*shape, device="cuda").to(dtype)


def softmax_bwd(R, N):
    return sm_bwd_math, (rand(R, N, dtype=torch.bfloat16),
                         torch.softmax(rand(R, N), -1).to(torch.bfloat16))


def rms_fwd(R, N):
    return (lambda x, w: F.rms_norm(x, (N,), w, 1e-6)), (rand(R, N), rand(N))


def gated_fwd(R, N, gelu):
    f = (lambda a, b: F.gelu(a, approximate="tanh") * b) if gelu else (lambda a, b: F.silu(a) * b)
    return f, (rand(R, N, dtype=torch.bfloat16), rand(R, N, dtype=torch.bfloat16))


CASES = {
    "softmax_bwd_bf16_32768x4096": lambda: softmax_bwd(32768, 4096),
    "softmax_bwd_bf16_4096x16384": lambda: softmax_bwd(4096, 16384),
    "rope_fwd_f32": lambda: (rope, (rand(4, 4096, 32, 128), torch.rand(4096, 128, device="cuda"),
                                    torch.rand(4096, 128, device="cuda"))),
    "rms_fwd_f32_8192x8192": lambda: rms_fwd(8192, 8192),
    "rms_fwd_f32_4096x16384": lambda: rms_fwd(4096, 16384),
    "swiglu_fwd_bf16_8192x8192": lambda: gated_fwd(8192, 8192, False),
    "geglu_fwd_bf16_8192x8192": lambda: gated_fwd(8192, 8192, True),
    "swiglu_bwd_bf16_4096x16384": lambda: (sw_bwd, tuple(rand(4096, 16384, dtype=torch.bfloat16) for _ in range(3))),
}

for name in sys.argv[1:] or CASES:
    fn, args = CASES[name]()
    print(f"=== {name}", file=sys.stderr, flush=True)
    torch.compile(fn)(*args)
    torch.cuda.synchronize()
    torch._dynamo.reset()
print("done")
