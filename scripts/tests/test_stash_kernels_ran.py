"""Tests of scripts/check-stash-kernels-ran.py (the gpu-check step that proves the stash
kernels ran on an sm_90+ GPU: their results match the kernels they replace, so the
tests' own assertions cannot tell).

Run:  python3 -m pytest -q scripts/tests          (or: python3 scripts/tests/test_stash_kernels_ran.py)

The expected list is compared with the names the host sources spell (the AMD code-object
gate's derivation through the C++ preprocessor, filtered by its NVIDIA_ONLY_RE), so a
stash kernel added to the host without the checker fails here. The parser reads real
Nsight Compute summaries kept under bench/results: call 2 of the twelfth session (the norm
stash test case, every norm stash kernel of one block), call 2 of the thirteenth (the same
case, the fp32 kernels split over two blocks alone) and call 7 of the eleventh (the
cross-entropy stash test case, every cross-entropy stash kernel); and gpu-check's own log of
call 8 of the thirty-first session (the stash test cases on the build that runs
layer_norm's 2-byte stash backwards in pairs of blocks, renamed
opk_ln_bwd_stash_{f16,bf16}_s<i>_k2[_exact] when they began running in pairs, and no longer has
layer_norm's f16 ring forwards: every stash kernel the host names today). The older logs
predate that rename, so their union lacks exactly those twelve names. (Names a log has
beyond the list, such as the retired ring forwards', are not the checker's business.)
"""
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CHECK = os.path.join(ROOT, "scripts", "check-stash-kernels-ran.py")
GATE = os.path.join(ROOT, "scripts", "check-code-objects.py")
NORM_LOG = os.path.join(ROOT, "bench", "results", "2026-11-29-s12", "r2", "ncu-stash.txt")
CE_LOG = os.path.join(ROOT, "bench", "results", "2026-11-29-s11", "r7", "ncu-stash.txt")
SPLIT_LOG = os.path.join(ROOT, "bench", "results", "2026-11-29-s13", "r2", "ncu-k2.txt")
GPU_CHECK_LOG = os.path.join(ROOT, "bench", "results", "2026-12-01-s31", "r8", "check", "stash-kernels-ncu.log")
# layer_norm's 2-byte stash kernels as named since they run in pairs of blocks.
LN_PAIRS = {f"opk_ln_bwd_stash_{dt}_s{i}_k2{x}" for dt in ("f16", "bf16") for i in (0, 1, 2) for x in ("", "_exact")}


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def run(log):
    return subprocess.run([sys.executable, CHECK, log], capture_output=True, text=True)


def test_expected_names_are_the_hosts_nvidia_only_kernels():
    gate = load(GATE, "check_code_objects")
    cxx = os.environ.get("CXX", "c++")
    if not shutil.which(cxx.split()[0]):
        raise AssertionError(f"no C++ preprocessor ({cxx}) to read the host's kernel names with")
    host = {n for n in gate.host_kernel_names(ROOT, cxx) if gate.NVIDIA_ONLY_RE.match(n)}
    want = load(CHECK, "check_stash_kernels_ran").expected_names()
    assert host == want, f"host only: {sorted(host - want)}; checker only: {sorted(want - host)}"
    assert len(want) == 50, len(want)


def test_the_older_logs_together_lack_only_the_renamed_pairs():
    with tempfile.TemporaryDirectory() as tmp:
        both = os.path.join(tmp, "ncu.log")
        with open(both, "w") as out:
            for log in (NORM_LOG, SPLIT_LOG, CE_LOG):
                with open(log) as f:
                    out.write(f.read())
        r = run(both)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "12 of 50" in r.stdout, r.stdout
    named = set(re.findall(r"opk_\w+", r.stdout))
    assert named == LN_PAIRS, sorted(named ^ LN_PAIRS)


def test_gpu_checks_own_log_passes():
    r = run(GPU_CHECK_LOG)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "all 50 stash kernels ran" in r.stdout


def test_missing_kernels_fail_and_are_named():
    r = run(NORM_LOG)  # the norm case of call 2 of s12 alone: no cross-entropy or split kernel ran
    assert r.returncode == 1, r.stdout + r.stderr
    # 16 (cross-entropy, the fp32 splits) and the twelve renamed pairs
    assert "28 of 50" in r.stdout and "opk_ce_fwd_stash_bf16_k4" in r.stdout
    assert "opk_ln_bwd_stash_f32_k2_exact" in r.stdout and "opk_ln_bwd_stash_bf16_s2_k2_exact" in r.stdout
    assert "opk_rms_bwd_stash_bf16_s2_exact" not in r.stdout  # it ran


def test_one_kernel_missing_fails():
    with open(GPU_CHECK_LOG) as f:
        text = f.read()
    # Drop every summary line of one kernel (its name followed by its launch shape).
    kept = "\n".join(l for l in text.splitlines() if not l.lstrip().startswith("opk_rms_bwd_stash_f16_s1_exact ("))
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "ncu.log")
        with open(log, "w") as f:
            f.write(kept)
        r = run(log)
    assert r.returncode == 1, r.stdout
    assert "1 of 50" in r.stdout and "opk_rms_bwd_stash_f16_s1_exact" in r.stdout


def test_a_log_without_kernels_fails():
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "ncu.log")
        with open(log, "w") as f:
            f.write("==PROF== No kernels were profiled.\n")
        r = run(log)
    assert r.returncode == 1 and "50 of 50" in r.stdout, r.stdout


if __name__ == "__main__":
    sys.path.insert(0, HERE)
    import plain_runner

    plain_runner.run(globals())
