"""The one tolerance table, core/tolerances.def, read from its C source (the same file
libopkit's OPKIT_VERIFY, the C++ tests and opkit-conformance compile in), and the one
comparison rule of core/tolerances.h:

    |got - ref| <= rtol * |ref| + atol * S + step,   S = max(max |ref|, floor)

step = the dtype's subnormal spacing (f16 2^-24), NaN must match NaN and infinities must be
equal. docs/tolerances.md justifies the values.

OPKIT_TOLERANCE_REPORT=FILE appends, at exit, the worst error seen per (op, output, dtype):
"python op output dtype compared worst_ratio max_err_over_S max_rel_err needed_atol" per line
(tests/support/tolerance_report.py prints the table)."""
import atexit
import os
import re

import numpy as np

DEF_FILE = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                         "core", "tolerances.def"))
_ROW = re.compile(r"^OPKIT_TOLERANCE\(\s*(\w+)\s*,\s*(\w+)\s*,\s*(\w+)\s*,\s*([-+.eE0-9]+)\s*,"
                  r"\s*([-+.eE0-9]+)\s*\)", re.M)


def load(path=DEF_FILE):
    """{(op, output, dtype): (rtol, atol)} from the .def file."""
    with open(path) as f:
        text = f.read()
    return {(m[0], m[1], m[2]): (float(m[3]), float(m[4])) for m in _ROW.findall(text)}


TABLE = load()
_WORST = {}  # (op, output, dtype) -> [compared, worst_ratio, max_err_over_S, max_rel_err, needed_atol]
STEP = {"f16": 2.0 ** -24, "bf16": 2.0 ** -133, "f32": 2.0 ** -149}


def lookup(op, output, dtype):
    key = (op, output.split(" ")[0], dtype)
    if key not in TABLE:
        raise AssertionError(f"no tolerance for {key} in {DEF_FILE}")
    return TABLE[key]


def compare(got, ref, rtol, atol, step=0.0, floor=0.0):
    """Per the rule above: (mismatches, worst_ratio, worst_index, scale, max_err/S, max rel
    err over |ref| >= S/8, needed atol)."""
    got = np.asarray(got, dtype=np.float64).reshape(-1)
    ref = np.asarray(ref, dtype=np.float64).reshape(-1)
    if got.shape != ref.shape:
        raise AssertionError(f"{got.size} values, the reference has {ref.size}")
    finite = np.isfinite(ref)
    scale = max(floor, float(np.max(np.abs(ref[finite]))) if finite.any() else 0.0)
    s = max(scale, 1e-300)
    both = np.isfinite(got) & finite
    err = np.where(both, np.abs(got - np.where(both, ref, 0)), 0.0)
    allowed = rtol * np.abs(np.where(both, ref, 0)) + atol * s + step
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(err == 0, 0.0, np.where(allowed > 0, err / allowed, np.inf))
    # NaN matches NaN, an infinity matches the same infinity; anything else non-finite fails
    same_special = (np.isnan(got) & np.isnan(ref)) | (np.isinf(ref) & (got == ref))
    ratio = np.where(both, ratio, np.where(same_special, 0.0, np.inf))
    big = both & (np.abs(ref) >= s / 8)
    rel = float(np.max(err[big] / np.abs(ref[big]))) if big.any() else 0.0
    need = float(np.max((err - rtol * np.abs(np.where(both, ref, 0)) - step) / s)) if err.size else 0.0
    worst = int(np.argmax(ratio)) if ratio.size else -1
    return (int(np.count_nonzero(ratio > 1)), float(ratio[worst]) if ratio.size else 0.0, worst, scale,
            float(np.max(err)) / s if err.size else 0.0, rel, max(need, 0.0))


def check(got, ref, op, output, dtype, floor=0.0):
    """Asserts got ≈ ref under the tolerance of (op, output, dtype); records the errors."""
    rtol, atol = lookup(op, output, dtype)
    got64 = np.asarray(got, dtype=np.float64)
    ref64 = np.broadcast_to(np.asarray(ref, dtype=np.float64), got64.shape)
    bad, worst, at, scale, scaled, rel, need = compare(got64, ref64, rtol, atol, STEP.get(dtype, 0.0), floor)
    key = (op, output.split(" ")[0], dtype)
    row = _WORST.setdefault(key, [0, 0.0, 0.0, 0.0, 0.0])
    row[0] += 1
    row[1], row[2], row[3], row[4] = max(row[1], worst), max(row[2], scaled), max(row[3], rel), max(row[4], need)
    if bad:
        g, r = got64.reshape(-1)[at], ref64.reshape(-1)[at]
        raise AssertionError(
            f"{op} {output} {dtype}: {bad} of {got64.size} elements outside rtol {rtol:g} x |ref| + atol "
            f"{atol:g} x S {scale:g} (core/tolerances.def); worst element {at}: got {g!r}, want {r!r}, "
            f"err/tolerance {worst:.3g}")


@atexit.register
def _write_report():
    path = os.environ.get("OPKIT_TOLERANCE_REPORT")
    if not path or not _WORST:
        return
    with open(path, "a") as f:
        for (op, out, dt), (n, worst, scaled, rel, need) in sorted(_WORST.items()):
            f.write(f"python {op} {out} {dt} {n} {worst:.6g} {scaled:.6g} {rel:.6g} {need:.6g}\n")
