"""Tests of bench/sass_static.py (a kernel's static SASS on the build machine: registers,
its largest loops and their opcode mix). The parser runs on text in cuobjdump's format
(the lines below are cut from its output for the norm stash backward, addresses and
operands shortened); where nvcc and a cuobjdump are at hand, a small kernel is compiled
and read end to end, else that test says SKIP.

Run:  python3 -m pytest -q scripts/tests          (or: python3 scripts/tests/test_sass_static.py)
"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, HERE)
import sass_static  # noqa: E402
from plain_runner import run, skip  # noqa: E402

SASS = """
	code for sm_90
		Function : opk_two_loops
	.headerflags	@"EF_CUDA_64BIT_ADDRESS EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   LDC R1, c[0x0][0x28] ;                                /* 0x00000a00ff017b82 */
                                                                                         /* 0x000e620000000800 */
        /*0010*/                   S2R R6, SR_TID.X ;                                    /* 0x0000000000067919 */
        /*0020*/                   LDS.128 R8, [R6] ;                                    /* 0x0000000006087984 */
        /*0030*/                   SHF.L.U32 R12, R8, 0x10, RZ ;                         /* 0x00000010080c7819 */
        /*0040*/                   LOP3.LUT R13, R8, 0xffff0000, RZ, 0xc0, !PT ;         /* 0xffff0000080d7812 */
        /*0050*/                   FFMA R20, R12, R13, R20 ;                             /* 0x0000000d0c147223 */
        /*0060*/                   FADD R21, R12, R21 ;                                  /* 0x000000150c157221 */
        /*0070*/                   ISETP.NE.AND P1, PT, R6, RZ, PT ;                     /* 0x000000ff0600720c */
        /*0080*/              @P1   BRA 0x60 ;                                            /* 0xfffffffc00cc1947 */
        /*0090*/                   VIADD R6, R6, 0x1 ;                                   /* 0x0000000106067836 */
        /*00a0*/                   ISETP.GE.AND P0, PT, R6, R7, PT ;                     /* 0x000000070600720c */
        /*00b0*/              @!P0  BRA 0x20 ;                                            /* 0xfffffff800588947 */
        /*00c0*/                   EXIT ;                                                /* 0x000000000000794d */
        /*00d0*/                   BRA 0xd0;                                             /* 0xfffffffc00fc7947 */
		..........

		Function : opk_straight
	.headerflags	@"EF_CUDA_64BIT_ADDRESS EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   MOV R1, c[0x0][0x28] ;                                /* 0x00000a0000017a02 */
        /*0010*/                   EXIT ;                                                /* 0x000000000000794d */
"""

RES = """
 Resource usage:
 Common:
  GLOBAL:0
 Function opk_straight:
  REG:8 STACK:0 SHARED:0 LOCAL:0 CONSTANT[0]:904 TEXTURE:0 SURFACE:0 SAMPLER:0
 Function opk_two_loops:
  REG:128 STACK:40 SHARED:2048 LOCAL:0 CONSTANT[2]:28 CONSTANT[0]:1216 TEXTURE:0 SURFACE:0 SAMPLER:0
"""


def test_each_function_s_instructions_are_parsed():
    kernels = sass_static.parse_sass(SASS)
    assert list(kernels) == ["opk_two_loops", "opk_straight"], list(kernels)
    assert len(kernels["opk_two_loops"]) == 14, kernels["opk_two_loops"]
    assert kernels["opk_two_loops"][8] == (0x80, "@P1   BRA 0x60")
    assert [t for _, t in kernels["opk_straight"]] == ["MOV R1, c[0x0][0x28]", "EXIT"]


def test_loops_are_backward_branches_largest_first_and_predicates_drop_from_opcodes():
    ins = sass_static.parse_sass(SASS)["opk_two_loops"]
    spans = sass_static.loops(ins)
    # the outer loop 0x20-0xb0, the inner 0x60-0x80, and the trailing self-branch at 0xd0
    assert [(ins[a][0], ins[b][0]) for a, b in spans] == [(0x20, 0xB0), (0x60, 0x80), (0xD0, 0xD0)], spans
    outer = sass_static.mix(ins, *spans[0])
    assert outer["BRA"] == 2 and outer["FFMA"] == 1 and outer["LDS.128"] == 1, outer
    assert outer["ISETP.GE.AND"] == 1 and "@!P0" not in outer, outer
    assert sum(outer.values()) == 10, outer


def test_resources_are_read_per_function():
    res = sass_static.parse_resources(RES)
    assert res["opk_two_loops"]["REG"] == 128 and res["opk_two_loops"]["STACK"] == 40, res
    assert res["opk_straight"]["REG"] == 8, res


def test_the_report_names_registers_loops_and_the_mix():
    lines = sass_static.report(sass_static.parse_sass(SASS), sass_static.parse_resources(RES), "two", 2, 3)
    assert lines[0] == "opk_two_loops: 14 instructions, 128 registers, 40 bytes stack, 0 local", lines
    assert lines[1] == "  loop 0x0020-0x00b0: 10 instructions", lines
    assert lines[3] == "  loop 0x0060-0x0080: 3 instructions", lines
    assert len(lines) == 5, lines
    assert sass_static.report(sass_static.parse_sass(SASS), {}, "no-such-kernel", 1, 3) == []


TWO_ARCHS = """
Fatbin elf code:
================
arch = sm_80

	code for sm_80
		Function : opk_spilly
        /*0000*/                   STL [R1+0x4], R2 ;                                    /* 0x0000040201007387 */
        /*0010*/                   LDL.LU R3, [R1+0x4] ;                                 /* 0x0000040001037983 */
        /*0020*/                   LDL.64 R4, [R1+0x8] ;                                 /* 0x0000080001047983 */
        /*0030*/              @P0   BRA 0x0 ;                                             /* 0xfffffffc00cc1947 */
        /*0040*/                   EXIT ;                                                /* 0x000000000000794d */

Fatbin elf code:
================
arch = sm_90

	code for sm_90
		Function : opk_spilly
        /*0000*/                   FADD R3, R2, R2 ;                                     /* 0x0000000202037221 */
        /*0010*/              @P0   BRA 0x0 ;                                             /* 0xfffffffc00cc1947 */
        /*0020*/                   EXIT ;                                                /* 0x000000000000794d */
"""

TWO_ARCHS_RES = """
Fatbin elf code:
================
arch = sm_80
Resource usage:
 Function opk_spilly:
  REG:16 STACK:16 SHARED:0 LOCAL:0 CONSTANT[0]:364 TEXTURE:0 SURFACE:0 SAMPLER:0

Fatbin elf code:
================
arch = sm_90
Resource usage:
 Function opk_spilly:
  REG:24 STACK:0 SHARED:0 LOCAL:0 CONSTANT[0]:364 TEXTURE:0 SURFACE:0 SAMPLER:0
"""


def test_a_fatbin_s_architectures_are_kept_apart_and_spills_counted():
    kernels = sass_static.parse_sass(TWO_ARCHS)
    assert list(kernels) == ["opk_spilly (sm_80)", "opk_spilly (sm_90)"], list(kernels)
    assert len(kernels["opk_spilly (sm_80)"]) == 5 and len(kernels["opk_spilly (sm_90)"]) == 3, kernels
    only = sass_static.parse_sass(TWO_ARCHS, "sm_90")
    assert list(only) == ["opk_spilly"] and len(only["opk_spilly"]) == 3, only
    res = sass_static.parse_resources(TWO_ARCHS_RES)
    assert res["opk_spilly (sm_80)"]["STACK"] == 16 and res["opk_spilly (sm_90)"]["REG"] == 24, res
    lines = sass_static.report(kernels, res, "", 1, 5)
    assert lines[0] == "opk_spilly (sm_80): 5 instructions, 16 registers, 16 bytes stack, 0 local", lines
    assert lines[3] == "    local memory (spills): 2 loads, 1 stores", lines
    assert lines[4].startswith("opk_spilly (sm_90): 3 instructions, 24 registers"), lines
    assert not any("local memory" in line for line in lines[4:]), lines


def toolchain_or_skip():
    """(nvcc, cuobjdump) for the end-to-end cases, or SKIP where either is missing."""
    nvcc = "/usr/local/cuda/bin/nvcc"
    tool = sass_static.find_cuobjdump()
    if not os.access(nvcc, os.X_OK) or not tool:
        skip("needs nvcc at /usr/local/cuda/bin and a cuobjdump (pip install nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm)")
    return nvcc, tool


def test_a_compiled_kernel_end_to_end():
    nvcc, tool = toolchain_or_skip()
    src = ('extern "C" __global__ void opk_probe(const float* x, float* y, int n) {\n'
           "    float s = 0.0f;\n"
           "    for (int i = threadIdx.x; i < n; i += blockDim.x) s = fmaf(x[i], x[i], s);\n"
           "    y[threadIdx.x] = s;\n}\n")
    with tempfile.TemporaryDirectory() as tmp:
        cu, cubin = os.path.join(tmp, "probe.cu"), os.path.join(tmp, "probe.cubin")
        with open(cu, "w") as f:
            f.write(src)
        subprocess.run([nvcc, "-cubin", "-O3", "-arch=sm_90", "-o", cubin, cu], check=True, capture_output=True)
        out = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "sass_static.py"), cubin,
                              "--kernel", "opk_probe", "--top", "40"],
                             capture_output=True, text=True, env=dict(os.environ, CUOBJDUMP=tool))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("opk_probe: ") and " registers" in lines[0], lines
    assert lines[1].startswith("  loop "), lines
    assert "FFMA" in lines[2] and "LDG" in lines[2], lines


def test_a_two_architecture_fatbin_end_to_end():
    nvcc, tool = toolchain_or_skip()
    src = 'extern "C" __global__ void opk_probe2(float* x, int n) { for (int i = threadIdx.x; i < n; i += 32) x[i] += 1.0f; }\n'
    with tempfile.TemporaryDirectory() as tmp:
        cu, fatbin = os.path.join(tmp, "probe2.cu"), os.path.join(tmp, "probe2.fatbin")
        with open(cu, "w") as f:
            f.write(src)
        subprocess.run([nvcc, "-fatbin", "-O3", "-gencode", "arch=compute_80,code=sm_80", "-gencode",
                        "arch=compute_90,code=sm_90", "-o", fatbin, cu], check=True, capture_output=True)
        script = os.path.join(ROOT, "bench", "sass_static.py")
        env = dict(os.environ, CUOBJDUMP=tool)
        both = subprocess.run([sys.executable, script, fatbin], capture_output=True, text=True, env=env)
        one = subprocess.run([sys.executable, script, fatbin, "--arch", "sm_90"], capture_output=True, text=True, env=env)
    assert both.returncode == 0 and one.returncode == 0, both.stderr + one.stderr
    heads = [line for line in both.stdout.splitlines() if not line.startswith(" ")]
    assert [h.split(":")[0] for h in heads] == ["opk_probe2 (sm_80)", "opk_probe2 (sm_90)"], heads
    assert all(" registers" in h for h in heads), heads
    assert one.stdout.splitlines()[0].startswith("opk_probe2: "), one.stdout


if __name__ == "__main__":
    sys.exit(run(dict(globals())))
