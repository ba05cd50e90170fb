#!/usr/bin/env python3
"""Gate and resource report for the AMD code objects of vendors/gpu (no GPU needed).

usage: scripts/check-code-objects.py [options] OUTDIR [ARCH...]

OUTDIR/<arch>/<module>.co are raw code objects (clang --cuda-device-only
--no-gpu-bundle-output), as scripts/hip-device-compile.sh and the rocm vendor's CMake write
them (<build>/vendors/rocm/code-objects). Without ARCHs, every OUTDIR/gfx* directory is
checked. OUTDIR/<arch>/opk_warp_size, when present, holds OPK_WARP_SIZE as the device pass
of gpu_compat.h saw it. The amdhsa.kernels metadata comes from `llvm-readelf --notes`.

Fails (exit 1) when, on any target:
  - a module of vendors/gpu/kernel_modules.h has no code object;
  - a kernel the host launches (the names in vendors/gpu/host, see host_kernel_names) is
    missing, or a code object holds a kernel the host does not name, or a kernel name is
    in two modules;
  - a kernel's .wavefront_size is not the target's: 64 on gfx8/gfx9 (GCN, CDNA), 32 on
    gfx10 and later (RDNA, which HIP builds wave32 only); or OPK_WARP_SIZE (opk_warp_size
    file) differs from it;
  - a kernel has .uses_dynamic_stack true;
  - a kernel exceeds its family's budget (scripts/hip-code-object-budgets.tsv) of LDS
    (.group_segment_fixed_size: what the family declares __shared__, so LDS the compiler
    added, e.g. a promoted alloca, fails), scratch (.private_segment_fixed_size, bytes
    per lane) or VGPR spills (.vgpr_spill_count), or a family has no budget for a target.
Prints per target: kernels, scratch and spill counts, LDS, registers and occupancy; then
per kernel family and target the worst kernel's resources and the waves per SIMD it
reaches (see occupancy()). --tsv writes one line per kernel and target.
"""
import argparse
import fnmatch
import glob
import os
import re
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIELDS = ("vgpr_count", "agpr_count", "sgpr_count", "vgpr_spill_count", "sgpr_spill_count",
          "private_segment_fixed_size", "group_segment_fixed_size", "wavefront_size",
          "max_flat_workgroup_size")
BUDGET_COLUMNS = ("lds", "scratch", "vgpr_spill")


def expected_wave(arch):
    # gfx<major><minor><stepping>, the last two one character each: gfx908, gfx90a, gfx940,
    # gfx1030. Majors 8 and 9 (GCN, CDNA) are wave64; 10 and later (RDNA) wave32 in HIP.
    m = re.match(r"gfx([0-9a-f]+)$", arch.split(":")[0])
    if not m or len(m.group(1)) < 3:
        raise SystemExit(f"check-code-objects: not an AMD target: {arch}")
    major = int(m.group(1)[:-2])
    return 64 if major <= 9 else 32


def arch_order(arch):
    """gfx900 < gfx90a < gfx940 < gfx1030: by major, minor, stepping (hex digits)."""
    m = re.match(r"gfx([0-9a-f]+?)([0-9a-f])([0-9a-f])$", arch.split(":")[0])
    return (int(m.group(1)), int(m.group(2), 16), int(m.group(3), 16)) if m else (999, 0, 0)


# ---- occupancy ------------------------------------------------------------------------
# Per-target limits, per SIMD (an "EU"): waves in flight, the VGPR file in registers per
# lane and its allocation granule, how AGPRs count, whether SGPRs limit occupancy, and the
# LDS a CU (RDNA: a work-group processor) shares among its workgroups. The numbers are
# LLVM 15's AMDGPU model (llvm/lib/Target/AMDGPU/Utils/AMDGPUBaseInfo.cpp:
# getMaxWavesPerEU, getTotalNumVGPRs, getVGPRAllocGranule; GCNSubtarget.cpp:
# getOccupancyWithNumSGPRs), the compiler that produced the code objects, which matches
# AMD's ISA documents: 10 waves per SIMD on GCN5/CDNA1 with 256 VGPRs, 8 on CDNA2/3 with
# a 512-entry unified VGPR+AGPR file, 16 wave32s per SIMD on RDNA2 (gfx10.3) with 1024
# VGPRs in granules of 16; 800 SGPRs per SIMD on gfx9, none limiting on gfx10+; 64 KiB LDS
# per CU on gfx9, 128 KiB per WGP on RDNA (HIP runs gfx10 in WGP mode). Metadata
# .vgpr_count is already the allocation's total: ArchVGPRs rounded to 4 plus AGPRs on
# gfx90a/gfx940 (one file), max(ArchVGPR, AGPR) on gfx908 (two files).
class Target:
    def __init__(self, max_waves, vgprs, granule, sgpr_limited, lds_per_cu):
        self.max_waves, self.vgprs, self.granule = max_waves, vgprs, granule
        self.sgpr_limited, self.lds_per_cu = sgpr_limited, lds_per_cu


TARGETS = {
    "gfx900": Target(10, 256, 4, True, 65536),
    "gfx906": Target(10, 256, 4, True, 65536),
    "gfx908": Target(10, 256, 4, True, 65536),
    "gfx90a": Target(8, 512, 8, True, 65536),
    "gfx940": Target(8, 512, 8, True, 65536),
    "gfx1030": Target(16, 1024, 16, False, 131072),
}
SIMDS_PER_CU = 4  # gfx9 CU; gfx10 work-group processor in WGP mode (LLVM getEUsPerCU)
MAX_WORKGROUPS_PER_CU = 16  # LLVM 15 getMaxWorkGroupsPerCU for multi-wave workgroups


def sgpr_waves(sgprs):
    # LLVM 15 GCNSubtarget::getOccupancyWithNumSGPRs for VOLCANIC_ISLANDS and later (gfx8/9).
    return 10 if sgprs <= 80 else 9 if sgprs <= 88 else 8 if sgprs <= 100 else 7


def occupancy(arch, k):
    """(waves per SIMD, what limits it) for kernel k on arch, for blocks of the kernel's
    .max_flat_workgroup_size: the fewest waves any of the SIMD limits (max waves, VGPRs,
    SGPRs) allows, then rounded down to whole workgroups per CU (a workgroup's waves are
    resident together; LDS and the workgroup slots count per CU). None for an unknown
    target."""
    t = TARGETS.get(arch.split(":")[0])
    if t is None:
        return None, "?"
    wave, wg = num(k, "wavefront_size") or 64, num(k, "max_flat_workgroup_size") or 1024
    limits = {"max": t.max_waves}
    rounded = -(-max(num(k, "vgpr_count"), 1) // t.granule) * t.granule
    limits["vgpr"] = min(t.max_waves, max(1, t.vgprs // rounded))
    if t.sgpr_limited:
        limits["sgpr"] = min(t.max_waves, sgpr_waves(num(k, "sgpr_count")))
    per_simd = min(limits.values())
    waves_per_wg = -(-wg // wave)
    # Whole workgroups per CU by registers: its waves are spread over the SIMDs.
    if waves_per_wg >= SIMDS_PER_CU:
        wgs = {"block": per_simd // -(-waves_per_wg // SIMDS_PER_CU)}
    else:
        wgs = {"block": per_simd * SIMDS_PER_CU // waves_per_wg}
    lds = num(k, "group_segment_fixed_size")
    if lds:
        wgs["lds"] = t.lds_per_cu // lds
    if waves_per_wg > 1:
        wgs["slots"] = MAX_WORKGROUPS_PER_CU
    n = min(wgs.values())
    waves = min(per_simd, n * waves_per_wg / SIMDS_PER_CU)
    if waves < per_simd:
        why = [w for w, v in wgs.items() if v == n]
    else:
        why = [w for w, v in limits.items() if v == per_simd]
    return waves, "+".join(why)


def fmt_waves(w):
    if w is None:
        return "?"
    return str(int(w)) if w == int(w) else f"{w:.1f}"


# ---- metadata -------------------------------------------------------------------------
def parse_notes(text):
    """The kernels of an `llvm-readelf --notes` dump: a list of dicts of the scalar
    fields at the kernel level (nested lists such as .args are skipped)."""
    kernels, cur, inside = [], None, False
    for line in text.splitlines():
        if line.startswith("amdhsa.kernels:"):
            inside = True
            continue
        if not inside:
            continue
        if line and not line.startswith(" "):  # the next top-level key
            inside = False
            continue
        m = re.match(r"^  - \.(\w+):\s*(.*)$", line)
        if m:
            cur = {}
            kernels.append(cur)
        else:
            m = re.match(r"^    \.(\w+):\s*(.*)$", line)
        if m and cur is not None and m.group(2) != "":
            cur[m.group(1)] = m.group(2).strip().strip("'\"")
    return kernels


def family_of(name):
    """opk_<family>[_dense][_<dtype>][_c<config> | _g<threads>[x<packs>]] -> family
    (opk_ce_bwd_bf16_c2 -> ce_bwd, opk_geglu_erf_fwd_dense_f16 -> geglu_erf_fwd,
    opk_rms_fwd_fixed_bf16_g512 and opk_rms_fwd_fixed_f32_g512x4 -> rms_fwd_fixed,
    opk_emb_mark -> emb_mark)."""
    m = re.match(r"^opk_(.+?)(?:_dense)?(?:_(?:f32|f16|bf16))?(?:_c\d+|_g\d+(?:x\d+)?)?$", name)
    return m.group(1) if m else name


def module_names(root):
    text = open(os.path.join(root, "vendors", "gpu", "kernel_modules.h")).read()
    return re.findall(r"^\s*OPK_MODULE\((\w+)\)", text, re.M)


# ---- the kernels the host launches ----------------------------------------------------
# The host spells kernel names as string literals, most of them built by macros that paste
# a stem and suffixes (OPK_ROW_NAMES("opk_ce_fwd") in kernel_params.h expands to
# {{"opk_ce_fwd" "_f32_c0", ...}}). A regular expression over the sources would have to
# re-implement those macros and would silently go stale when one changes, so the sources
# are run through the real C++ preprocessor (the host compiler, -E) with the include paths
# the build uses, and the literals are read from its output: adjacent literals are joined
# (translation phase 6) and every literal that is a whole kernel name (opk_<word>) counts.
# Only text from vendors/gpu itself is read (the line markers say where each line came
# from), so a system header's strings never count. Names the host would build at run time
# are invisible here; that is why a kernel in a code object that no host literal names
# fails the gate too: it is either dead code or a name this derivation cannot see.
# Kernels built for NVIDIA alone (gpu_compat.h, OPK_CLUSTERS: thread-block clusters and
# cp.async, which AMD targets lack): cross-entropy's stash forwards and the norm
# backwards' stash kernels, which the host launches only on devices that report cluster
# launch (layer_norm's f16 ring forwards were too, until the thirty-first session
# retired them). They are neither expected in an AMD code object nor counted
# as a difference from the nvcc images' names.
NVIDIA_ONLY_RE = re.compile(r"^opk_(ce_fwd|rms_bwd|ln_bwd)_stash_")


def portable(names):
    return {n for n in names if not NVIDIA_ONLY_RE.match(n)}


STRING_RE = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'')
KERNEL_NAME_RE = re.compile(r"^opk_[A-Za-z0-9_]+$")


def host_kernel_names(root, cxx):
    host = os.path.join(root, "vendors", "gpu", "host")
    sources = sorted(glob.glob(os.path.join(host, "*.cpp")))
    if not sources:
        raise SystemExit(f"check-code-objects: no host sources in {host}")
    gpu_dir = os.path.realpath(os.path.join(root, "vendors", "gpu")) + os.sep
    names = set()
    for src in sources:
        cmd = shlex.split(cxx) + ["-E", "-std=c++17", "-I", os.path.join(root, "include"),
                                  "-I", os.path.join(root, "spec"), "-I", os.path.join(root, "vendors"),
                                  '-DOPKIT_GPU_IMAGE_DIR="."', '-DOPKIT_GPU_IMAGE_EXT=".co"', src]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            # An #error directive (a macro the build defines and this run does not, say)
            # stops the compile but not the preprocessor, whose output is complete; any
            # other error (a missing header) may cut it short, so that one fails.
            errs = [l for l in r.stderr.splitlines() if " error: " in l or l.startswith("error:")]
            if not errs or not all(" error: #error" in l for l in errs):
                raise SystemExit(f"check-code-objects: preprocessing {src} failed:\n{r.stderr[:2000]}")
        ours, lines = False, []
        for line in r.stdout.splitlines():
            m = re.match(r'^# \d+ "([^"]*)"', line)
            if m:
                ours = os.path.realpath(m.group(1)).startswith(gpu_dir)
                continue
            if ours:
                lines.append(line)
        text = "\n".join(lines)
        pending, last_end = None, None
        for m in STRING_RE.finditer(text):
            tok = m.group(0)
            if tok[0] == "'":
                continue
            body = tok[1:-1]
            if pending is not None and text[last_end:m.start()].strip() == "":
                pending += body
            else:
                if pending is not None and KERNEL_NAME_RE.match(pending):
                    names.add(pending)
                pending = body
            last_end = m.end()
        if pending is not None and KERNEL_NAME_RE.match(pending):
            names.add(pending)
    return names


# ---- budgets --------------------------------------------------------------------------
def load_budgets(path):
    """Rows of family, targets, lds, scratch, vgpr_spill, why. targets: '*', or a comma
    list of target names and fnmatch patterns (gfx90*). The most specific row wins: one
    naming the target exactly, then one matching it by a pattern, then '*'."""
    rows = []
    for n, line in enumerate(open(path), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        cols = line.rstrip("\n").split("\t")
        if len(cols) < 6 or cols[0] == "family":
            if cols[0] == "family":
                continue
            raise SystemExit(f"check-code-objects: {path}:{n}: want 6 tab-separated columns "
                             "(family, targets, lds, scratch, vgpr_spill, why)")
        try:
            vals = {c: int(v) for c, v in zip(BUDGET_COLUMNS, cols[2:5])}
        except ValueError:
            raise SystemExit(f"check-code-objects: {path}:{n}: lds, scratch and vgpr_spill must be integers")
        if not cols[5].strip():
            raise SystemExit(f"check-code-objects: {path}:{n}: a budget needs its justification")
        rows.append({"family": cols[0], "targets": cols[1].split(","), "line": n, **vals})
    return rows


def budget_for(rows, family, arch):
    best, rank = [], None
    for r in rows:
        if r["family"] != family:
            continue
        for t in r["targets"]:
            k = 0 if t == arch else 2 if t == "*" else 1 if fnmatch.fnmatchcase(arch, t) else None
            if k is None:
                continue
            if rank is None or k < rank:
                best, rank = [r], k
            elif k == rank and r not in best:
                best.append(r)
    return best


# ---- main -----------------------------------------------------------------------------
def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--readelf", default=os.environ.get("LLVM_READELF", "llvm-readelf-15"))
    ap.add_argument("--budgets", default=os.path.join(ROOT, "scripts", "hip-code-object-budgets.tsv"),
                    help="budgets file, or 'none' to skip the budget checks")
    ap.add_argument("--host-names", default="auto",
                    help="'auto' (preprocess vendors/gpu/host), a file of names (one a line), or 'none'")
    ap.add_argument("--cxx", default=os.environ.get("CXX", "c++"), help="the preprocessor for --host-names auto")
    ap.add_argument("--modules", help="comma list of expected modules (default: vendors/gpu/kernel_modules.h)")
    ap.add_argument("--expect-names", help="also require exactly these names (one a line, e.g. from nvcc cubins)")
    ap.add_argument("--tsv", help="write one line per kernel and target")
    ap.add_argument("--family-tsv", help="write one line per kernel family and target (worst kernel)")
    ap.add_argument("--suggest-budgets", action="store_true",
                    help="print budget rows with today's values (one per family and target)")
    ap.add_argument("--root", default=ROOT, help=argparse.SUPPRESS)
    ap.add_argument("outdir")
    ap.add_argument("archs", nargs="*")
    args = ap.parse_args()

    archs = args.archs or sorted((os.path.basename(d) for d in glob.glob(os.path.join(args.outdir, "gfx*"))
                                  if os.path.isdir(d)), key=arch_order)
    if not archs:
        print(f"check-code-objects: no gfx* directories in {args.outdir}", file=sys.stderr)
        return 1
    modules = args.modules.split(",") if args.modules else module_names(args.root)
    budgets = None if args.budgets == "none" else load_budgets(args.budgets)
    if args.host_names == "none":
        host_names = None
    elif args.host_names == "auto":
        host_names = portable(host_kernel_names(args.root, args.cxx))
    else:
        host_names = portable({l.strip() for l in open(args.host_names) if l.strip()})

    errors, names_by_arch, rows, kernels_by_arch = [], {}, [], {}
    for arch in archs:
        want = expected_wave(arch)
        d = os.path.join(args.outdir, arch)
        present = {f[:-3] for f in os.listdir(d) if f.endswith(".co")} if os.path.isdir(d) else set()
        for m in modules:
            if m not in present:
                errors.append(f"{arch}: no code object for module {m} ({d}/{m}.co)")
        wfile = os.path.join(d, "opk_warp_size")
        if os.path.exists(wfile):
            seen = open(wfile).read().strip()
            if seen != str(want):
                errors.append(f"{arch}: OPK_WARP_SIZE is {seen or '(not found)'} in the device pass, the target runs wave{want}")
        kernels, where = [], {}
        for mod in sorted(present):
            r = subprocess.run([args.readelf, "--notes", os.path.join(d, mod + ".co")], capture_output=True, text=True)
            if r.returncode != 0:
                errors.append(f"{arch}/{mod}.co: {args.readelf} --notes failed: {r.stderr.strip()[:300]}")
                continue
            ks = parse_notes(r.stdout)
            if not ks:
                errors.append(f"{arch}/{mod}.co: no amdhsa.kernels metadata")
            for k in ks:
                k["module"] = mod
                name = k.get("name", "?")
                if name in where:
                    errors.append(f"{arch}: kernel {name} is in both {where[name]} and {mod}")
                where[name] = mod
            kernels += ks
        kernels_by_arch[arch] = kernels
        names_by_arch[arch] = set(where)
        for k in kernels:
            name, fam = k.get("name", "?"), family_of(k.get("name", "?"))
            k["family"] = fam
            k["occ"], k["occ_limit"] = occupancy(arch, k)
            if num(k, "wavefront_size") != want:
                errors.append(f"{arch}: {name} has .wavefront_size {k.get('wavefront_size')}, expected {want}")
            if k.get("uses_dynamic_stack", "false") != "false":
                errors.append(f"{arch}: {name} uses a dynamic stack")
            if budgets is not None:
                b = budget_for(budgets, fam, arch)
                if not b:
                    errors.append(f"{arch}: no budget for family {fam} ({name}) in {args.budgets}")
                elif len(b) > 1:
                    errors.append(f"{arch}: budget lines {', '.join(str(r['line']) for r in b)} of "
                                  f"{args.budgets} both apply to family {fam}")
                else:
                    b = b[0]
                    for col, field, what in (("lds", "group_segment_fixed_size", "LDS bytes (undeclared LDS: a promoted alloca?)"),
                                             ("scratch", "private_segment_fixed_size", "scratch bytes per lane"),
                                             ("vgpr_spill", "vgpr_spill_count", "VGPR spills")):
                        if num(k, field) > b[col]:
                            errors.append(f"{arch}: {name}: {num(k, field)} {what} > budget {b[col]} "
                                          f"({args.budgets}:{b['line']}, family {fam})")
            rows.append([arch, k["module"], name, fam] + [str(num(k, f)) for f in FIELDS]
                        + [fmt_waves(k["occ"]), k["occ_limit"]])

    # Names: every target the same set, and that set what the host launches.
    checked = [a for a in archs if kernels_by_arch.get(a)]
    for a in checked[1:]:
        if names_by_arch[a] != names_by_arch[checked[0]]:
            diff = sorted(names_by_arch[a] ^ names_by_arch[checked[0]])
            errors.append(f"{a}: kernel names differ from {checked[0]}: {diff[:10]}")
    if host_names is not None:
        for a in checked:
            missing = sorted(host_names - names_by_arch[a])
            extra = sorted(names_by_arch[a] - host_names)
            if missing:
                errors.append(f"{a}: {len(missing)} kernels the host launches are missing: {missing[:10]}")
            if extra:
                errors.append(f"{a}: {len(extra)} kernels no host source names (dead, or named at run time): {extra[:10]}")
    if args.expect_names and checked:
        want = portable({l.strip() for l in open(args.expect_names) if l.strip()})
        for a in checked:
            if want != names_by_arch[a]:
                errors.append(f"{a}: kernel names differ from {args.expect_names}: {sorted(want ^ names_by_arch[a])[:10]}")

    report(archs, kernels_by_arch, args)
    if budgets is not None:
        slack(budgets, kernels_by_arch, args.budgets)
    if args.suggest_budgets:
        suggest(kernels_by_arch)
    if args.tsv:
        with open(args.tsv, "w") as f:
            f.write("\t".join(["arch", "module", "kernel", "family"] + list(FIELDS) + ["waves_per_simd", "limited_by"]) + "\n")
            for r in rows:
                f.write("\t".join(r) + "\n")
    for e in errors:
        print("check-code-objects: " + e, file=sys.stderr)
    if errors:
        print(f"check-code-objects: FAILED ({len(errors)} problems)", file=sys.stderr)
        return 1
    what = ["wavefront as the target's", "same kernels everywhere"]
    if host_names is not None:
        what.append(f"the {len(host_names)} kernels the host launches")
    if budgets is not None:
        what.append("LDS, scratch and VGPR spills within budgets")
    print(f"check-code-objects: OK ({', '.join(checked)}: {', '.join(what)})")
    return 0


def num(k, f):
    return int(k.get(f, "0"))


def family_rows(kernels):
    """Per family: the worst kernel of each resource and the lowest occupancy."""
    fams = {}
    for k in kernels:
        fams.setdefault(k["family"], []).append(k)
    out = []
    for fam in sorted(fams):
        ks = fams[fam]
        worst = lambda f: max(ks, key=lambda k: (num(k, f), k.get("name")))
        low = min(ks, key=lambda k: (k["occ"] if k["occ"] is not None else 99, k.get("name")))
        out.append({
            "family": fam, "kernels": len(ks),
            "vgpr": worst("vgpr_count"), "agpr": worst("agpr_count"), "sgpr": worst("sgpr_count"),
            "vspill": worst("vgpr_spill_count"), "sspill": worst("sgpr_spill_count"),
            "scratch": worst("private_segment_fixed_size"), "lds": worst("group_segment_fixed_size"),
            "occ": low,
        })
    return out


def report(archs, kernels_by_arch, args):
    print(f"{'arch':8} {'kernels':>7} {'wave':>4} {'scratch':>7} {'scratch B':>9} {'VGPR-spill':>10} "
          f"{'max spill':>9} {'SGPR-spill':>10} {'with LDS':>8} {'max LDS B':>9} {'max VGPR':>8} {'min waves':>9}")
    for arch in archs:
        ks = kernels_by_arch.get(arch) or []
        if not ks:
            continue
        scratch = [k for k in ks if num(k, "private_segment_fixed_size") > 0]
        waves = sorted({num(k, "wavefront_size") for k in ks})
        occs = [k["occ"] for k in ks if k["occ"] is not None]
        print(f"{arch:8} {len(ks):7} {'/'.join(map(str, waves)):>4} {len(scratch):7} "
              f"{sum(num(k, 'private_segment_fixed_size') for k in scratch):9} "
              f"{sum(1 for k in ks if num(k, 'vgpr_spill_count')):10} "
              f"{max(num(k, 'vgpr_spill_count') for k in ks):9} "
              f"{sum(1 for k in ks if num(k, 'sgpr_spill_count')):10} "
              f"{sum(1 for k in ks if num(k, 'group_segment_fixed_size')):8} "
              f"{max(num(k, 'group_segment_fixed_size') for k in ks):9} "
              f"{max(num(k, 'vgpr_count') for k in ks):8} {fmt_waves(min(occs) if occs else None):>9}")
    print()
    print("per family (worst kernel of the family; waves = waves per SIMD at the largest block, and what limits it)")
    hdr = (f"{'arch':8} {'family':16} {'n':>2} {'VGPR':>4} {'AGPR':>4} {'SGPR':>4} {'VSPILL':>6} {'SSPILL':>6} "
           f"{'scratch':>7} {'LDS':>5} {'waves':>5}  {'limit':10} worst kernel (VGPR / scratch / waves)")
    print(hdr)
    frows = []
    for arch in archs:
        for r in family_rows(kernels_by_arch.get(arch) or []):
            o = r["occ"]
            print(f"{arch:8} {r['family']:16} {r['kernels']:2} {num(r['vgpr'], 'vgpr_count'):4} "
                  f"{num(r['agpr'], 'agpr_count'):4} {num(r['sgpr'], 'sgpr_count'):4} "
                  f"{num(r['vspill'], 'vgpr_spill_count'):6} {num(r['sspill'], 'sgpr_spill_count'):6} "
                  f"{num(r['scratch'], 'private_segment_fixed_size'):7} {num(r['lds'], 'group_segment_fixed_size'):5} "
                  f"{fmt_waves(o['occ']):>5}  {o['occ_limit']:10} "
                  f"{r['vgpr'].get('name')} / {r['scratch'].get('name')} / {o.get('name')}")
            frows.append([arch, r["family"], str(r["kernels"]), str(num(r["vgpr"], "vgpr_count")),
                          str(num(r["agpr"], "agpr_count")), str(num(r["sgpr"], "sgpr_count")),
                          str(num(r["vspill"], "vgpr_spill_count")), str(num(r["sspill"], "sgpr_spill_count")),
                          str(num(r["scratch"], "private_segment_fixed_size")),
                          str(num(r["lds"], "group_segment_fixed_size")), fmt_waves(o["occ"]), o["occ_limit"],
                          r["vgpr"].get("name"), r["vspill"].get("name"), r["scratch"].get("name"), o.get("name")])
    if args.family_tsv:
        with open(args.family_tsv, "w") as f:
            f.write("\t".join(["arch", "family", "kernels", "max_vgpr", "max_agpr", "max_sgpr", "max_vgpr_spill",
                               "max_sgpr_spill", "max_scratch", "max_lds", "min_waves_per_simd", "limited_by",
                               "max_vgpr_kernel", "max_spill_kernel", "max_scratch_kernel", "min_waves_kernel"]) + "\n")
            for r in frows:
                f.write("\t".join(r) + "\n")


def slack(budgets, kernels_by_arch, path):
    """Budget rows looser than every kernel they cover today: a regression up to the
    budget would pass, so they should come down (printed, not failed: improving a kernel
    must not break CI, and a run over fewer targets cannot judge a wildcard row)."""
    for r in budgets:
        seen = {c: -1 for c in BUDGET_COLUMNS}
        for arch, ks in kernels_by_arch.items():
            for k in ks:
                if k["family"] == r["family"] and budget_for(budgets, k["family"], arch) == [r]:
                    seen["lds"] = max(seen["lds"], num(k, "group_segment_fixed_size"))
                    seen["scratch"] = max(seen["scratch"], num(k, "private_segment_fixed_size"))
                    seen["vgpr_spill"] = max(seen["vgpr_spill"], num(k, "vgpr_spill_count"))
        if seen["lds"] < 0:
            continue
        loose = [f"{c} {r[c]} > {seen[c]}" for c in BUDGET_COLUMNS if r[c] > seen[c]]
        if loose:
            print(f"check-code-objects: note: {path}:{r['line']} ({r['family']} {','.join(r['targets'])}) "
                  f"is looser than today: {'; '.join(loose)}")


def suggest(kernels_by_arch):
    """Budget rows at today's maxima in the budgets file's format: one row per family and
    set of targets with the same values ('*' when all checked targets agree). The why
    column is left to a person."""
    print("\n# suggested budgets (today's maxima): family, targets, lds, scratch, vgpr_spill, why")
    vals = {}
    for arch, ks in kernels_by_arch.items():
        for r in family_rows(ks):
            v = (num(r["lds"], "group_segment_fixed_size"), num(r["scratch"], "private_segment_fixed_size"),
                 num(r["vspill"], "vgpr_spill_count"))
            vals.setdefault(r["family"], {}).setdefault(v, []).append(arch)
    for fam in sorted(vals):
        groups = sorted(vals[fam].items(), key=lambda kv: -len(kv[1]))
        for i, (v, archs) in enumerate(groups):
            # The most common values become '*' (other rows name their targets exactly).
            t = "*" if i == 0 else ",".join(archs)
            print(f"{fam}\t{t}\t{v[0]}\t{v[1]}\t{v[2]}\t<why: for a person to write>")


if __name__ == "__main__":
    sys.exit(main())
