#!/usr/bin/env python3
"""Turns bench/gpu_compare.py JSON files into the markdown tables of docs/PERFORMANCE.md.

    python3 bench/perf_table.py bench/results/h100-bf16.json bench/results/h100-f32.json

Per row: times, opkit's GB/s and fraction of the measured copy bandwidth, and the speed
ratios against PyTorch eager and torch.compile. A value that misses its issue-3 target
(memory-bound ops: >= 0.90 of copy bandwidth, >= 1.0x compile, >= 1.5x eager; matmul:
>= 0.90x torch.matmul) is printed in bold with the shortfall.
"""
import json
import sys


def fmt(v, digits=3):
    return "–" if v is None else f"{v:.{digits}f}"


def mark(value, target, text):
    if value is None:
        return "–"
    if value >= target:
        return text
    if text.rstrip("x") == f"{target:.2f}":  # a miss that rounds to the target shows a third digit
        text = text.replace(f"{target:.2f}", f"{value:.3f}")
    return f"**{text}** (target {target:g})"


def table(doc):
    info = doc["info"]
    out = [f"GPU: {info.get('gpu')}, driver {info.get('driver', '?')}, torch {info.get('torch')}, "
           f"CUDA {info.get('cuda')}, Triton {info.get('triton', '?')}; copy bandwidth "
           f"{info.get('driver_copy_GBps', 0):.0f} GB/s (torch copy_ of 1 GiB).", "",
           "| op | shape | dtype | opkit ms | eager ms | compile ms | opkit GB/s | of copy | vs eager | vs compile |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for r in doc["rows"]:
        if r["op"] == "matmul":
            tf, etf = r.get("opkit_TFLOPs"), r.get("eager_TFLOPs")
            ratio = tf / etf if tf and etf else None
            out.append(f"| matmul | {r['shape']} | {r['dtype']} | {fmt(r['opkit_ms'])} | {fmt(r['eager_ms'])} | – | "
                       f"{fmt(tf, 0)} TFLOP/s | – | {mark(ratio, 0.9, fmt(ratio, 2) + 'x')} | – |")
            continue
        frac, ve, vc = r.get("frac_copy_bw"), r.get("vs_eager"), r.get("vs_compile")
        out.append(f"| {r['op']} | {r['shape']} | {r['dtype']} | {fmt(r['opkit_ms'])} | {fmt(r['eager_ms'])} | "
                   f"{fmt(r['compile_ms'])} | {fmt(r.get('opkit_GBps'), 0)} | {mark(frac, 0.9, fmt(frac, 2))} | "
                   f"{mark(ve, 1.5, fmt(ve, 2) + 'x')} | {mark(vc, 1.0, fmt(vc, 2) + 'x')} |")
    return "\n".join(out)


def main():
    for path in sys.argv[1:]:
        with open(path) as f:
            print(table(json.load(f)))
            print()


if __name__ == "__main__":
    main()
