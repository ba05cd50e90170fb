#!/usr/bin/env python3
"""The NVIDIA counterpart of the AMD code-object gate (check-code-objects.py): every kernel
of the cuda vendor's fatbins, on one architecture (sm_90, where they are measured), must
stay within its budget of stack bytes and of local-memory loads and stores inside its
loops (spills a row pays again and again), read from the SASS on the build machine.

    python3 scripts/check-cuda-spills.py build/vendors/cuda/fatbin [--arch sm_90]
    python3 scripts/check-cuda-spills.py build/vendors/cuda/fatbin --suggest   # today's values

Why: the kernels near their register limit change speed with where ptxas puts their
spills. The seventeenth session measured the bf16 layer_norm stash backward of four packs
at 0.13 ms (4096x16384, H200) with 40 bytes of stack and 8 local loads in its loops, and
at 0.17-0.19 ms after changes elsewhere (the row addressing) moved it to 144-192 bytes and
45-79 local accesses in its loops; nothing but a timing on a GPU showed it. With this gate
such a change fails CI until its budget row is raised with a reason (or the spill fixed).

Budgets: scripts/cuda-spill-budgets.tsv, one tab-separated row a kernel name or fnmatch
pattern (an exact name wins over a pattern, a pattern over '*'): stack bytes, loop local
accesses, and why. Any growth fails; a kernel below its budget prints a note (lower it:
--suggest prints today's values). Given a directory (the vendor's whole set), a row that
matches no kernel fails too. Exit status: 0 within budget, 1 over (or a budget row
that matches no kernel), 2 bad usage, 77 no cuobjdump or no kernel of that architecture
(ctest shows it as skipped).
"""
import argparse
import fnmatch
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "bench"))
import sass_static  # noqa: E402


def load_budgets(path):
    """[{"kernel", "stack", "loop_local", "why", "line"}] from the budgets file."""
    rows = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#") or line.startswith("kernel\t"):
                continue
            cols = line.split("\t")
            if len(cols) != 4 or not cols[3].strip():
                raise SystemExit(f"check-cuda-spills: {path}:{n}: want kernel, stack, loop_local, why (tabs)")
            rows.append({"kernel": cols[0], "stack": int(cols[1]), "loop_local": int(cols[2]), "why": cols[3],
                         "line": n})
    return rows


def budget_for(rows, name):
    """The row that applies to kernel `name`: exact name, else a pattern, else '*'."""
    exact = [r for r in rows if r["kernel"] == name]
    if exact:
        return exact[0]
    patterns = [r for r in rows if r["kernel"] != "*" and fnmatch.fnmatchcase(name, r["kernel"])]
    if patterns:
        return patterns[0]
    default = [r for r in rows if r["kernel"] == "*"]
    return default[0] if default else None


def measure(kernels, resources):
    """{kernel: (stack bytes, local accesses inside loops)}."""
    return {name: (resources.get(name, {}).get("STACK", 0), sass_static.loop_local_accesses(ins))
            for name, ins in kernels.items()}


def check(values, rows, complete=True):
    """(errors, notes) of values {kernel: (stack, loop_local)} against the budget rows;
    complete: the values are the whole vendor's, so a row that matches none is stale."""
    errors, notes, used = [], [], set()
    for name, (stack, local) in sorted(values.items()):
        row = budget_for(rows, name)
        if row is None:
            errors.append(f"{name}: no budget row (and no '*')")
            continue
        used.add(row["line"])
        for what, have, limit in (("stack bytes", stack, row["stack"]), ("loop local accesses", local, row["loop_local"])):
            if have > limit:
                errors.append(f"{name}: {have} {what} > budget {limit} (line {row['line']}: {row['kernel']})")
            elif have < limit and row["kernel"] != "*":
                notes.append(f"{name}: {have} {what} < budget {limit} (line {row['line']}): lower it")
    for row in rows if complete else []:
        if row["kernel"] != "*" and row["line"] not in used:
            errors.append(f"budget line {row['line']} ({row['kernel']}) matches no kernel: remove it")
    return errors, notes


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("fatbins", nargs="+", help="fatbin or cubin files, or directories of *.fatbin")
    p.add_argument("--arch", default="sm_90")
    p.add_argument("--budgets", default=os.path.join(HERE, "cuda-spill-budgets.tsv"))
    p.add_argument("--suggest", action="store_true", help="print budget rows with today's values")
    args = p.parse_args()
    files, kernels, resources, status = sass_static.gate_read(args.fatbins, args.arch, "check-cuda-spills")
    if status is not None:
        return status
    values = measure(kernels, resources)
    if args.suggest:
        print("kernel\tstack\tloop_local\twhy")
        print("*\t0\t0\tno stack, no spills")
        for name, (stack, local) in sorted(values.items()):
            if stack or local:
                print(f"{name}\t{stack}\t{local}\t<reason: write why this kernel may spill>")
        return 0
    # A directory is the vendor's whole set of fatbins; single files are a part of it.
    errors, notes = check(values, load_budgets(args.budgets), complete=any(os.path.isdir(f) for f in args.fatbins))
    for n in notes:
        print(f"note: {n}")
    for e in errors:
        print(f"FAIL: {e}")
    print(f"check-cuda-spills: {len(values)} {args.arch} kernels in {len(files)} file(s): "
          + ("within budget" if not errors else f"{len(errors)} violation(s)"))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
