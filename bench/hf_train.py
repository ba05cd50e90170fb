#!/usr/bin/env python3
"""Trains a Hugging Face causal LM with random weights on random tokens, with and without
opkit's patch, and records the loss of every step, the step time and the peak memory
(issue 13's proof; docs/pytorch.md has the numbers).

    python3 bench/hf_train.py --out results/            # every model and variant
    python3 bench/hf_train.py --quick --out /tmp/r      # a smoke run

Variants, each in its own process (the patches are global and Liger's has no undo):
  eager    the model as transformers builds it
  compile  torch.compile(model)
  opkit    opkit.torch.patch(model): RMSNorm, SwiGLU MLP, RoPE, cross-entropy
  liger    liger_kernel's apply_liger_kernel_to_<family>(rms_norm, swiglu, rope,
           cross_entropy; fused_linear_cross_entropy=False: the same ops as opkit's patch)
Every variant starts from the same weights (same seed) and sees the same batches; bf16
weights and activations, AdamW. No model is downloaded: configs only.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

MODELS = {
    # ~170 M parameters: hidden 1024, 8 layers, vocab 32000, GQA 16/4 heads.
    "llama": dict(cls="LlamaForCausalLM", cfg="LlamaConfig",
                  args=dict(vocab_size=32000, hidden_size=1024, intermediate_size=2816, num_hidden_layers=8,
                            num_attention_heads=16, num_key_value_heads=4, max_position_embeddings=2048)),
    "qwen2": dict(cls="Qwen2ForCausalLM", cfg="Qwen2Config",
                  args=dict(vocab_size=32000, hidden_size=1024, intermediate_size=2816, num_hidden_layers=8,
                            num_attention_heads=16, num_key_value_heads=4, max_position_embeddings=2048)),
}


def run_variant(model_name, variant, steps, batch, seq, warmup):
    import torch
    import transformers

    spec = MODELS[model_name]
    cfg = getattr(transformers, spec["cfg"])(**spec["args"])
    cfg._attn_implementation = "sdpa"
    if variant == "opkit":
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
        import opkit.torch as okt
        getattr(okt, f"apply_opkit_to_{model_name}")()
    elif variant == "liger":
        import liger_kernel.transformers as lk
        getattr(lk, f"apply_liger_kernel_to_{model_name}")(rope=True, rms_norm=True, swiglu=True, cross_entropy=True,
                                                          fused_linear_cross_entropy=False)
    torch.manual_seed(0)
    model = getattr(transformers, spec["cls"])(cfg).to(device="cuda", dtype=torch.bfloat16)
    params = sum(p.numel() for p in model.parameters())
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4, betas=(0.9, 0.95), eps=1e-6, fused=True)
    step_fn = model
    if variant == "compile":
        step_fn = torch.compile(model)
    g = torch.Generator(device="cuda").manual_seed(1234)
    data = torch.randint(0, cfg.vocab_size, (steps, batch, seq), device="cuda", generator=g)
    losses, times = [], []
    torch.cuda.reset_peak_memory_stats()
    for i in range(steps):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        out = step_fn(input_ids=data[i], labels=data[i])
        out.loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
        losses.append(out.loss.item())
    timed = times[warmup:]
    return {"model": model_name, "variant": variant, "params": params, "steps": steps, "batch": batch, "seq": seq,
            "losses": losses, "step_ms_median": 1e3 * statistics.median(timed),
            "step_ms_min": 1e3 * min(timed), "first_step_s": times[0],
            "peak_mem_GiB": torch.cuda.max_memory_allocated() / 2 ** 30,
            "tokens_per_s": batch * seq / statistics.median(timed),
            "torch": torch.__version__, "transformers": transformers.__version__, "gpu": torch.cuda.get_device_name()}


def compare(results):
    """Markdown: one row per (model, variant), the loss difference against eager."""
    lines = ["| model | variant | params | step ms (median) | tokens/s | peak GiB | loss step 1 | loss step N | "
             "max abs diff vs eager | mean abs diff vs eager |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        if "error" in r:
            lines.append(f"| {r['model']} | {r['variant']} | error: {r['error'][:120]} |||||||||")
            continue
        base = next((e for e in results if e["model"] == r["model"] and e["variant"] == "eager" and "losses" in e), None)
        d = [abs(a - b) for a, b in zip(r["losses"], base["losses"])] if base else []
        lines.append(f"| {r['model']} | {r['variant']} | {r['params'] / 1e6:.0f} M | {r['step_ms_median']:.1f} | "
                     f"{r['tokens_per_s']:.0f} | {r['peak_mem_GiB']:.2f} | {r['losses'][0]:.4f} | {r['losses'][-1]:.4f} | "
                     f"{max(d) if d else float('nan'):.4f} | {statistics.mean(d) if d else float('nan'):.4f} |")
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--models", default="llama,qwen2")
    p.add_argument("--variants", default="eager,compile,opkit,liger")
    p.add_argument("--steps", type=int, default=50)
    p.add_argument("--batch", type=int, default=4)
    p.add_argument("--seq", type=int, default=1024)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--quick", action="store_true", help="3 steps of a short sequence")
    p.add_argument("--out", required=True)
    p.add_argument("--one", nargs=2, metavar=("MODEL", "VARIANT"), help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.quick:
        args.steps, args.seq, args.warmup = 3, 128, 1
    os.makedirs(args.out, exist_ok=True)
    if args.one:  # the child: one variant, its JSON on stdout's last line
        r = run_variant(args.one[0], args.one[1], args.steps, args.batch, args.seq, args.warmup)
        print(json.dumps(r))
        return
    results = []
    for m in args.models.split(","):
        for v in args.variants.split(","):
            cmd = [sys.executable, os.path.abspath(__file__), "--out", args.out, "--one", m, v, "--steps",
                   str(args.steps), "--batch", str(args.batch), "--seq", str(args.seq), "--warmup", str(args.warmup)]
            t0 = time.time()
            proc = subprocess.run(cmd, capture_output=True, text=True)
            log = os.path.join(args.out, f"{m}-{v}.log")
            with open(log, "w") as f:
                f.write(proc.stdout + proc.stderr)
            try:
                r = json.loads(proc.stdout.strip().splitlines()[-1])
            except (IndexError, ValueError):
                r = {"model": m, "variant": v, "error": (proc.stderr.strip().splitlines() or ["no output"])[-1]}
            r["wall_s"] = time.time() - t0
            results.append(r)
            print(f"{m:6s} {v:8s} " + (f"step {r['step_ms_median']:.1f} ms, peak {r['peak_mem_GiB']:.2f} GiB, "
                                        f"loss {r['losses'][0]:.4f} -> {r['losses'][-1]:.4f}" if "losses" in r
                                        else f"error: {r['error']}") + f" ({r['wall_s']:.0f} s)", flush=True)
            with open(os.path.join(args.out, "hf_train.json"), "w") as f:
                json.dump(results, f, indent=1)
    table = compare(results)
    with open(os.path.join(args.out, "hf_train.md"), "w") as f:
        f.write(table + "\n")
    print(table)


if __name__ == "__main__":
    main()
