#!/usr/bin/env python3
"""Every cuda-vendor kernel whose blocks talk across a thread-block cluster carries
_k<cluster size> (2 or more) in its name, and every kernel so named does talk: read from
the sm_90 SASS on the build machine (no GPU needed).

    python3 scripts/check-cluster-kernel-names.py build/vendors/cuda/fatbin [--arch sm_90]

Why: compute-sanitizer's racecheck cannot run a kernel that touches another block's
shared memory (distributed shared memory) without instrumenting it: it stops with "The
Sanitizer failed to handle a hardware exception" at the kernel's first launch (the
fourteenth and twenty-third sessions, docs/cuda-vendor.md). scripts/gpu-check.sh therefore
names the kernels racecheck must instrument by that suffix (--kernel-name kns=_k2), and the
twenty-second session's new pair kernels, named without it, failed the whole check. This
makes the suffix a checked rule instead of a convention.

What is read: a kernel that reads a partner block's shared memory must first wait for the
cluster (the partner may not have written it, or may have exited), so its SASS has the
cluster barrier (UCGABAR_ARV / UCGABAR_WAIT, cooperative_groups' cluster.sync()); a
kernel of clusters of one never needs it. Exit status: 0 the names agree, 1 a kernel
breaks the rule, 2 bad usage, 77 no cuobjdump or no kernel of that architecture (ctest
shows it as skipped).
"""
import argparse
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "bench"))
import sass_static  # noqa: E402

CLUSTER_NAME_RE = re.compile(r"_k([2-9]|[1-9]\d+)(_|$)")  # _k2, _k4, _k8 ... as a whole name part


def waits_for_cluster(instructions):
    """Whether a kernel's SASS has the cluster barrier."""
    return any(sass_static.opcode(text).startswith("UCGABAR") for _, text in instructions)


def check(kernels):
    """Errors for {kernel: [(address, instruction)]}: a kernel with the cluster barrier and
    no _k<n> suffix, or the suffix and no barrier."""
    errors = []
    for name, instructions in sorted(kernels.items()):
        named, waits = bool(CLUSTER_NAME_RE.search(name)), waits_for_cluster(instructions)
        if waits and not named:
            errors.append(f"{name}: waits for its cluster (UCGABAR) but its name has no _k<n> (n >= 2): "
                          "gpu-check's racecheck step would run it uninstrumented")
        elif named and not waits:
            errors.append(f"{name}: named _k<n> (n >= 2) but never waits for its cluster: rename it, or say why")
    return errors


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("fatbins", nargs="+", help="fatbin or cubin files, or directories of *.fatbin")
    p.add_argument("--arch", default="sm_90")
    args = p.parse_args()
    _, kernels, _, status = sass_static.gate_read(args.fatbins, args.arch, "check-cluster-kernel-names")
    if status is not None:
        return status
    errors = check(kernels)
    for e in errors:
        print(f"FAIL: {e}")
    clustered = sum(1 for k in kernels.values() if waits_for_cluster(k))
    print(f"check-cluster-kernel-names: {len(kernels)} {args.arch} kernels, {clustered} waiting for their cluster: "
          + ("all named _k<n>" if not errors else f"{len(errors)} violation(s)"))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
