"""Negative (and a few positive) tests of the AMD code-object gate, scripts/check-code-objects.py.

Run:  python3 -m pytest -q scripts/tests          (or: python3 scripts/tests/test_code_object_gate.py)

Most tests need nothing but Python: the "code objects" are fabricated `llvm-readelf
--notes` texts and --readelf points at a stub that prints them, so every failure the gate
promises is provoked on purpose and must make it exit 1 with the reason. One test compiles
a deliberately bad tiny kernel with Debian's clang 15 for gfx90a and reads it with the real
llvm-readelf; it is skipped (visibly) where that toolchain is missing.
"""
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
GATE = os.path.join(ROOT, "scripts", "check-code-objects.py")
COMPILE = os.path.join(ROOT, "scripts", "hip-device-compile.sh")

sys.path.insert(0, HERE)
import plain_runner  # noqa: E402 - the runner for `python3 <this file>`, and skip()

skip = plain_runner.skip


def gate_module():
    spec = importlib.util.spec_from_file_location("check_code_objects", GATE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def kernel(name, wave=64, vgpr=32, agpr=0, sgpr=40, vspill=0, sspill=0, scratch=0, lds=0, wg=256, dyn="false"):
    return textwrap.dedent(f"""\
      - .args:
          - .offset:         0
            .size:           160
            .value_kind:     by_value
        .agpr_count:     {agpr}
        .group_segment_fixed_size: {lds}
        .kernarg_segment_align: 8
        .kernarg_segment_size: 160
        .max_flat_workgroup_size: {wg}
        .name:           {name}
        .private_segment_fixed_size: {scratch}
        .sgpr_count:     {sgpr}
        .sgpr_spill_count: {sspill}
        .symbol:         {name}.kd
        .uses_dynamic_stack: {dyn}
        .vgpr_count:     {vgpr}
        .vgpr_spill_count: {vspill}
        .wavefront_size: {wave}
    """)


def notes(arch, kernels):
    body = "".join(textwrap.indent(k, "  ") if not k.startswith("  ") else k for k in kernels)
    return ("Displaying notes found in: .note\n  Owner Data size Description\n  AMDGPU 0x00000000 NT_AMDGPU_METADATA\n"
            "    AMDGPU Metadata:\n---\namdhsa.kernels:\n" + body +
            f"amdhsa.target:   amdgcn-amd-amdhsa--{arch}\namdhsa.version:\n  - 1\n  - 1\n...\n")


BUDGETS = textwrap.dedent("""\
    family\ttargets\tlds\tscratch\tvgpr_spill\twhy
    row\t*\t512\t0\t0\treduce slots
    big\tgfx90a\t0\t64\t10\ttoday's gfx90a value
    big\t*\t0\t0\t0\tnothing elsewhere
    """)


class Fixture:
    """A code-object directory: two modules on gfx90a (wave64) and gfx1030 (wave32)."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.dir = os.path.join(tmp, "co")
        self.readelf = os.path.join(tmp, "fake-readelf")
        with open(self.readelf, "w") as f:
            f.write("#!/bin/sh\n# stands in for llvm-readelf --notes FILE: the file is the notes text\n"
                    "[ \"$1\" = --notes ] && exec cat \"$2\"\nexit 2\n")
        os.chmod(self.readelf, 0o755)
        self.budgets = os.path.join(tmp, "budgets.tsv")
        self.write_budgets(BUDGETS)
        self.names = os.path.join(tmp, "names.txt")
        with open(self.names, "w") as f:
            f.write("opk_row_f32_c0\nopk_row_f16_c1\nopk_big_f32\n")
        self.modules = {"alpha": ["opk_row_f32_c0", "opk_row_f16_c1"], "beta": ["opk_big_f32"]}
        self.over = {}  # (arch, name) -> kernel() overrides
        self.drop = set()  # (arch, name) not emitted

    def write_budgets(self, text):
        with open(self.budgets, "w") as f:
            f.write(text)

    def build(self):
        shutil.rmtree(self.dir, ignore_errors=True)
        for arch, wave in (("gfx90a", 64), ("gfx1030", 32)):
            os.makedirs(os.path.join(self.dir, arch))
            for mod, names in self.modules.items():
                ks = []
                for n in names:
                    if (arch, n) in self.drop:
                        continue
                    kw = {"wave": wave, "lds": 512 if "row" in n and n.endswith("c1") else 0,
                          "wg": 1024 if "row" in n else 256}
                    if n == "opk_big_f32" and arch == "gfx90a":
                        kw.update(scratch=64, vspill=10)
                    kw.update(self.over.get((arch, n), {}))
                    ks.append(kernel(n, **kw))
                with open(os.path.join(self.dir, arch, mod + ".co"), "w") as f:
                    f.write(notes(arch, ks))

    def run(self, *extra):
        self.build()
        cmd = [sys.executable, GATE, "--readelf", self.readelf, "--budgets", self.budgets,
               "--host-names", self.names, "--modules", ",".join(self.modules), *extra, self.dir]
        return subprocess.run(cmd, capture_output=True, text=True)


def with_fixture(test):
    def wrapped():
        with tempfile.TemporaryDirectory() as tmp:
            test(Fixture(tmp))
    wrapped.__name__ = test.__name__
    wrapped.__doc__ = test.__doc__
    return wrapped


def fails_with(r, *needles):
    out = r.stdout + r.stderr
    assert r.returncode == 1, f"gate should fail (rc {r.returncode}):\n{out}"
    for n in needles:
        assert n in out, f"expected {n!r} in:\n{out}"


@with_fixture
def test_clean_objects_pass(fx):
    r = fx.run()
    assert r.returncode == 0, r.stdout + r.stderr
    assert "check-code-objects: OK" in r.stdout
    assert "gfx1030" in r.stdout and "gfx90a" in r.stdout


@with_fixture
def test_kernel_missing_on_one_target(fx):
    fx.drop.add(("gfx1030", "opk_row_f16_c1"))
    fails_with(fx.run(), "gfx1030: 1 kernels the host launches are missing: ['opk_row_f16_c1']",
               "kernel names differ from")


@with_fixture
def test_kernel_the_host_does_not_name(fx):
    fx.modules["beta"].append("opk_stray_f32")
    fx.write_budgets(BUDGETS + "stray\t*\t0\t0\t0\tx\n")
    fails_with(fx.run(), "kernels no host source names", "opk_stray_f32")


@with_fixture
def test_nvidia_only_names_are_not_expected_on_amd(fx):
    """The host names the stash kernels (clusters: NVIDIA sm_90+ only); the AMD objects
    lack them, and the nvcc images' name list has them: neither is a difference."""
    stash = "opk_ce_fwd_stash_bf16_k4\nopk_rms_bwd_stash_f16_s1\nopk_ln_bwd_stash_bf16_s2_exact\n"
    with open(fx.names, "a") as f:
        f.write(stash)
    expect = os.path.join(fx.tmp, "nvcc-names.txt")
    with open(expect, "w") as f:
        f.write("opk_row_f32_c0\nopk_row_f16_c1\nopk_big_f32\n" + stash)
    r = fx.run("--expect-names", expect)
    assert r.returncode == 0, r.stdout + r.stderr


@with_fixture
def test_other_names_still_count(fx):
    """Only the NVIDIA-only pattern is left out: a similar portable name is still expected."""
    with open(fx.names, "a") as f:
        f.write("opk_ce_fwd_grad_bf16\nopk_ln_bwd_long_bf16\n")
    fails_with(fx.run(), "kernels the host launches are missing: ['opk_ce_fwd_grad_bf16', 'opk_ln_bwd_long_bf16']")


@with_fixture
def test_missing_module(fx):
    r = fx.run("--modules", "alpha,beta,gamma")
    fails_with(r, "no code object for module gamma")


@with_fixture
def test_wrong_wavefront(fx):
    fx.over[("gfx1030", "opk_row_f32_c0")] = {"wave": 64}
    fails_with(fx.run(), "gfx1030: opk_row_f32_c0 has .wavefront_size 64, expected 32")


@with_fixture
def test_undeclared_lds(fx):
    # A promoted alloca shows up as LDS beyond the family's declared __shared__ bytes.
    fx.over[("gfx90a", "opk_row_f32_c0")] = {"lds": 4608}
    fails_with(fx.run(), "opk_row_f32_c0: 4608 LDS bytes", "> budget 512")


@with_fixture
def test_scratch_over_budget(fx):
    fx.over[("gfx90a", "opk_big_f32")] = {"scratch": 72, "vspill": 10}
    fails_with(fx.run(), "gfx90a: opk_big_f32: 72 scratch bytes per lane > budget 64")


@with_fixture
def test_scratch_where_the_budget_is_zero(fx):
    # The target-specific row (gfx90a) must not leak to other targets.
    fx.over[("gfx1030", "opk_big_f32")] = {"scratch": 16}
    fails_with(fx.run(), "gfx1030: opk_big_f32: 16 scratch bytes per lane > budget 0")


@with_fixture
def test_vgpr_spills_over_budget(fx):
    fx.over[("gfx90a", "opk_row_f16_c1")] = {"vspill": 3, "lds": 512}
    fails_with(fx.run(), "opk_row_f16_c1: 3 VGPR spills > budget 0")


@with_fixture
def test_dynamic_stack(fx):
    fx.over[("gfx90a", "opk_big_f32")] = {"dyn": "true", "scratch": 64, "vspill": 10}
    fails_with(fx.run(), "gfx90a: opk_big_f32 uses a dynamic stack")


@with_fixture
def test_family_without_budget(fx):
    fx.write_budgets("\n".join(l for l in BUDGETS.splitlines() if not l.startswith("row")) + "\n")
    fails_with(fx.run(), "no budget for family row")


@with_fixture
def test_budget_needs_a_reason(fx):
    fx.write_budgets(BUDGETS + "zzz\t*\t0\t0\t0\t\n")
    fails_with(fx.run(), "a budget needs its justification")


@with_fixture
def test_loose_budget_is_reported(fx):
    fx.write_budgets(BUDGETS.replace("big\tgfx90a\t0\t64\t10", "big\tgfx90a\t0\t100\t10"))
    r = fx.run()
    assert r.returncode == 0, r.stdout + r.stderr
    assert "looser than today: scratch 100 > 64" in r.stdout


@with_fixture
def test_check_only_mode_of_the_compile_script(fx):
    # The CI entry point for the rocm vendor's code objects: compiles nothing.
    fx.build()
    env = dict(os.environ, LLVM_READELF=fx.readelf,
               CHECK_ARGS=f"--budgets {fx.budgets} --host-names {fx.names} --modules alpha,beta")
    r = subprocess.run(["bash", COMPILE, "--check-only", fx.dir], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    assert os.path.exists(os.path.join(fx.dir, "resources.tsv"))
    fx.over[("gfx90a", "opk_row_f32_c0")] = {"wave": 32}
    fx.build()
    r = subprocess.run(["bash", COMPILE, "--check-only", fx.dir, "gfx90a"], capture_output=True, text=True, env=env)
    fails_with(r, "has .wavefront_size 32, expected 64")


def test_occupancy_model():
    g = gate_module()
    k = lambda **kw: {k2: str(v) for k2, v in kw.items()}
    # A row kernel of 1024 threads on gfx90a at its 128-VGPR cap: 4 waves per SIMD (one
    # block per CU), though registers alone would allow 7 (SGPRs) / 4 (VGPRs).
    w, why = g.occupancy("gfx90a", k(vgpr_count=128, sgpr_count=104, wavefront_size=64,
                                     max_flat_workgroup_size=1024, group_segment_fixed_size=512))
    assert (w, why) == (4, "vgpr"), (w, why)
    # 259 VGPRs (256 + 3 AGPRs) round to 264 of 512: one wave per SIMD.
    assert g.occupancy("gfx90a", k(vgpr_count=259, sgpr_count=60, wavefront_size=64,
                                   max_flat_workgroup_size=256))[0] == 1
    # gfx900: 256 VGPRs per lane, granule 4; SGPRs over 100 allow 7 waves.
    assert g.occupancy("gfx900", k(vgpr_count=24, sgpr_count=104, wavefront_size=64,
                                   max_flat_workgroup_size=256)) == (7, "sgpr")
    # gfx1030 wave32: 1024 VGPRs, granule 16, at most 16 waves; SGPRs do not limit.
    assert g.occupancy("gfx1030", k(vgpr_count=128, sgpr_count=106, wavefront_size=32,
                                    max_flat_workgroup_size=1024)) == (8, "vgpr")
    # Whole blocks: 1024 threads of wave64 at 7 waves per SIMD still fit only one block.
    assert g.occupancy("gfx900", k(vgpr_count=36, sgpr_count=104, wavefront_size=64,
                                   max_flat_workgroup_size=1024)) == (4, "block")
    # LDS: 8 KiB blocks of 1024 threads, 64 KiB per CU, are not what limits.
    assert g.occupancy("gfx908", k(vgpr_count=12, sgpr_count=22, wavefront_size=64,
                                   max_flat_workgroup_size=1024, group_segment_fixed_size=40000))[1] == "lds"


def test_family_names():
    g = gate_module()
    assert g.family_of("opk_ce_bwd_bf16_c2") == "ce_bwd"
    assert g.family_of("opk_geglu_erf_fwd_dense_f16") == "geglu_erf_fwd"
    assert g.family_of("opk_emb_mark") == "emb_mark"
    assert g.family_of("opk_ce_count_valid") == "ce_count_valid"
    assert g.family_of("opk_rms_fwd_fixed_bf16_g512") == "rms_fwd_fixed"
    assert g.family_of("opk_rms_fwd_fixed_f32_g512x4") == "rms_fwd_fixed"  # four packs a thread


def test_host_names_come_from_the_preprocessor():
    """Names pasted by macros are found; comments, #if'd-out code and other strings are not."""
    cxx = shutil.which(os.environ.get("CXX", "c++")) or shutil.which("g++") or shutil.which("clang++")
    if not cxx:
        return skip("no C++ preprocessor")
    g = gate_module()
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "vendors", "gpu", "host"))
        with open(os.path.join(tmp, "vendors", "gpu", "names.h"), "w") as f:
            f.write('#define TWO(stem) { stem "_f32", stem "_f16" }\n')
        with open(os.path.join(tmp, "vendors", "gpu", "host", "ops.cpp"), "w") as f:
            f.write(textwrap.dedent("""\
                #include <cstdio>
                #include "../names.h"
                #ifndef SET_BY_THE_BUILD
                #error "a macro the build defines: the preprocessor output is still complete"
                #endif
                // "opk_in_a_comment"
                const char* const kA[2] = TWO("opk_fam");
                const char kB[] = "opk_" "joined";
                #if 0
                const char kC[] = "opk_disabled";
                #endif
                void f() { std::printf("opk_not a name %c\\n", 'x'); }
                """))
        names = g.host_kernel_names(tmp, cxx)
        assert names == {"opk_fam_f32", "opk_fam_f16", "opk_joined"}, names
        # A missing header may cut the output short: that must fail, not give fewer names.
        with open(os.path.join(tmp, "vendors", "gpu", "host", "broken.cpp"), "w") as f:
            f.write('#include "no_such_header.h"\nconst char k[] = "opk_lost";\n')
        try:
            g.host_kernel_names(tmp, cxx)
        except SystemExit as e:
            assert "no_such_header.h" in str(e), e
        else:
            raise AssertionError("a missing header must fail the name derivation")


def test_real_names_match_the_kernel_sources():
    """The derivation over the real vendors/gpu/host finds every family the .cu files define."""
    cxx = shutil.which(os.environ.get("CXX", "c++")) or shutil.which("g++")
    if not cxx:
        return skip("no C++ preprocessor")
    names = gate_module().host_kernel_names(ROOT, cxx)
    assert len(names) > 100 and "opk_rope_bf16" in names and "opk_ce_bwd_f16_c2" in names, sorted(names)


def test_real_bad_kernel_fails_the_gate():
    """A tiny kernel built by clang 15 for gfx90a with a dynamically indexed local array
    (scratch) and LDS beyond its budget: the real llvm-readelf path must fail it."""
    clang = shutil.which(os.environ.get("HIP_CLANG", "clang++-15"))
    readelf = shutil.which(os.environ.get("LLVM_READELF", "llvm-readelf-15")) or (
        "/usr/lib/llvm-15/bin/llvm-readelf" if os.path.exists("/usr/lib/llvm-15/bin/llvm-readelf") else None)
    devlib = "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode"
    if not clang or not readelf or not os.path.isdir(devlib):
        return skip("no clang++-15 / llvm-readelf-15 / rocm-device-libs")
    src = textwrap.dedent("""\
        #include <hip/hip_runtime.h>
        extern "C" __global__ void __launch_bounds__(256) opk_bad_f32(float* out, int i) {
            __shared__ float tile[1024];   // 4096 B of LDS, declared
            float local[64];               // indexed at run time: lives in scratch
            for (int k = 0; k < 64; ++k) local[k] = out[k * i];
            tile[threadIdx.x] = local[i & 63];
            __syncthreads();
            out[threadIdx.x] = tile[(threadIdx.x + 1) % 256];
        }
        """)
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "co", "gfx90a"))
        with open(os.path.join(tmp, "bad.hip"), "w") as f:
            f.write(src)
        subprocess.run([clang, "-x", "hip", "-std=c++17", "-O3", "--offload-arch=gfx90a", "--cuda-device-only",
                        "--rocm-path=/usr", f"--rocm-device-lib-path={devlib}", "--no-gpu-bundle-output",
                        "-c", os.path.join(tmp, "bad.hip"), "-o", os.path.join(tmp, "co", "gfx90a", "bad.co")],
                       check=True, capture_output=True)
        with open(os.path.join(tmp, "budgets.tsv"), "w") as f:
            f.write("bad\t*\t1024\t0\t0\ta budget the kernel breaks on purpose\n")
        with open(os.path.join(tmp, "names.txt"), "w") as f:
            f.write("opk_bad_f32\n")
        r = subprocess.run([sys.executable, GATE, "--readelf", readelf, "--budgets", os.path.join(tmp, "budgets.tsv"),
                            "--host-names", os.path.join(tmp, "names.txt"), "--modules", "bad",
                            os.path.join(tmp, "co"), "gfx90a"], capture_output=True, text=True)
    fails_with(r, "opk_bad_f32: 4096 LDS bytes", "> budget 1024", "scratch bytes per lane > budget 0")


if __name__ == "__main__":
    plain_runner.run(globals())
