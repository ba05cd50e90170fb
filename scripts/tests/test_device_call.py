"""Tests of bench/device_call.sh, the device-call scripts' shared preamble, run here with
bash and no GPU: t records each command's output, exit status and seconds; pack archives
the results under $OUT without the compiler caches; a carried build-var/check.tar.xz
replaces build-check; dc_variants unpacks the variant vendors; dc_compare and
dc_cpu_compare run the peer and CPU comparisons, dc_breakdown the kernel breakdown; dc_ab passes the variant (or none for
base) to gpu_compare.py; dc_tests and dc_cuda_tests run the test binaries with it;
dc_ncu_gaps profiles and tabulates, dc_ncu_source profiles one kernel family
through a variant and exports its SASS lines; dc_check runs the split check with its part limit;
dc_ab_won gates a candidate's check on its A/B table.

Run:  python3 -m pytest -q scripts/tests          (or: python3 scripts/tests/test_device_call.py)
"""
import gzip
import os
import subprocess
import sys
import tarfile
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from plain_runner import run  # noqa: E402


def call(script, cwd, out):
    """Runs a device-call script body after sourcing the helper from `cwd`."""
    helper = os.path.join(ROOT, "bench", "device_call.sh")
    proc = subprocess.run(["bash", "-c", f". {helper} rT\n{script}"], cwd=cwd, env=dict(os.environ, OUT=out),
                          capture_output=True, text=True, timeout=60)
    return proc


def archive(out):
    """{name: text (bytes for a .gz file; None for a directory)} of the packed archive."""
    def content(tar, m):
        if not m.isfile():
            return None
        data = tar.extractfile(m).read()
        return data if m.name.endswith(".gz") else data.decode()

    with tarfile.open(os.path.join(out, "rT.tgz")) as tar:
        return {m.name.lstrip("./"): content(tar, m) for m in tar.getmembers() if m.name not in (".", "./")}


def test_t_records_output_status_and_time_and_pack_archives_them():
    with tempfile.TemporaryDirectory() as work, tempfile.TemporaryDirectory() as out:
        proc = call("t ok true\nt bad false\nt said echo hello\nmkdir -p $R/triton/x\npack", work, out)
        assert proc.returncode == 0, proc.stderr
        files = archive(out)
        times = files["times.txt"].splitlines()
        assert times[0].startswith("ok rc 0 ") and times[0].endswith(" s"), times
        assert times[1].startswith("bad rc 1 "), times
        assert times[2].startswith("said rc 0 "), times
        assert files["said.txt"] == "hello\n"
        assert not any(n.startswith("triton") or n.startswith("inductor") for n in files), sorted(files)
        assert proc.stdout.splitlines() == times  # t also prints each line


def stand_in_file(work, rel, text, executable=False):
    """`text` written as `rel` under `work` (a stand-in for a repository script)."""
    path = os.path.join(work, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    if executable:
        os.chmod(path, 0o755)


def stand_in_ncu(work, body):
    """A directory under `work` (to put first on PATH) holding an `ncu` shell script that
    runs `body`."""
    fake = os.path.join(work, "fakebin")
    os.makedirs(fake)
    with open(os.path.join(fake, "ncu"), "w") as f:
        f.write(f"#!/bin/sh\n{body}\n")
    os.chmod(os.path.join(fake, "ncu"), 0o755)
    return fake


def stand_in_gpu_compare(work, written):
    """bench/gpu_compare.py under `work`: writes the Python expression `written` (over its
    arguments before --out, `a`) where --out says."""
    os.makedirs(os.path.join(work, "bench"), exist_ok=True)
    with open(os.path.join(work, "bench", "gpu_compare.py"), "w") as f:
        f.write("import os, sys\na = sys.argv[1:]\nb = a[:a.index('--out')]\n"
                f"open(a[a.index('--out') + 1], 'w').write({written})\n")


def test_dc_compare_and_dc_cpu_compare_run_against_the_peers_and_pack():
    with tempfile.TemporaryDirectory() as work, tempfile.TemporaryDirectory() as out:
        stand_in_gpu_compare(work, "' '.join([os.environ['PYTHONPATH'], os.environ['OPKIT_LIBRARY'], "
                                   "os.environ['TRITON_CACHE_DIR'], os.environ['TORCHINDUCTOR_CACHE_DIR']] + b)")
        with open(os.path.join(work, "bench", "cpu_compare.py"), "w") as f:
            f.write("import os, sys\na = sys.argv[1:]\nb = a[:a.index('--out')]\n"
                    "open(a[a.index('--out') + 1], 'w').write(' '.join([os.environ['OPKIT_VENDORS_DISABLE'], "
                    "os.environ['OPKIT_LIBRARY'], os.environ['PYTHONPATH']] + b))\n")
        proc = call("dc_compare cmp --dtypes bf16\ndc_cpu_compare cc16 --ops embedding --threads 16 --rounds 11\n"
                    "echo $R > $OUT/r.txt", work, out)
        assert proc.returncode == 0, proc.stderr
        files = archive(out)  # each packed at once: both already in the archive
        lib = os.path.join(work, "build-check", "lib", "libopkit.so.1")
        with open(os.path.join(out, "r.txt")) as f:
            r = f.read().strip()
        assert files["cmp.json"] == f"/tmp/site:{work}/python {lib} {r}/triton {r}/inductor --dtypes bf16", \
            files["cmp.json"]
        assert files["cc16.json"] == f"cuda,rocm {lib} {work}/python --ops embedding --threads 16 --rounds 11", \
            files["cc16.json"]
        assert [l.split(" rc ")[0] for l in files["times.txt"].splitlines()] == ["cmp", "cc16"]


def test_dc_breakdown_runs_kernel_breakdown_behind_the_spin_against_the_peers():
    with tempfile.TemporaryDirectory() as work, tempfile.TemporaryDirectory() as out:
        stand_in_file(work, "bench/kernel_breakdown.py",
                      "import os, sys\nprint(' '.join([os.environ['PYTHONPATH'], os.environ['OPKIT_LIBRARY'], "
                      "os.environ['TRITON_CACHE_DIR']] + sys.argv[1:]))\n")
        proc = call("dc_breakdown kb-rms --ops rms_norm_forward --dtypes f32\necho $R > $OUT/r.txt", work, out)
        assert proc.returncode == 0, proc.stderr
        files = archive(out)
        lib = os.path.join(work, "build-check", "lib", "libopkit.so.1")
        with open(os.path.join(out, "r.txt")) as f:
            r = f.read().strip()
        assert files["kb-rms.txt"] == (f"/tmp/site:{work}/python {lib} {r}/triton --impls opkit,compile,liger "
                                       "--behind-spin --ops rms_norm_forward --dtypes f32\n"), files["kb-rms.txt"]
        assert files["times.txt"].startswith("kb-rms rc 0 "), files["times.txt"]


def test_dc_ab_passes_the_variant_vendor_and_base_passes_none():
    with tempfile.TemporaryDirectory() as work, tempfile.TemporaryDirectory() as out:
        stand_in_gpu_compare(work, "os.environ['OPKIT_VENDOR_PATH'] + ' ' + ' '.join(b) + ' ' + "
                                   "os.environ['OPKIT_LIBRARY']")
        os.makedirs(os.path.join(work, "build-var", "vX"))
        open(os.path.join(work, "build-var", "vX", "libopkit_vendor_cuda.so"), "w").close()
        subprocess.run(["tar", "cJf", "var.tar.xz", "vX"], cwd=os.path.join(work, "build-var"), check=True)
        proc = call("dc_variants\ndc_ab a-1 base norm_forward bf16\ndc_ab b-1 X softmax_forward f32,bf16\npack",
                    work, out)
        assert proc.returncode == 0, proc.stderr
        assert os.path.exists(os.path.join(work, "var", "vX", "libopkit_vendor_cuda.so"))
        files = archive(out)
        lib = os.path.join(work, "build-check", "lib", "libopkit.so.1")
        assert files["a-1.json"] == f" --impls opkit --ops norm_forward --dtypes bf16 {lib}", files["a-1.json"]
        vendor = os.path.join(work, "var", "vX", "libopkit_vendor_cuda.so")
        assert files["b-1.json"] == f"{vendor} --impls opkit --ops softmax_forward --dtypes f32,bf16 {lib}"
        assert [l.split(" rc ")[0] for l in files["times.txt"].splitlines()] == ["a-1", "b-1"]
        assert all(" rc 0 " in l for l in files["times.txt"].splitlines()), files["times.txt"]


def test_a_carried_check_archive_replaces_the_build_check_an_earlier_call_left():
    with tempfile.TemporaryDirectory() as work, tempfile.TemporaryDirectory() as out:
        packed = os.path.join(work, "packed")
        os.makedirs(os.path.join(packed, "lib"))
        with open(os.path.join(packed, "lib", "libopkit.so.1"), "w") as f:
            f.write("this call's")
        os.makedirs(os.path.join(work, "build-var"))
        subprocess.run(["tar", "cJf", os.path.join(work, "build-var", "check.tar.xz"), "-C", packed, "."],
                       check=True)
        stale = os.path.join(work, "build-check", "lib")
        os.makedirs(stale)
        for name in ("libopkit.so.1", "left-over"):
            with open(os.path.join(stale, name), "w") as f:
                f.write("an earlier call's")
        proc = call('cat "$DC_LIB"', work, out)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout == "this call's"
        assert os.listdir(stale) == ["libopkit.so.1"]
        # Without the archive (build-check carried as it is), build-check is left alone.
        os.remove(os.path.join(work, "build-var", "check.tar.xz"))
        with open(os.path.join(stale, "libopkit.so.1"), "w") as f:
            f.write("carried")
        assert call('cat "$DC_LIB"', work, out).stdout == "carried"


def test_dc_check_runs_the_split_check_with_the_part_limit_and_packs_its_logs():
    with tempfile.TemporaryDirectory() as work, tempfile.TemporaryDirectory() as out:
        stand_in_file(work, "scripts/gpu-check-split.sh",
                      '#!/bin/sh\nmkdir -p "$OUT"\necho "$1 $OPKIT_GPU_CHECK_PART_TIMEOUT" > "$OUT/part-a.txt"\n'
                      'echo "== part a: ok"\necho "   detail"\necho "== part b: TIMED OUT after 9 s"\nexit 1\n',
                      executable=True)
        proc = call("dc_check 9", work, out)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.splitlines()[-2:] == ["== part a: ok", "== part b: TIMED OUT after 9 s"], proc.stdout
        files = archive(out)
        assert files["check/part-a.txt"] == "build-check 9\n"
        assert files["times.txt"].startswith("check-split rc 1 ")
        proc = call("dc_check", work, out)
        assert archive(out)["check/part-a.txt"] == "build-check 540\n"


def test_dc_ab_won_reads_the_ratio_of_the_op_at_the_shape():
    with tempfile.TemporaryDirectory() as work, tempfile.TemporaryDirectory() as out:
        table = ("rms_norm_forward  8192x8192   f32  a-base 0.1 / 0.1  a-vold 0.1 / 0.1  1.002\n"
                 "rms_norm_forward  4096x16384  f32  a-base 0.1 / 0.1  a-vold 0.2 / 0.2  1.015\n")
        script = (f"printf '{table}' > $R/ab-a.txt\n"
                  "dc_ab_won a rms_norm_forward 4096x16384 && echo won1\n"
                  "dc_ab_won a rms_norm_forward 8192x8192 || echo lost2\n"
                  "dc_ab_won a rms_norm_forward 8192x8192 1.001 && echo won3\n"
                  "dc_ab_won a softmax_forward 8192x8192 || echo missing4\n")
        proc = call(script, work, out)
        assert proc.returncode == 0, proc.stderr
        lines = proc.stdout.splitlines()
        assert [l for l in lines if not l.startswith("ab-a:")] == ["won1", "lost2", "won3", "missing4"], lines
        assert "ab-a: softmax_forward 8192x8192 variant / candidate missing" in lines


def test_dc_ab_rounds_alternates_base_and_the_variant_and_tabulates_them():
    with tempfile.TemporaryDirectory() as work, tempfile.TemporaryDirectory() as out:
        stand_in_gpu_compare(work, "os.environ['OPKIT_VENDOR_PATH']")
        with open(os.path.join(work, "bench", "ab_table.py"), "w") as f:
            f.write("import sys\nprint(' '.join(sys.argv[2:]))\n")
        proc = call("dc_ab_rounds ce Z cross_entropy bf16 2", work, out)
        assert proc.returncode == 0, proc.stderr
        files = archive(out)
        assert [l.split(" rc ")[0] for l in files["times.txt"].splitlines()] == \
            ["ce-base-1", "ce-vZ-1", "ce-base-2", "ce-vZ-2"], files["times.txt"]
        assert files["ce-base-2.json"] == "" and files["ce-vZ-1.json"].endswith("/var/vZ/libopkit_vendor_cuda.so")
        assert files["ab-ce.txt"] == "ce-base ce-vZ\n", files["ab-ce.txt"]


def test_dc_tests_runs_cuda_and_rocm_tests_then_conformance_with_the_variant():
    with tempfile.TemporaryDirectory() as work, tempfile.TemporaryDirectory() as out:
        # Stand-in binaries that say what they were given and which rocm vendor lies beside them.
        bin_dir = os.path.join(work, "build-check", "bin")
        vendors = os.path.join(work, "build-check", "lib", "opkit", "vendors")
        os.makedirs(bin_dir)
        os.makedirs(vendors)
        with open(os.path.join(vendors, "libopkit_vendor_rocm.so"), "w") as f:
            f.write("old")
        for name in ("opkit_cuda_tests", "opkit_rocm_tests", "opkit-conformance"):
            path = os.path.join(bin_dir, name)
            with open(path, "w") as f:
                f.write("#!/bin/sh\necho \"$(basename $0) [$OPKIT_VENDOR_PATH] [${LD_LIBRARY_PATH%%:*}] $* "
                        "$(cat " + vendors + "/libopkit_vendor_rocm.so)\"\n")
            os.chmod(path, 0o755)
        for content, name in (("new", "libopkit_vendor_rocm.so"), ("", "libopkit_vendor_cuda.so")):
            os.makedirs(os.path.join(work, "var", "vY"), exist_ok=True)
            with open(os.path.join(work, "var", "vY", name), "w") as f:
                f.write(content)
        proc = call("dc_tests base 'ops: softmax*'\ndc_tests y 'ops: cross_entropy*' Y\n"
                    "dc_tests again 'ops: softmax*'\ndc_tests none x Q || echo refused\npack", work, out)
        assert proc.returncode == 0, proc.stderr
        files = archive(out)
        hip = os.path.join(work, "build-check", "tests", "hip_on_cuda", "hip")
        cuda_vendor = os.path.join(work, "var", "vY", "libopkit_vendor_cuda.so")
        assert files["base-tests.txt"] == "opkit_cuda_tests [] [] ops: softmax* old\n", files["base-tests.txt"]
        assert files["base-tests-rocm.txt"] == f"opkit_rocm_tests [] [{hip}] ops: softmax* old\n"
        assert files["base-conformance.txt"] == "opkit-conformance [] [] --vendor cuda old\n"
        assert files["base-conformance-rocm.txt"] == f"opkit-conformance [] [{hip}] --vendor rocm old\n"
        assert files["y-tests.txt"] == f"opkit_cuda_tests [{cuda_vendor}] [] ops: cross_entropy* new\n"
        assert files["y-tests-rocm.txt"] == f"opkit_rocm_tests [] [{hip}] ops: cross_entropy* new\n"
        # build-check's own rocm vendor is back for a call without a variant
        assert files["again-tests-rocm.txt"] == f"opkit_rocm_tests [] [{hip}] ops: softmax* old\n"
        # a variant that is not there runs nothing
        assert proc.stdout.splitlines()[-1] == "refused", proc.stdout
        assert "no " + os.path.join(work, "var", "vQ", "libopkit_vendor_cuda.so") in proc.stderr, proc.stderr
        names = sorted(l.split(" rc ")[0] for l in files["times.txt"].splitlines())
        assert names == sorted(f"{n}-{s}" for n in ("base", "y", "again")
                               for s in ("tests", "tests-rocm", "conformance", "conformance-rocm")), names


def test_dc_cuda_tests_runs_the_cuda_tests_alone_with_the_variant():
    with tempfile.TemporaryDirectory() as work, tempfile.TemporaryDirectory() as out:
        bin_dir = os.path.join(work, "build-check", "bin")
        os.makedirs(bin_dir)
        path = os.path.join(bin_dir, "opkit_cuda_tests")
        with open(path, "w") as f:
            f.write("#!/bin/sh\necho \"$(basename $0) [$OPKIT_VENDOR_PATH] $*\"\n")
        os.chmod(path, 0o755)
        os.makedirs(os.path.join(work, "var", "vY"))
        open(os.path.join(work, "var", "vY", "libopkit_vendor_cuda.so"), "w").close()
        proc = call("dc_cuda_tests base 'ops: norm*'\ndc_cuda_tests y 'ops: norm*' Y\n"
                    "dc_cuda_tests none x Q || echo refused\npack", work, out)
        assert proc.returncode == 0, proc.stderr
        files = archive(out)
        cuda_vendor = os.path.join(work, "var", "vY", "libopkit_vendor_cuda.so")
        assert files["base.txt"] == "opkit_cuda_tests [] ops: norm*\n", files["base.txt"]
        assert files["y.txt"] == f"opkit_cuda_tests [{cuda_vendor}] ops: norm*\n", files["y.txt"]
        assert "none.txt" not in files and not any(n.endswith("-rocm.txt") for n in files), sorted(files)
        assert proc.stdout.splitlines()[-1] == "refused", proc.stdout
        assert "no " + os.path.join(work, "var", "vQ", "libopkit_vendor_cuda.so") in proc.stderr, proc.stderr
        assert sorted(l.split(" rc ")[0] for l in files["times.txt"].splitlines()) == ["base", "y"]


def test_dc_ncu_bytes_asks_ncu_for_the_byte_counters_of_the_kernels_named_with_the_variant():
    with tempfile.TemporaryDirectory() as work, tempfile.TemporaryDirectory() as out:
        # A stand-in ncu first on PATH that says what it was given and which vendor it had.
        fake = stand_in_ncu(work, 'echo "[$OPKIT_VENDOR_PATH] $*"')
        proc = call(f"export PATH={fake}:$PATH\ndc_ncu_bytes nb-base base _bwd_stash_ norms bf16\n"
                    "dc_ncu_bytes nb-vW W ce_fwd_stash ce f32\npack", work, out)
        assert proc.returncode == 0, proc.stderr
        files = archive(out)
        metrics = ("l1tex__m_xbar2l1tex_read_bytes.sum,lts__t_sectors_srcunit_tex_op_read.sum,"
                   "lts__t_sector_hit_rate.pct,dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum")
        tail = "python3 bench/ncu_ops.py --ops"
        assert files["nb-base.txt"] == (f"[] --clock-control none --metrics {metrics} -k regex:_bwd_stash_ "
                                        f"{tail} norms --dtype bf16\n"), files["nb-base.txt"]
        vendor = os.path.join(work, "var", "vW", "libopkit_vendor_cuda.so")
        assert files["nb-vW.txt"] == (f"[{vendor}] --clock-control none --metrics {metrics} -k regex:ce_fwd_stash "
                                      f"{tail} ce --dtype f32\n"), files["nb-vW.txt"]
        assert [l.split(" rc ")[0] for l in files["times.txt"].splitlines()] == ["nb-base", "nb-vW"]


def test_dc_ncu_gaps_profiles_the_cases_then_tabulates_the_details_and_gzips_them():
    with tempfile.TemporaryDirectory() as work, tempfile.TemporaryDirectory() as out:
        # A stand-in ncu that says what it was given (and, importing, which report), and a
        # stand-in stall table that says which file it read.
        fake = stand_in_ncu(work, 'echo "ncu $*"')
        os.makedirs(os.path.join(work, "bench"))
        with open(os.path.join(work, "bench", "ncu_stall_table.py"), "w") as f:
            f.write("import sys\nprint('table of', open(sys.argv[1]).read().strip())\n")
        proc = call(f"export PATH={fake}:$PATH\ndc_ncu_gaps gaps rope_f32,embedding_bf16", work, out)
        assert proc.returncode == 0, proc.stderr
        files = archive(out)
        assert files["gaps.txt"] == ("ncu --profile-from-start off --clock-control none --set full --export "
                                     "/tmp/gaps python3 bench/placement_probe.py --profile --ops "
                                     "rope_f32,embedding_bf16\n"), files["gaps.txt"]
        assert "gaps-details.txt" not in files, sorted(files)
        details = "ncu --import /tmp/gaps.ncu-rep --page details --print-details all"
        assert gzip.decompress(files["gaps-details.txt.gz"]).decode() == details + "\n"
        assert files["gaps-stalls.txt"] == f"table of {details}\n", files["gaps-stalls.txt"]
        assert [l.split(" rc ")[0] for l in files["times.txt"].splitlines()] == ["gaps", "gaps-details", "gaps-stalls"]


def test_dc_ncu_source_profiles_through_the_variant_then_exports_details_and_gzipped_sass():
    with tempfile.TemporaryDirectory() as work, tempfile.TemporaryDirectory() as out:
        # A stand-in ncu that says what it was given and which vendor the call would load.
        fake = stand_in_ncu(work, 'echo "ncu $* vendor=${OPKIT_VENDOR_PATH:-none}"')
        proc = call(f"export PATH={fake}:$PATH\n"
                    "dc_ncu_source prof base opk_rms_bwd_stash --ops norms --row-shapes 8192x8192\n"
                    "dc_ncu_source prof noagg opk_rms_bwd_stash --ops norms", work, out)
        assert proc.returncode == 0, proc.stderr
        files = archive(out)
        sections = ("--section SpeedOfLight --section WarpStateStats --section SchedulerStats "
                    "--section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats "
                    "--section SourceCounters")
        assert files["prof-base.txt"] == (
            f"ncu --clock-control none -k regex:opk_rms_bwd_stash -c 1 {sections} -o /tmp/prof-base "
            "python3 bench/ncu_ops.py --ops norms --row-shapes 8192x8192 vendor=none\n"), files["prof-base.txt"]
        vendor = os.path.join(work, "var", "vnoagg", "libopkit_vendor_cuda.so")
        assert files["prof-noagg.txt"].endswith(f"--ops norms vendor={vendor}\n"), files["prof-noagg.txt"]
        assert files["prof-noagg-details.txt"].startswith("ncu -i /tmp/prof-noagg.ncu-rep --page details")
        source = gzip.decompress(files["prof-base-source.txt.gz"]).decode()
        assert source.startswith("ncu -i /tmp/prof-base.ncu-rep --page source --csv --print-source sass"), source
        assert "prof-base-source.txt" not in files, sorted(files)
        assert [l.split(" rc ")[0] for l in files["times.txt"].splitlines()] == [
            "prof-base", "prof-base-details", "prof-base-source", "prof-noagg", "prof-noagg-details",
            "prof-noagg-source"]


if __name__ == "__main__":
    sys.exit(run(dict(globals())))
