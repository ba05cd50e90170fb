"""Tests of bench/prepare_device_builds.sh (the build-VM side of the device calls), run in a
scratch git repository with a stand-in `ninja` whose "cuda vendor" is a copy of the source
it was built from, so that what a variant was built from shows in its output:
`variant` builds both GPU vendors (or the cuda vendor alone) from the patched source with
the macro set and restores the tree and the build; it refuses to touch a file with uncommitted changes and a macro the patch does not
define; `check` copies what the GPU checks run, without static archives, with the commit;
`pack` archives the variants as dc_variants unpacks them, and build-check as
bench/device_call.sh unpacks it.

Run:  python3 -m pytest -q scripts/tests          (or: python3 scripts/tests/test_prepare_device_builds.py)
"""
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from plain_runner import run  # noqa: E402

SCRIPT = os.path.join(ROOT, "bench", "prepare_device_builds.sh")
BINARIES = ("opkit-info opkit-conformance opkit_api_tests opkit_unit_tests opkit_cuda_tests opkit_rocm_tests "
            "opkit_cuda_multigpu_tests opkit_rocm_multigpu_tests tiny_lm bench_dispatch_overhead").split()
KERNEL = "#ifndef OPK_EXP_WIDTH\n#define OPK_EXP_WIDTH 0\n#endif\nint width = OPK_EXP_WIDTH;\n"

# The stand-in: `ninja -C DIR [-jN] [TARGETS]` logs its targets; each vendor target (or no
# target: all) makes that "vendor" a copy of vendors/gpu/kernel.cu as it is now, with the
# vendor's name in front, so that a vendor shows which source and which target built it.
NINJA = """#!/bin/sh
dir=$2
shift 2
echo "$*" >> "$dir/ninja.log"
v=$dir/lib/opkit/vendors
case "$*" in
  *vendors/cuda/all*|-j[0-9]|-j[0-9][0-9]) { echo cuda; cat vendors/gpu/kernel.cu; } > "$v/libopkit_vendor_cuda.so" ;;
esac
case "$*" in
  *vendors/rocm/all*|-j[0-9]|-j[0-9][0-9]) { echo rocm; cat vendors/gpu/kernel.cu; } > "$v/libopkit_vendor_rocm.so" ;;
esac
"""


def sh(args, cwd, **kw):
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=60, **kw)


def make_repo(work):
    """A repository with the script and a kernel source, a configured stand-in build-gpu,
    and the stand-in ninja first on PATH; returns the environment to run the script in."""
    os.makedirs(os.path.join(work, "bench"))
    os.makedirs(os.path.join(work, "vendors", "gpu"))
    shutil.copy(SCRIPT, os.path.join(work, "bench"))
    with open(os.path.join(work, "vendors", "gpu", "kernel.cu"), "w") as f:
        f.write(KERNEL)
    for cmd in (["git", "init", "-q"], ["git", "add", "-A"],
                ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base"]):
        assert sh(cmd, work).returncode == 0
    build = os.path.join(work, "build-gpu")
    for d in ("bin", "lib/opkit/vendors", "tests/fake_vendor/exact/CMakeFiles", "tests/hip_on_cuda/hip",
              "vendors/blas"):
        os.makedirs(os.path.join(build, d))
    open(os.path.join(build, "build.ninja"), "w").close()
    for b in BINARIES:
        with open(os.path.join(build, "bin", b), "w") as f:
            f.write(b)
    for name in ("libopkit.so.1", "libopkit_internal.a", "opkit/vendors/libopkit_vendor_rocm.so"):
        with open(os.path.join(build, "lib", name), "w") as f:
            f.write(name)
    os.symlink("libopkit.so.1", os.path.join(build, "lib", "libopkit.so"))
    for name in ("tests/fake_vendor/exact/libopkit_vendor_exact.so", "tests/fake_vendor/exact/CMakeFiles/x.o",
                 "tests/fake_vendor/cmake_install.cmake", "tests/hip_on_cuda/hip/libamdhip64.so",
                 "vendors/blas/libopkit_vendor_blas.so"):
        with open(os.path.join(build, name), "w") as f:
            f.write(name)
    tools = os.path.join(work, "tools-bin")
    os.makedirs(tools)
    with open(os.path.join(tools, "ninja"), "w") as f:
        f.write(NINJA)
    os.chmod(os.path.join(tools, "ninja"), 0o755)
    return dict(os.environ, PATH=tools + os.pathsep + os.environ["PATH"])


def write_patch(work, new_line):
    """A patch that adds `new_line` to the kernel (made with git diff, then undone)."""
    path = os.path.join(work, "vendors", "gpu", "kernel.cu")
    with open(path, "a") as f:
        f.write(new_line + "\n")
    diff = sh(["git", "diff"], work).stdout
    sh(["git", "checkout", "-q", "--", "vendors"], work)
    patch = os.path.join(work, "exp.patch")
    with open(patch, "w") as f:
        f.write(diff)
    return patch


def read(*parts):
    with open(os.path.join(*parts)) as f:
        return f.read()


def test_check_copies_what_the_gpu_checks_run_without_archives():
    with tempfile.TemporaryDirectory() as work:
        env = make_repo(work)
        proc = sh(["bench/prepare_device_builds.sh", "check"], work, env=env)
        assert proc.returncode == 0, proc.stderr
        check = os.path.join(work, "build-check")
        assert sorted(os.listdir(os.path.join(check, "bin"))) == sorted(BINARIES)
        assert not os.path.exists(os.path.join(check, "lib", "libopkit_internal.a"))
        assert os.path.islink(os.path.join(check, "lib", "libopkit.so"))
        assert os.path.exists(os.path.join(check, "lib", "opkit", "vendors", "libopkit_vendor_rocm.so"))
        assert os.path.exists(os.path.join(check, "tests", "fake_vendor", "exact", "libopkit_vendor_exact.so"))
        assert not os.path.exists(os.path.join(check, "tests", "fake_vendor", "exact", "CMakeFiles"))
        assert not os.path.exists(os.path.join(check, "tests", "fake_vendor", "cmake_install.cmake"))
        assert os.path.exists(os.path.join(check, "tests", "hip_on_cuda", "hip", "libamdhip64.so"))
        assert os.path.exists(os.path.join(check, "vendors-blas", "libopkit_vendor_blas.so"))
        head = sh(["git", "rev-parse", "HEAD"], work).stdout
        assert read(check, "HEAD.txt") == head  # a clean tree: no "dirty" line
        log = read(work, "build-gpu", "ninja.log").splitlines()
        assert log == ["-j2", "-j2 vendors/cuda/all vendors/rocm/all"], log


def test_check_refuses_an_unconfigured_build_and_a_missing_binary():
    with tempfile.TemporaryDirectory() as work:
        env = make_repo(work)
        os.remove(os.path.join(work, "build-gpu", "bin", "tiny_lm"))
        proc = sh(["bench/prepare_device_builds.sh", "check"], work, env=env)
        assert proc.returncode == 2 and "tiny_lm is missing" in proc.stderr, proc.stderr
        os.remove(os.path.join(work, "build-gpu", "build.ninja"))
        proc = sh(["bench/prepare_device_builds.sh", "check"], work, env=env)
        assert proc.returncode == 2 and "not configured" in proc.stderr, proc.stderr


def test_variant_builds_the_patched_source_with_the_setting_then_restores_tree_and_build():
    with tempfile.TemporaryDirectory() as work:
        env = make_repo(work)
        assert sh(["bench/prepare_device_builds.sh", "check"], work, env=env).returncode == 0
        patch = write_patch(work, "int extra = 1;  // the experiment")
        proc = sh(["bench/prepare_device_builds.sh", "variant", "w4", patch, "OPK_EXP_WIDTH=4"], work, env=env)
        assert proc.returncode == 0, proc.stderr
        stage = os.path.join(work, "build-var-stage", "vw4")
        # Both vendors built from the patched source with the setting: dc_tests' rocm half
        # runs the variant's kernels, not HEAD's.
        for vendor in ("cuda", "rocm"):
            built = read(stage, f"libopkit_vendor_{vendor}.so")
            assert built.startswith(vendor + "\n"), built
            assert "#define OPK_EXP_WIDTH 4\n" in built and "int extra = 1;" in built, built
        assert "OPK_EXP_WIDTH=4" in read(stage, "VARIANT.txt")
        assert "cuda and rocm vendors" in read(stage, "VARIANT.txt")
        # The tree is HEAD's again, and so are the build's vendors.
        assert sh(["git", "status", "--porcelain", "--", "vendors"], work).stdout == ""
        vendors = os.path.join(work, "build-gpu", "lib", "opkit", "vendors")
        assert read(vendors, "libopkit_vendor_cuda.so") == "cuda\n" + KERNEL
        assert read(vendors, "libopkit_vendor_rocm.so") == "rocm\n" + KERNEL
        log = read(work, "build-gpu", "ninja.log").splitlines()
        assert log[-2:] == ["-j2 vendors/cuda/all vendors/rocm/all"] * 2, log

        proc = sh(["bench/prepare_device_builds.sh", "pack"], work, env=env)
        assert proc.returncode == 0, proc.stderr
        with tarfile.open(os.path.join(work, "build-var", "var.tar.xz")) as tar:
            names = {m.name.lstrip("./") for m in tar.getmembers()}
        assert "vw4/libopkit_vendor_cuda.so" in names and "vw4/libopkit_vendor_rocm.so" in names, names
        # build-check packed beside them, as device_call.sh unpacks it.
        with tarfile.open(os.path.join(work, "build-var", "check.tar.xz")) as tar:
            names = {m.name.lstrip("./") for m in tar.getmembers()}
        assert {"HEAD.txt", "bin/tiny_lm", "lib/opkit/vendors/libopkit_vendor_rocm.so"} <= names, names
        # build-var is what a call carries: the archives alone, never the unpacked stage.
        assert sorted(os.listdir(os.path.join(work, "build-var"))) == ["check.tar.xz", "var.tar.xz"]


def test_pack_of_build_check_alone_replaces_an_earlier_packs_archives():
    with tempfile.TemporaryDirectory() as work:
        env = make_repo(work)
        os.makedirs(os.path.join(work, "build-var"))
        open(os.path.join(work, "build-var", "var.tar.xz"), "w").close()  # an earlier pack's
        assert sh(["bench/prepare_device_builds.sh", "check"], work, env=env).returncode == 0
        proc = sh(["bench/prepare_device_builds.sh", "pack"], work, env=env)
        assert proc.returncode == 0, proc.stderr
        assert os.listdir(os.path.join(work, "build-var")) == ["check.tar.xz"]
        with tarfile.open(os.path.join(work, "build-var", "check.tar.xz")) as tar:
            head = tar.extractfile("./HEAD.txt").read().decode()
        assert head == sh(["git", "rev-parse", "HEAD"], work).stdout


def test_variant_refuses_uncommitted_changes_and_an_undefined_macro_and_touches_nothing():
    with tempfile.TemporaryDirectory() as work:
        env = make_repo(work)
        assert sh(["bench/prepare_device_builds.sh", "check"], work, env=env).returncode == 0
        patch = write_patch(work, "int extra = 1;")
        kernel = os.path.join(work, "vendors", "gpu", "kernel.cu")
        with open(kernel, "a") as f:
            f.write("// work in progress\n")
        proc = sh(["bench/prepare_device_builds.sh", "variant", "x", patch], work, env=env)
        assert proc.returncode == 2 and "uncommitted changes" in proc.stderr, proc.stderr
        assert read(kernel).endswith("// work in progress\n")  # left as it was
        assert not os.path.exists(os.path.join(work, "build-var-stage", "vx"))

        sh(["git", "checkout", "-q", "--", "vendors"], work)
        proc = sh(["bench/prepare_device_builds.sh", "variant", "y", patch, "OPK_EXP_NONE=3"], work, env=env)
        assert proc.returncode == 2 and "no '#define OPK_EXP_NONE 0'" in proc.stderr, proc.stderr
        assert read(kernel) == KERNEL  # the patch was undone on the way out
        assert not os.path.exists(os.path.join(work, "build-var-stage", "vy"))


def test_variant_of_the_cuda_vendor_alone_and_without_the_restoring_build():
    with tempfile.TemporaryDirectory() as work:
        env = make_repo(work)
        patch = write_patch(work, "int extra = 1;")
        rocm_before = read(work, "build-gpu", "lib", "opkit", "vendors", "libopkit_vendor_rocm.so")
        env_cuda = dict(env, OPKIT_PREPARE_ROCM="0", OPKIT_PREPARE_RESTORE_BUILD="0")
        proc = sh(["bench/prepare_device_builds.sh", "variant", "c", patch], work, env=env_cuda)
        assert proc.returncode == 0, proc.stderr
        stage = os.path.join(work, "build-var-stage", "vc")
        assert sorted(os.listdir(stage)) == ["VARIANT.txt", "libopkit_vendor_cuda.so"]
        assert "int extra = 1;" in read(stage, "libopkit_vendor_cuda.so")
        assert "cuda vendor only" in read(stage, "VARIANT.txt")
        # the rocm vendor untouched; the tree restored, the build not rebuilt (the next
        # ninja does it): one ninja run, the variant's
        vendors = os.path.join(work, "build-gpu", "lib", "opkit", "vendors")
        assert read(vendors, "libopkit_vendor_rocm.so") == rocm_before
        assert sh(["git", "status", "--porcelain", "--", "vendors"], work).stdout == ""
        assert read(work, "build-gpu", "ninja.log").splitlines() == ["-j2 vendors/cuda/all"]


def test_usage_errors_are_status_2():
    with tempfile.TemporaryDirectory() as work:
        env = make_repo(work)
        for args in (["variant", "z"], ["pack"], ["bogus"], []):
            proc = sh(["bench/prepare_device_builds.sh", *args], work, env=env)
            assert proc.returncode == 2, (args, proc.stderr)


if __name__ == "__main__":
    run(globals())
