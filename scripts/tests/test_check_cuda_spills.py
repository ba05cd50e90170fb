"""Tests of scripts/check-cuda-spills.py (the cuda vendor's stack and loop-spill budgets):
which budget row applies, growth failing and decreases noted, stale rows, and the loop
local-access count on SASS text in cuobjdump's format. The real gate runs as its own ctest
case on the build's fatbins.

Run:  python3 -m pytest -q scripts/tests          (or: python3 scripts/tests/test_check_cuda_spills.py)
"""
import importlib.util
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
spec = importlib.util.spec_from_file_location("check_cuda_spills", os.path.join(ROOT, "scripts", "check-cuda-spills.py"))
gate = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gate)
from plain_runner import run  # noqa: E402

BUDGETS = ("# comment\n"
           "kernel\tstack\tloop_local\twhy\n"
           "*\t0\t0\tnone\n"
           "opk_ln_bwd_stash_*\t40\t8\tthe stash family\n"
           "opk_ln_bwd_stash_f16_s2\t32\t6\tthis one exactly\n"
           "opk_gone\t8\t1\ta kernel that no longer exists\n")


def rows():
    with tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False) as f:
        f.write(BUDGETS)
    try:
        return gate.load_budgets(f.name)
    finally:
        os.unlink(f.name)


def test_an_exact_name_wins_over_a_pattern_and_a_pattern_over_the_default():
    r = rows()
    assert gate.budget_for(r, "opk_ln_bwd_stash_f16_s2")["why"] == "this one exactly"
    assert gate.budget_for(r, "opk_ln_bwd_stash_bf16_s2_exact")["why"] == "the stash family"
    assert gate.budget_for(r, "opk_softmax_fwd_fixed_bf16_g128")["kernel"] == "*"


def test_growth_fails_a_decrease_is_noted_and_a_stale_row_fails_on_the_whole_set():
    values = {"opk_ln_bwd_stash_bf16_s2_exact": (40, 8),   # at budget
              "opk_ln_bwd_stash_f16_s2": (32, 9),          # 9 > 6
              "opk_ln_bwd_stash_bf16_s2": (24, 8),         # below: noted
              "opk_rms_fwd_fixed_bf16_g128": (8, 0)}       # 8 > 0 under '*'
    errors, notes = gate.check(values, rows())
    assert any("opk_ln_bwd_stash_f16_s2: 9 loop local accesses > budget 6" in e for e in errors), errors
    assert any("opk_rms_fwd_fixed_bf16_g128: 8 stack bytes > budget 0" in e for e in errors), errors
    assert any("opk_gone" in e and "matches no kernel" in e for e in errors), errors
    assert len(errors) == 3, errors
    assert notes == ["opk_ln_bwd_stash_bf16_s2: 24 stack bytes < budget 40 (line 4): lower it"], notes
    errors, _ = gate.check(values, rows(), complete=False)  # a single fatbin: no stale-row check
    assert len(errors) == 2, errors


def test_within_budget_is_clean():
    errors, notes = gate.check({"opk_ln_bwd_stash_bf16_s2_exact": (40, 8), "opk_x": (0, 0), "opk_gone": (8, 1),
                                "opk_ln_bwd_stash_f16_s2": (32, 6)}, rows())
    assert errors == [] and notes == [], (errors, notes)


def test_loop_local_accesses_count_spills_inside_loops_once():
    import sass_static
    text = """
	code for sm_90
		Function : opk_k
        /*0000*/                   STL [R1], R2 ;                                        /* 0x0000000201007387 */
        /*0010*/                   LDL R3, [R1] ;                                        /* 0x0000000001037983 */
        /*0020*/                   STL.64 [R1+0x8], R4 ;                                 /* 0x0000080401007387 */
        /*0030*/              @P0   BRA 0x10 ;                                            /* 0xfffffffc00cc1947 */
        /*0040*/              @P1   BRA 0x20 ;                                            /* 0xfffffffc00cc1947 */
        /*0050*/                   LDL R6, [R1] ;                                        /* 0x0000000001067983 */
        /*0060*/                   EXIT ;                                                /* 0x000000000000794d */
"""
    ins = sass_static.parse_sass(text)["opk_k"]
    # loops 0x10-0x30 and 0x20-0x40 overlap: LDL at 0x10 and STL.64 at 0x20, once each;
    # the STL before and the LDL after the loops are outside
    assert sass_static.loop_local_accesses(ins) == 2


def test_a_malformed_budget_row_is_refused():
    with tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False) as f:
        f.write("opk_x\t8\t1\n")
    try:
        gate.load_budgets(f.name)
    except SystemExit as e:
        assert "want kernel, stack, loop_local, why" in str(e)
    else:
        raise AssertionError("a row without its reason was accepted")
    finally:
        os.unlink(f.name)


if __name__ == "__main__":
    sys.exit(run(dict(globals())))
