#!/usr/bin/env python3
"""Checks that the stash test cases really ran every stash kernel (NVIDIA sm_90+).

The stash kernels (cross-entropy's forward with dlogits, the norm backwards: kernels on
thread-block clusters and cp.async, docs/decisions.md "Kernels for NVIDIA alone") are
chosen by the host only where the device reports cluster launch and the loaded image has
them; anywhere else the kernels they replace run and give the same results, so the tests'
own assertions cannot tell which ran. This reads the per-kernel summary Nsight Compute
prints for those test cases and fails unless every stash kernel the host can launch
appears in it.

    ncu --print-summary per-kernel --metrics gpu__time_duration.sum --kernel-id ::regex:_stash_:1 \\
        <build>/bin/opkit_cuda_tests "<the stash test cases>" > ncu.log

(--kernel-id's invocation 1: each kernel's first launch alone is profiled.)
    scripts/check-stash-kernels-ran.py ncu.log

scripts/gpu-check.sh runs both where `ncu` is installed. The expected names are listed
here; scripts/tests/test_stash_kernels_ran.py checks that list against the names the
host sources spell (the AMD gate's derivation, filtered by its NVIDIA_ONLY_RE).
"""
import re
import sys

CE_CLUSTERS = (1, 2, 4, 8)  # kCeStashMaxCluster = 8, powers of two
NORM_CONFIGS = {"f32": (0, 1), "f16": (0, 1, 2), "bf16": (0, 1, 2)}  # kNormStashMaxPacks32: fp32 has no s2
RMS_F32_CONFIGS = (0, 1, 2)  # ... but rms_norm's has (kRmsStashMaxPacks32)
NORM_SPLIT = {"f32": (2,)}  # fp32 rows split over a cluster of kNormStashSplit blocks
LN_PAIR_TYPES = ("f16", "bf16")  # norm_stash_pairs: layer_norm's 2-byte kernels, pairs of blocks


def expected_names():
    names = set()
    for dt in ("f32", "f16", "bf16"):
        names.update(f"opk_ce_fwd_stash_{dt}_k{k}" for k in CE_CLUSTERS)
        for op in ("rms", "ln"):
            for i in RMS_F32_CONFIGS if (op, dt) == ("rms", "f32") else NORM_CONFIGS[dt]:
                pair = "_k2" if op == "ln" and dt in LN_PAIR_TYPES else ""
                names.add(f"opk_{op}_bwd_stash_{dt}_s{i}{pair}")
                names.add(f"opk_{op}_bwd_stash_{dt}_s{i}{pair}_exact")
            for k in NORM_SPLIT.get(dt, ()):
                names.add(f"opk_{op}_bwd_stash_{dt}_k{k}")
                names.add(f"opk_{op}_bwd_stash_{dt}_k{k}_exact")
    return names


# A kernel's line in `ncu --print-summary per-kernel`: two spaces, the name, its launch shape.
SUMMARY_LINE_RE = re.compile(r"^\s+(opk_[A-Za-z0-9_]+) \(\d+, \d+, \d+\)x\(\d+, \d+, \d+\)")


def kernels_in(text):
    return {m.group(1) for m in map(SUMMARY_LINE_RE.match, text.splitlines()) if m}


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8", errors="replace") as f:
        ran = kernels_in(f.read())
    want = expected_names()
    missing = sorted(want - ran)
    if missing:
        print(f"check-stash-kernels-ran: {len(missing)} of {len(want)} stash kernels never ran: {missing}")
        return 1
    print(f"check-stash-kernels-ran: OK, all {len(want)} stash kernels ran")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
