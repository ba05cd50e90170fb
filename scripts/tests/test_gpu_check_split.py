"""Tests of scripts/gpu-check-split.sh (gpu-check.sh as seven runs side by side, so that the
whole check fits one call of the device tool) and of gpu-check.sh's OPKIT_GPU_CHECK_ONLY
rules the split relies on. No GPU needed: the steps an expression leaves out only print
SKIPPED, and a step that needs what this machine lacks says why.

Run:  python3 -m pytest -q scripts/tests          (or: python3 scripts/tests/test_gpu_check_split.py)
"""
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CHECK = os.path.join(ROOT, "scripts", "gpu-check.sh")
SPLIT = os.path.join(ROOT, "scripts", "gpu-check-split.sh")


def step_names():
    """Every step gpu-check.sh can report: the names its `step` and `skipped` calls spell."""
    names = set()
    with open(CHECK) as f:
        for line in f:
            if line.lstrip().startswith("#"):
                continue
            names.update(re.findall(r"(?:^|&&|\bthen|;)\s*(?:step|skipped) ([a-z0-9_][a-z0-9_-]*)", line))
    return names


def parts():
    out = subprocess.run(["bash", SPLIT, "--parts"], capture_output=True, text=True, check=True).stdout
    result = {}
    for line in out.splitlines():
        name, expr = line.split("=", 1)
        result[name] = expr.strip("'")
    return result


def check(only, tmp):
    env = dict(os.environ, OPKIT_GPU_CHECK_ONLY=only, OUT=tmp)
    env.pop("OPKIT_PACK_RESULTS", None)
    return subprocess.run(["bash", CHECK, "no-such-build"], capture_output=True, text=True, env=env, timeout=120)


def test_every_step_is_in_exactly_one_part():
    names = step_names()
    assert {"cuda-tests", "rocm-tests", "stash-kernels-ran", "cuda-tests-no-clusters", "pytest", "stash-memcheck",
            "stash-racecheck"} <= names, names
    split = parts()
    assert len(split) == 7, split
    for name in sorted(names):
        owners = [p for p, expr in split.items() if re.search(expr, name)]
        assert len(owners) == 1, f"step {name} is in parts {owners}"


def test_every_part_selects_a_step():
    names = step_names()
    for part, expr in parts().items():
        assert any(re.search(expr, n) for n in names), f"part {part} selects no step of gpu-check.sh"


def test_an_expression_selecting_no_step_fails():
    with tempfile.TemporaryDirectory() as tmp:
        r = check("^no-such-step$", tmp)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "matched no step" in r.stderr


def test_a_bad_expression_fails_with_2():
    with tempfile.TemporaryDirectory() as tmp:
        r = check("(", tmp)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "not a valid expression" in r.stderr


def test_a_selected_step_that_cannot_run_here_is_skipped_with_its_reason():
    # The rocm steps need a build with tests/hip_on_cuda: absent here, so each says why,
    # and the run passes as gpu-check.sh does without the expression.
    with tempfile.TemporaryDirectory() as tmp:
        r = check(parts()["rocm"], tmp)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "== rocm-tests: SKIPPED (needs a -DOPKIT_ROCM_TEST_ON_CUDA=ON build" in r.stdout, r.stdout
    assert "== cuda-tests: SKIPPED (not in OPKIT_GPU_CHECK_ONLY)" in r.stdout


def test_a_step_the_expression_leaves_out_says_so_whatever_it_lacks():
    # Each part prints only its own steps' reasons: a step another part runs, here one that
    # could not run anyway (no build), says it was left out, not why it cannot run.
    with tempfile.TemporaryDirectory() as tmp:
        r = check(parts()["cuda"], tmp)
    assert "== rocm-tests: SKIPPED (not in OPKIT_GPU_CHECK_ONLY)" in r.stdout, r.stdout
    assert "needs a -DOPKIT_ROCM_TEST_ON_CUDA=ON build" not in r.stdout, r.stdout


if __name__ == "__main__":
    sys.path.insert(0, HERE)
    import plain_runner

    plain_runner.run(globals())
