#!/usr/bin/env python3
"""Gate and resource report for AMD code objects of vendors/gpu (no GPU needed).

usage: scripts/check-code-objects.py [--readelf PATH] [--expect-names FILE] [--tsv FILE] OUTDIR ARCH...

OUTDIR/<arch>/<module>.co are raw code objects (clang --cuda-device-only
--no-gpu-bundle-output), as scripts/hip-device-compile.sh writes them; OUTDIR/<arch>/
opk_warp_size, when present, holds OPK_WARP_SIZE as the device pass of gpu_compat.h saw it.
The amdhsa.kernels metadata comes from `llvm-readelf --notes`.

Fails (exit 1) when
  - a kernel's .wavefront_size is not the arch's: 64 on gfx8/gfx9 (GCN, CDNA), 32 on
    gfx10 and later (RDNA, which HIP builds wave32 only);
  - OPK_WARP_SIZE (opk_warp_size file) differs from that width;
  - a kernel has .uses_dynamic_stack true;
  - the archs do not all have the same kernel names, or (--expect-names, one name a line,
    e.g. from the nvcc cubins) the names differ from the expected list.
Prints per arch: kernels, wavefront, kernels with scratch (.private_segment_fixed_size >
0) and their total, kernels with VGPR spills and the largest, kernels with SGPR spills,
kernels with LDS and the largest .group_segment_fixed_size, the largest VGPR (+AGPR) count.
--tsv writes one line per kernel and arch with those fields.
"""
import argparse
import os
import re
import subprocess
import sys

FIELDS = ("vgpr_count", "agpr_count", "sgpr_count", "vgpr_spill_count", "sgpr_spill_count",
          "private_segment_fixed_size", "group_segment_fixed_size", "wavefront_size",
          "max_flat_workgroup_size")


def expected_wave(arch):
    # gfx<major><minor><stepping>, the last two one character each: gfx908, gfx90a, gfx940,
    # gfx1030. Majors 8 and 9 (GCN, CDNA) are wave64; 10 and later (RDNA) wave32 in HIP.
    m = re.match(r"gfx([0-9a-f]+)", arch.split(":")[0])
    if not m or len(m.group(1)) < 3:
        raise SystemExit(f"check-code-objects: not an AMD target: {arch}")
    major = int(m.group(1)[:-2])
    return 64 if major <= 9 else 32


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
            cur[m.group(1)] = m.group(2).strip()
    return kernels


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--readelf", default="llvm-readelf-15")
    ap.add_argument("--expect-names")
    ap.add_argument("--tsv")
    ap.add_argument("outdir")
    ap.add_argument("archs", nargs="+")
    args = ap.parse_args()

    errors, names_by_arch, rows = [], {}, []
    print(f"{'arch':8} {'kernels':>7} {'wave':>4} {'scratch':>7} {'scratch B':>9} {'VGPR-spill':>10} "
          f"{'max spill':>9} {'SGPR-spill':>10} {'with LDS':>8} {'max LDS B':>9} {'max VGPR':>8}  largest LDS")
    for arch in args.archs:
        want = expected_wave(arch)
        d = os.path.join(args.outdir, arch)
        cos = sorted(f for f in os.listdir(d) if f.endswith(".co")) if os.path.isdir(d) else []
        if not cos:
            errors.append(f"{arch}: no code objects in {d}")
            continue
        wfile = os.path.join(d, "opk_warp_size")
        if os.path.exists(wfile):
            seen = open(wfile).read().strip()
            if seen != str(want):
                errors.append(f"{arch}: OPK_WARP_SIZE is {seen or '(not found)'} in the device pass, the target runs wave{want}")
        kernels = []
        for co in cos:
            text = subprocess.run([args.readelf, "--notes", os.path.join(d, co)], check=True,
                                  capture_output=True, text=True).stdout
            ks = parse_notes(text)
            if not ks:
                errors.append(f"{arch}/{co}: no amdhsa.kernels metadata")
            for k in ks:
                k["module"] = co[:-3]
            kernels += ks
        def num(k, f):
            return int(k.get(f, "0"))
        for k in kernels:
            if num(k, "wavefront_size") != want:
                errors.append(f"{arch}: {k.get('name')} has .wavefront_size {k.get('wavefront_size')}, expected {want}")
            if k.get("uses_dynamic_stack", "false") != "false":
                errors.append(f"{arch}: {k.get('name')} uses a dynamic stack")
            rows.append([arch, k["module"], k.get("name", "?")] + [str(num(k, f)) for f in FIELDS])
        names_by_arch[arch] = sorted(k.get("name", "?") for k in kernels)
        scratch = [k for k in kernels if num(k, "private_segment_fixed_size") > 0]
        vspill = [k for k in kernels if num(k, "vgpr_spill_count") > 0]
        sspill = [k for k in kernels if num(k, "sgpr_spill_count") > 0]
        lds = [k for k in kernels if num(k, "group_segment_fixed_size") > 0]
        top = max(kernels, key=lambda k: num(k, "group_segment_fixed_size"))
        waves = sorted({num(k, "wavefront_size") for k in kernels})
        print(f"{arch:8} {len(kernels):7} {'/'.join(map(str, waves)):>4} {len(scratch):7} "
              f"{sum(num(k, 'private_segment_fixed_size') for k in scratch):9} {len(vspill):10} "
              f"{max([num(k, 'vgpr_spill_count') for k in kernels]):9} {len(sspill):10} {len(lds):8} "
              f"{num(top, 'group_segment_fixed_size'):9} "
              f"{max(num(k, 'vgpr_count') for k in kernels):8}  {top.get('name')}")

    archs = [a for a in args.archs if a in names_by_arch]
    for a in archs[1:]:
        if names_by_arch[a] != names_by_arch[archs[0]]:
            diff = set(names_by_arch[a]) ^ set(names_by_arch[archs[0]])
            errors.append(f"{a}: kernel names differ from {archs[0]}: {sorted(diff)[:10]}")
    if args.expect_names and archs:
        want = sorted(l.strip() for l in open(args.expect_names) if l.strip())
        if want != names_by_arch[archs[0]]:
            diff = set(want) ^ set(names_by_arch[archs[0]])
            errors.append(f"kernel names differ from {args.expect_names}: {sorted(diff)[:10]}")
    if args.tsv:
        with open(args.tsv, "w") as f:
            f.write("\t".join(["arch", "module", "kernel"] + list(FIELDS)) + "\n")
            for r in rows:
                f.write("\t".join(r) + "\n")
    for e in errors:
        print("check-code-objects: " + e, file=sys.stderr)
    if errors:
        print(f"check-code-objects: FAILED ({len(errors)} problems)", file=sys.stderr)
        return 1
    print(f"check-code-objects: OK ({', '.join(archs)}: wavefront as the target's, same kernels everywhere)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
