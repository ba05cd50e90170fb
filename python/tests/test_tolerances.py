"""The one tolerance table (core/tolerances.def) against the op spec: every output of every
op (the out, opt_out and inout parameters of spec/ops.h) has a row for each dtype it can
have, and no row names an op or output the spec lacks. The same file is what libopkit's
OPKIT_VERIFY, the C++ tests and opkit-conformance compile in."""
import pytest

import tolerances
from spec import spec_ops

OPS = spec_ops()
# Saved statistics and losses are fp32 whatever the op's dtype (docs/ops.md).
FP32_ONLY = {"rstd", "mean", "lse", "loss"}
WRITTEN = ("out", "opt_out", "inout")


def expected_rows():
    rows = set()
    for name, params in OPS:
        for kind, param in params:
            if kind in WRITTEN:
                for dt in (("f32",) if param in FP32_ONLY else ("f32", "f16", "bf16")):
                    rows.add((name, param, dt))
    return rows


@pytest.mark.parametrize("row", sorted(expected_rows()), ids=lambda r: "-".join(r))
def test_every_output_of_every_op_has_a_tolerance(row):
    assert row in tolerances.TABLE, f"core/tolerances.def has no row for {row}"


def test_no_row_without_an_output_of_the_spec():
    assert sorted(set(tolerances.TABLE) - expected_rows()) == []


def test_tolerances_are_not_negative_and_16_bit_rows_allow_one_rounding():
    for (op, out, dt), (rtol, atol) in tolerances.TABLE.items():
        assert rtol >= 0 and atol >= 0, (op, out, dt)
        if op == "embedding_forward":  # a copy: exact
            assert rtol == 0 and atol == 0
            continue
        # Two results computed in fp32 and rounded to a 16-bit dtype can land one unit in
        # the last place apart (2^-10 relative for f16, 2^-7 for bf16): the least rtol.
        if dt == "f16":
            assert rtol >= 2.0 ** -10, (op, out)
        if dt == "bf16":
            assert rtol >= 2.0 ** -7, (op, out)


def test_the_rule_matches_core_tolerances_h():
    # |got - ref| <= rtol |ref| + atol S + step; S = max(max |ref|, floor)
    bad, worst, at, scale, *_ = tolerances.compare([1.0, 2.5], [1.0, 2.0], 0.1, 0.1)
    assert scale == 2.0 and bad == 1 and at == 1  # allowed at [1] = 0.2 + 0.2 = 0.4 < 0.5
    bad, *_ = tolerances.compare([1.0, 2.39], [1.0, 2.0], 0.1, 0.1)
    assert bad == 0
    bad, *_ = tolerances.compare([float("nan")], [float("nan")], 0.0, 0.0)
    assert bad == 0
    bad, *_ = tolerances.compare([3e-8], [0.0], 0.0, 0.0, step=2.0 ** -24)  # an f16 subnormal step
    assert bad == 0
