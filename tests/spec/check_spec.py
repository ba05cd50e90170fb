#!/usr/bin/env python3
"""Checks the hand-written copies of each op's parameter list against the op spec.

1. include/opkit.h and include/opkit_vendor.h declare every op of spec/ops.h with the
   spec's parameter names, types and order (the compiler checks types too; names only
   show in the text), and opkit.h declares no op the spec lacks.
2. Outside include/opkit.h, an op's C parameter list (its types and names, in order) is
   written out by hand in at most one file, include/opkit_vendor.h: everything else derives
   it from the spec, except the files of OUT_OF_TREE (an example of third-party code). Prints the count per op (the measure of issue 8: it was 3 per op).

Usage: check_spec.py REPO_ROOT. Exit 0 when all holds, 1 otherwise."""
import os
import re
import sys

KIND_TYPES = {"in": "const opkit_tensor*", "opt_in": "const opkit_tensor*",
              "index": "const opkit_tensor*", "out": "opkit_tensor*", "opt_out": "opkit_tensor*",
              "inout": "opkit_tensor*", "f32": "float", "i32": "int32_t", "i64": "int64_t",
              "stream": "opkit_stream"}
SOURCE_DIRS = ["include", "spec", "core", "loader", "vendors", "tools", "tests", "bench",
               "examples", "python", "bindings"]
SOURCE_EXTS = (".h", ".hpp", ".c", ".cpp", ".cc", ".cu", ".cuh", ".inc", ".def")


# Files that stand for code outside opkit's tree, built against the installed headers only
# (spec/ops.h is not installed): they write the parameter list as any third party does, and
# the compiler checks it against include/opkit_vendor.h's declaration of the same symbol.
OUT_OF_TREE = {"examples/vendor_skeleton/mychip_vendor.c"}


def read_spec(root):
    text = open(os.path.join(root, "spec", "ops.h")).read()
    order = re.findall(r"^\s+X\((\w+)\)", text, re.M)
    params = {m.group(1): re.findall(r"P\((\w+), (\w+)\)", m.group(2))
              for m in re.finditer(r"#define OPKIT_PARAMS_(\w+)\(P\)((?:.|\\\n)*?)(?=\n#|\n\n)", text)}
    missing = [n for n in order if n not in params]
    if missing:
        sys.exit(f"spec/ops.h: no OPKIT_PARAMS_ for {missing}")
    return [(n, params[n]) for n in order]


def prototypes(path, prefix):
    """{op: [(type, name), ...]} for every `opkit_status <prefix><op>(...)` declaration."""
    text = re.sub(r"/\*.*?\*/", "", open(path).read(), flags=re.S)
    out = {}
    for m in re.finditer(r"opkit_status\s+" + prefix + r"(\w+)\s*\(([^;{]*?)\)\s*;", text, re.S):
        params = []
        for p in m.group(2).split(","):
            p = " ".join(p.split()).replace(" *", "*")
            pm = re.match(r"(.*?[\w*])\s*\b(\w+)$", p)
            params.append((pm.group(1).strip(), pm.group(2)) if pm else (p, ""))
        out[m.group(1)] = params
    return out


def check_headers(root, spec, problems):
    for header, prefix in (("opkit.h", "opkit_"), ("opkit_vendor.h", "opkit_vendor_")):
        decl = prototypes(os.path.join(root, "include", header), prefix)
        for name, params in spec:
            want = [(KIND_TYPES[k], n) for k, n in params]
            if name not in decl:
                problems.append(f"{header}: {prefix}{name} is not declared")
            elif decl[name] != want:
                problems.append(f"{header}: {prefix}{name}{decl[name]} differs from the spec {want}")
        if header == "opkit.h":
            spec_names = {n for n, _ in spec}
            for name, params in decl.items():
                takes_tensors = any("opkit_tensor" in t for t, _ in params)
                if takes_tensors and name not in spec_names:
                    problems.append(f"opkit.h: opkit_{name} takes tensors but is not in spec/ops.h")


def list_pattern(params):
    """The op's parameters but the stream, types and names in order, then the stream type."""
    parts = []
    for kind, name in params[:-1]:
        t = re.escape(KIND_TYPES[kind]).replace(r"\*", r"\s*\*").replace(r"\ ", r"\s+")
        parts.append(t + r"\s*" + re.escape(name))
    return re.compile(r"\(\s*" + r"\s*,\s*".join(parts) + r"\s*,\s*opkit_stream\b")


def count_lists(root, spec):
    files = []
    for d in SOURCE_DIRS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, d)):
            dirnames[:] = [x for x in dirnames if not x.startswith(("build", "."))]
            files += [os.path.join(dirpath, f) for f in filenames if f.endswith(SOURCE_EXTS)]
    texts = {os.path.relpath(f, root): open(f, errors="replace").read() for f in files}
    found = {}
    for name, params in spec:
        pat = list_pattern(params)
        found[name] = sorted(p for p, t in texts.items() if p != "include/opkit.h" and pat.search(t))
    return found


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    spec = read_spec(root)
    problems = []
    check_headers(root, spec, problems)
    found = count_lists(root, spec)
    total = 0
    print(f"{'op':24} hand-written parameter lists outside include/opkit.h")
    for name, _ in spec:
        files = found[name]
        total += len(files)
        print(f"{name:24} {len(files)}  {' '.join(files)}")
        extra = [f for f in files if f != "include/opkit_vendor.h" and f not in OUT_OF_TREE]
        if extra:
            problems.append(f"{name}: its parameter list is written out by hand in {extra}; derive it "
                            "from spec/ops.h (OPKIT_PARAM_DECLS / opkit::args::{name})")
    print(f"total: {total} over {len(spec)} ops")
    for p in problems:
        print("FAIL", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
