#!/usr/bin/env python3
"""The SASS of the cuda vendor's kernels, read on the build machine (no GPU needed):
registers, spills and, for each kernel, its largest loops with their instruction counts
and opcode mix.

    python3 bench/sass_static.py build/vendors/cuda/fatbin/norms.fatbin \\
        --kernel 'ln_bwd_stash_bf16_s[12]_exact' [--loops 2] [--top 20] [--arch sm_90]

A kernel's row loop is its largest loop: its instruction count is the kernel's static work
a row (a warp executes it once a row, less the branches it skips), the number the
experiments compare before they spend device time. Nsight Compute's SASS page on the GPU
machine gives the executed counts (bench/ncu_sass_mix.py). The binary is a cubin or a
fatbin (the build's vendors/cuda/fatbin/*.fatbin); the vendor .so loads those as data, so
cuobjdump does not see its kernels. A fatbin of several architectures (the default build's
80;86;89;90) holds each kernel once per architecture: they are reported apart, named
"kernel (sm_XX)", or --arch picks one. A loop's local-memory loads and stores (spills) are
counted under its mix.

cuobjdump: $CUOBJDUMP, else the one on PATH or in /usr/local/cuda/bin, else the one of
NVIDIA's pip wheels (`pip install nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm`: CUDA 13.5's,
which read the sm_90 code nvcc 13.0 writes; the 2-core build VM's CUDA has neither).
"""
import argparse
import collections
import glob
import os
import re
import shutil
import subprocess
import sys


def find_cuobjdump():
    """The cuobjdump to run, or None."""
    env = os.environ.get("CUOBJDUMP")
    if env:
        return env
    found = shutil.which("cuobjdump")
    if found:
        return found
    if os.access("/usr/local/cuda/bin/cuobjdump", os.X_OK):
        return "/usr/local/cuda/bin/cuobjdump"
    # The pip wheel's nvidia/cu*/bin/cuobjdump, in this interpreter's paths or Debian's
    # python3's (scripts/install-deps.sh installs it there).
    for base in sys.path + sorted(glob.glob("/usr/local/lib/python3*/dist-packages")):
        for path in sorted(glob.glob(os.path.join(base, "nvidia", "cu*", "bin", "cuobjdump")), reverse=True):
            if os.access(path, os.X_OK):
                return path
    return None


def by_arch(per_arch, arch):
    """{name: value} from {(arch, name): value}: the names alone where one architecture is
    there (or `arch` picks one), else "name (sm_XX)" for each (a fatbin of several
    architectures holds each kernel once per architecture)."""
    archs = {a for a, _ in per_arch}
    out = collections.OrderedDict()
    for (a, name), value in per_arch.items():
        if arch and a != arch:
            continue
        out[name if arch or len(archs) <= 1 else f"{name} ({a})"] = value
    return out


def arch_lines(text, marker):
    """(architecture, line) for each line of cuobjdump's output but the ones that name the
    architecture of what follows (`marker`: a regular expression with it as group 1)."""
    current = None
    for line in text.splitlines():
        m = re.match(marker, line)
        if m:
            current = m.group(1)
        else:
            yield current, line


def parse_sass(text, arch=None):
    """{kernel: [(address, instruction text)]} from `cuobjdump -sass` output (by_arch)."""
    kernels = collections.OrderedDict()
    current = None
    for code_for, line in arch_lines(text, r"\s*code for (sm_\w+)"):
        m = re.match(r"\s*Function\s*:\s*(\S+)", line)
        if m:
            current = kernels.setdefault((code_for, m.group(1)), [])
            continue
        m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;", line)
        if m and current is not None:
            current.append((int(m.group(1), 16), m.group(2).strip()))
    return by_arch(kernels, arch)


def parse_resources(text, arch=None):
    """{kernel: {"REG": n, "STACK": n, "LOCAL": n, ...}} from `cuobjdump -res-usage` (by_arch)."""
    out = collections.OrderedDict()
    name = None
    for code_for, line in arch_lines(text, r"\s*arch = (sm_\w+)"):
        m = re.match(r"\s*Function\s+(\S+?):\s*$", line)
        if m:
            name = m.group(1)
            continue
        if name and "REG:" in line:
            out[(code_for, name)] = {k: int(v) for k, v in re.findall(r"([A-Z]+(?:\[\d+\])?):(\d+)", line)}
            name = None
    return by_arch(out, arch)


def opcode(instruction):
    """The opcode with its modifiers, the predicate (@P0, @!UP1) dropped."""
    text = re.sub(r"^@!?U?P\w+\s+", "", instruction)
    return text.split()[0] if text else "?"


def loops(instructions):
    """[(first, last)] index pairs of the loops: a branch to an earlier address closes the
    loop that starts at its target. Largest first."""
    index = {address: i for i, (address, _) in enumerate(instructions)}
    found = []
    for i, (address, text) in enumerate(instructions):
        if not opcode(text).startswith("BRA"):
            continue
        m = re.search(r"\b0x([0-9a-f]+)\b", text)
        if m:
            target = int(m.group(1), 16)
            if target <= address and target in index:
                found.append((index[target], i))
    return sorted(set(found), key=lambda span: (span[0] - span[1], span[0]))


def mix(instructions, first, last):
    return collections.Counter(opcode(text) for _, text in instructions[first:last + 1])


def report(kernels, resources, pattern, n_loops, top):
    lines = []
    for name, instructions in kernels.items():
        if pattern and not re.search(pattern, name):
            continue
        res = resources.get(name, {})
        head = f"{name}: {len(instructions)} instructions"
        if res:
            head += f", {res.get('REG', '?')} registers, {res.get('STACK', 0)} bytes stack, {res.get('LOCAL', 0)} local"
        lines.append(head)
        for first, last in loops(instructions)[:n_loops]:
            counts = mix(instructions, first, last)
            lines.append(f"  loop {instructions[first][0]:#06x}-{instructions[last][0]:#06x}: "
                         f"{last - first + 1} instructions")
            lines.append("    " + ", ".join(f"{op} {n}" for op, n in counts.most_common(top)))
            loads, stores = local_accesses(counts)
            if loads or stores:
                lines.append(f"    local memory (spills): {loads} loads, {stores} stores")
    return lines


def loop_local_accesses(instructions):
    """Local-memory loads and stores (LDL*, STL*) inside any of a kernel's loops, each
    instruction counted once (scripts/check-cuda-spills.py budgets them)."""
    inside = set()
    for first, last in loops(instructions):
        inside.update(range(first, last + 1))
    return sum(1 for i in inside if opcode(instructions[i][1]).startswith(("LDL", "STL")))


def local_accesses(counts):
    """Local-memory loads and stores among an opcode count (LDL*, STL*): a kernel's spills.
    In a row loop they cost every row: the bf16 layer_norm stash backward of four packs ran
    0.13 ms at 4096x16384 with 8 local loads in its loops and 0.19 ms with 45 and 79 loads
    and stores in its two largest (docs/PERFORMANCE.md, the seventeenth session)."""
    loads = sum(n for op, n in counts.items() if op.startswith("LDL"))
    stores = sum(n for op, n in counts.items() if op.startswith("STL"))
    return loads, stores


def read_binary(tool, binary, arch=None):
    """(kernels, resources) of a cubin or fatbin through cuobjdump (parse_sass,
    parse_resources); raises RuntimeError where cuobjdump fails."""
    # cuobjdump runs nvdisasm, which the pip wheels install beside it.
    env = dict(os.environ, PATH=os.path.dirname(os.path.abspath(tool)) + os.pathsep + os.environ.get("PATH", ""))
    only = ["-arch", arch] if arch else []  # cuobjdump disassembles that architecture alone
    sass = subprocess.run([tool, "-sass", *only, binary], capture_output=True, text=True, env=env)
    if sass.returncode != 0:
        raise RuntimeError(f"{tool} -sass {binary} failed: {sass.stderr.strip()}")
    res = subprocess.run([tool, "-res-usage", *only, binary], capture_output=True, text=True, env=env)
    return parse_sass(sass.stdout, arch), parse_resources(res.stdout, arch)


def gate_inputs(paths, who):
    """(files, cuobjdump, None) for the build-machine gates over the cuda vendor's fatbins
    (gate_read, which scripts/check-cuda-spills.py and check-cluster-kernel-names.py call): each path a fatbin
    or cubin, or a directory of *.fatbin. Where there is nothing to read, (.., .., status)
    with the reason printed: 2 no fatbin given or found, 77 no cuobjdump (a skip)."""
    files = []
    for f in paths:
        files += sorted(glob.glob(os.path.join(f, "*.fatbin"))) if os.path.isdir(f) else [f]
    if not files:
        print(f"{who}: no fatbin given or found", file=sys.stderr)
        return files, None, 2
    tool = find_cuobjdump()
    if not tool:
        print(f"{who}: SKIPPED: no cuobjdump (pip install nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm)")
        return files, None, 77
    return files, tool, None


def gate_read(paths, arch, who):
    """(files, kernels, resources, None) of every fatbin gate_inputs finds, kernels and
    resources merged over the files (kernel names are unique across the vendor's modules);
    where there is nothing to judge, (files, {}, {}, status) with the reason printed: 2 and
    77 as gate_inputs, 1 where cuobjdump fails, 77 where no file has an `arch` kernel."""
    files, tool, status = gate_inputs(paths, who)
    if status is not None:
        return files, {}, {}, status
    kernels, resources = {}, {}
    for f in files:
        try:
            k, r = read_binary(tool, f, arch)
        except RuntimeError as e:
            print(f"{who}: {e}", file=sys.stderr)
            return files, {}, {}, 1
        kernels.update(k)
        resources.update(r)
    if not kernels:
        print(f"{who}: SKIPPED: no {arch} kernel in {', '.join(files)}")
        return files, {}, {}, 77
    return files, kernels, resources, None


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("binary", help="cubin or fatbin")
    p.add_argument("--kernel", default="", help="regular expression over kernel names (default: all)")
    p.add_argument("--loops", type=int, default=1, help="largest loops to show a kernel (default 1)")
    p.add_argument("--top", type=int, default=20, help="opcodes to show a loop (default 20)")
    p.add_argument("--arch", default=None,
                   help="one architecture of a fatbin, e.g. sm_90 (default: each, named beside the kernel)")
    args = p.parse_args()
    tool = find_cuobjdump()
    if not tool:
        sys.exit("sass_static: no cuobjdump (set CUOBJDUMP, or: pip install nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm)")
    try:
        kernels, resources = read_binary(tool, args.binary, args.arch)
    except RuntimeError as e:
        sys.exit(f"sass_static: {e}")
    lines = report(kernels, resources, args.kernel, args.loops, args.top)
    if not lines:
        sys.exit(f"sass_static: no kernel of {args.binary} matches {args.kernel!r}")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
