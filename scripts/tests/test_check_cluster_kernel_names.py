"""Tests of scripts/check-cluster-kernel-names.py (a kernel that waits for its thread-block
cluster is named _k<n>, n >= 2, and only such a kernel is: what gpu-check's racecheck
filter relies on), on SASS text in cuobjdump's format. The real gate runs as its own ctest
case on the build's fatbins.

Run:  python3 -m pytest -q scripts/tests          (or: python3 scripts/tests/test_check_cluster_kernel_names.py)
"""
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "bench"))
spec = importlib.util.spec_from_file_location("check_cluster_kernel_names",
                                              os.path.join(ROOT, "scripts", "check-cluster-kernel-names.py"))
gate = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gate)
import sass_static  # noqa: E402
from plain_runner import run  # noqa: E402

BARRIER = """\
        /*0000*/                   S2R R6, SR_TID.X ;                                             /* 0x0000000000067919 */
        /*0010*/                   UCGABAR_ARV ;                                                  /* 0x00000000000079c7 */
        /*0020*/                   UCGABAR_WAIT ;                                                 /* 0x0000000000007dc7 */
        /*0030*/                   EXIT ;                                                         /* 0x000000000000794d */
"""
PLAIN = """\
        /*0000*/                   S2R R6, SR_TID.X ;                                             /* 0x0000000000067919 */
        /*0010*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;                                  /* 0x0000000000007b1d */
        /*0020*/                   EXIT ;                                                         /* 0x000000000000794d */
"""


def sass(functions):
    """cuobjdump -sass text of {name: body}."""
    text = "\tcode for sm_90\n"
    for name, body in functions.items():
        text += f"\t\tFunction : {name}\n\t.headerflags\t@\"EF_CUDA_SM90\"\n{body}\t\t..........\n\n"
    return sass_static.parse_sass(text)


def test_the_library_s_names_pass():
    kernels = sass({"opk_ln_bwd_stash_f32_k2": BARRIER, "opk_ln_bwd_stash_bf16_s2_k2_exact": BARRIER,
                    "opk_ce_fwd_stash_bf16_k8": BARRIER, "opk_ce_fwd_stash_bf16_k1": PLAIN,
                    "opk_rms_bwd_stash_bf16_s2_exact": PLAIN, "opk_softmax_fwd_fixed_bf16_g256": PLAIN})
    assert len(kernels) == 6, kernels.keys()
    assert gate.check(kernels) == []


def test_a_cluster_kernel_without_the_suffix_fails():
    # the twenty-second session's pair kernels, as they were first named
    errors = gate.check(sass({"opk_ln_bwd_stash_f16_s0": BARRIER, "opk_ln_bwd_stash_f16_s0_k1": BARRIER}))
    assert len(errors) == 2, errors
    assert all("waits for its cluster" in e and "racecheck" in e for e in errors), errors


def test_the_suffix_without_a_cluster_barrier_fails():
    errors = gate.check(sass({"opk_x_k4": PLAIN}))
    assert len(errors) == 1 and errors[0].startswith("opk_x_k4: named _k<n>"), errors


def test_only_a_whole_name_part_counts():
    assert gate.CLUSTER_NAME_RE.search("opk_a_k2_exact") and gate.CLUSTER_NAME_RE.search("opk_a_k16")
    for name in ("opk_a_k1", "opk_a_k20x", "opk_a_k2x", "opk_ak2", "opk_a_k0"):
        assert not gate.CLUSTER_NAME_RE.search(name), name


if __name__ == "__main__":
    sys.exit(run(dict(globals())))
