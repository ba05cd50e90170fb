#!/usr/bin/env bash
# Runs every GPU check from a build directory carried to a GPU machine (no cmake, no
# ctest there: ctest files hold this machine's absolute paths); with a
# -DOPKIT_ROCM_TEST_ON_CUDA=ON build, the rocm vendor's too, through tests/hip_on_cuda. Logs go to $OUT (or
# ./gpu-results). Usage: scripts/gpu-check.sh [build-dir]   (default: build)
# Carry at least <build>/bin, <build>/lib and <build>/tests/fake_vendor (the API tests and
# the float64 check load the test vendors from it), and <build>/tests/hip_on_cuda for the
# rocm part; a step whose files were not carried says SKIPPED and why.
# OPKIT_GPU_CHECK_ONLY: an extended regular expression; only the steps whose names match
# it run (the others say SKIPPED), so that two runs with disjoint sets and their own OUT
# can share one machine at once (the cuda and the rocm steps take minutes each).
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=${OUT:-gpu-results}
mkdir -p "$out"
status=0
only=${OPKIT_GPU_CHECK_ONLY:-}
if [ -n "$only" ]; then  # [[ =~ ]] gives 2 for a bad expression: it must not read as "no match"
  rc=0
  [[ "" =~ $only ]] || rc=$?
  if [ $rc -eq 2 ]; then echo "gpu-check: OPKIT_GPU_CHECK_ONLY is not a valid expression: $only" >&2; exit 2; fi
fi
matched=0  # steps OPKIT_GPU_CHECK_ONLY selected, run or skipped for want of what they need
# left_out NAME: true (and says so) for a step OPKIT_GPU_CHECK_ONLY does not select;
# otherwise counts it as matched.
left_out() {
  if [ -n "$only" ] && ! [[ $1 =~ $only ]]; then
    echo "== $1: SKIPPED (not in OPKIT_GPU_CHECK_ONLY)"
    return 0
  fi
  matched=$((matched + 1))
  return 1
}
step() {  # step NAME COMMAND...: runs, logs to $out/NAME.log, remembers a failure
  local name=$1
  shift
  left_out "$name" && return 0
  echo "== $name: $*"
  local rc=0 t0=$SECONDS
  "$@" >"$out/$name.log" 2>&1 || rc=$?
  local took="$((SECONDS - t0)) s"  # so the steps can be split across runs by their times
  if [ $rc -eq 0 ]; then echo "   ok ($took)"
  elif [ $rc -eq 77 ]; then echo "   ok, with skipped cases (rc 77: the log names them; $took)"
  else echo "   FAILED (rc $rc, $took)"; status=1; fi
  tail -n 25 "$out/$name.log"
}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"
export OPKIT_LOG_LEVEL=error
step opkit-info "$build/bin/opkit-info"
step cuda-tests "$build/bin/opkit_cuda_tests"
skipped() {  # skipped NAME WHY: a step that cannot run here
  left_out "$1" && return 0
  echo "== $1: SKIPPED ($2)"
}
if [ -f "$build/tests/fake_vendor/decliner/libopkit_vendor_decliner.so" ]; then
  step api-tests "$build/bin/opkit_api_tests"
else
  skipped api-tests "no $build/tests/fake_vendor here: carry it; the tests load its vendors"
fi
step conformance "$build/bin/opkit-conformance" --vendor cuda
# The kernels the stash kernels replace on sm_90+ (docs/cuda-vendor.md), on this device:
# the norm and cross-entropy cases again with OPKIT_CUDA_CLUSTER_KERNELS=0.
step cuda-tests-no-clusters env OPKIT_CUDA_CLUSTER_KERNELS=0 "$build/bin/opkit_cuda_tests" \
  "ops: rms_norm*,ops: layer_norm*,ops: norm backwards*,ops: cross_entropy*"
# Their results match, so only a profiler tells which kernel ran: every stash kernel must
# show up in Nsight Compute's summary of the three stash test cases (on a device with
# cluster launch; the check says what is missing). Only the first launch of each kernel is
# profiled (--kernel-id's invocation 1): profiling every launch of these cases took more
# than two minutes.
# The stash kernels exist on compute capability 9.0 and later only.
cc_major=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | cut -d. -f1)
sm90=0
[ "${cc_major:-0}" -ge 9 ] 2>/dev/null && sm90=1
if command -v ncu >/dev/null && [ $sm90 = 1 ]; then
  stash_ran() {
    ncu --print-summary per-kernel --metrics gpu__time_duration.sum --kernel-id ::regex:_stash_:1 "$build/bin/opkit_cuda_tests" \
      "ops: norm backwards through the stash kernels*,ops: cross_entropy forward with dlogits through the stash kernels*" \
      > "$out/stash-kernels-ncu.log" 2>&1 || return 1
    python3 scripts/check-stash-kernels-ran.py "$out/stash-kernels-ncu.log"
  }
  step stash-kernels-ran stash_ran
else
  skipped stash-kernels-ran "needs ncu and a device of compute capability 9.0 or later"
fi
# compute-sanitizer over the norm stash kernels, on the norm backwards' stash test case:
# memcheck instruments every stash kernel (opk_*_bwd_stash_*: their rings are filled by
# cp.async), racecheck the kernels on clusters of two blocks (*_k2*: the fp32 rows split
# over two blocks, opk_*_bwd_stash_f32_k2*, and layer_norm's 2-byte pairs,
# opk_ln_bwd_stash_{f16,bf16}_s<i>_k2*, whose blocks exchange sums through distributed
# shared memory). Only the named kernels are instrumented; the rest of the case runs
# natively. racecheck cannot run a kernel that touches distributed shared memory without
# instrumenting it ("The Sanitizer failed to handle a hardware exception" at its first
# launch, shown on an H200 with the fp32 _k2 kernels left out of the filter: docs/gpu-runs.md,
# 2026-11-30), so every such kernel's name carries _k<cluster> (kernel_params.h; checked
# on the build machine by scripts/check-cluster-kernel-names.py, a ctest case). The case
# launches no kernel of a larger cluster (_k4, _k8: cross-entropy's), so _k2 names them all.
# Where they do not exist (before sm_90) nothing would be instrumented: the steps say so.
# bulk-racecheck: racecheck over the stash kernel whose ring the Tensor Memory Accelerator
# fills (opk_rms_bwd_stash_f32_s2_exact: mbarriers, cp.async.bulk) on its own test case,
# which launches no cluster kernel; memcheck covers it in the stash case.
stash_case="ops: norm backwards through the stash kernels*"
if command -v compute-sanitizer >/dev/null && [ $sm90 = 1 ]; then
  step stash-memcheck compute-sanitizer --tool memcheck --error-exitcode 1 --kernel-name kns=_bwd_stash_ \
    "$build/bin/opkit_cuda_tests" "$stash_case"
  step stash-racecheck compute-sanitizer --tool racecheck --error-exitcode 1 --kernel-name kns=_k2 \
    "$build/bin/opkit_cuda_tests" "$stash_case"
  step bulk-racecheck compute-sanitizer --tool racecheck --error-exitcode 1 --kernel-name kns=_stash_f32_s2_exact \
    "$build/bin/opkit_cuda_tests" "ops: rms_norm backward through the bulk-ring stash kernel"
else
  for name in stash-memcheck stash-racecheck bulk-racecheck; do
    skipped $name "needs compute-sanitizer and a device of compute capability 9.0 or later"
  done
fi
step pytest env OPKIT_LIBRARY="$PWD/$build/lib/libopkit.so.1" python3 -m pytest -q -rfs -p no:cacheprovider python/tests
# The CPU defaults on this machine's CPU: GPU machines have AVX-512, which the CI machine
# lacks, so this is where the x86-64-v4 clones of core/cpu run their tests (the unit tests,
# and every op against the float64 "exact" test vendor).
[ -x "$build/bin/opkit_unit_tests" ] && step cpu-unit-tests "$build/bin/opkit_unit_tests"
exact=$build/tests/fake_vendor/exact/libopkit_vendor_exact.so
if [ -f "$exact" ]; then
  step cpu-defaults-vs-float64 env OPKIT_VENDORS_DISABLE=cuda,rocm "$build/bin/opkit-conformance" "$exact"
else
  skipped cpu-defaults-vs-float64 "no $exact here: carry $build/tests/fake_vendor"
fi
# The whole ctest suite too, where the build tree sits at the path it was built at (ctest
# files hold absolute paths); pytest then runs with this machine's python3.
if command -v ctest >/dev/null && [ -f "$build/CTestTestfile.cmake" ] &&
   grep -q "$PWD/$build" "$build/CTestTestfile.cmake" 2>/dev/null; then
  step ctest env OPKIT_TEST_PYTHON="$(command -v python3)" ctest --test-dir "$build" -j8 --output-on-failure
fi
if [ -x "$build/bin/tiny_lm" ]; then
  step tiny_lm-gpu "$build/bin/tiny_lm" --device cuda --text examples/tiny_lm/corpus.txt
  step tiny_lm-cpu "$build/bin/tiny_lm" --device cpu --text examples/tiny_lm/corpus.txt
fi
# The rocm vendor through the HIP-over-CUDA test runtime, in a build made with
# -DOPKIT_ROCM_TEST_ON_CUDA=ON (docs/rocm-vendor.md, proof 3).
shim=$build/tests/hip_on_cuda
# Such a build leaves lib/opkit/rocm-vendor-has-cuda-images (vendors/rocm/CMakeLists.txt):
# CMakeCache.txt is not among the carried paths, and the shim is built in any build that
# finds the HIP and CUDA headers.
if [ -x "$shim/opkit_hipshim_selftest" ] && [ -x "$build/bin/opkit_rocm_tests" ] &&
   { [ -f "$build/lib/opkit/rocm-vendor-has-cuda-images" ] ||
     grep -q "OPKIT_ROCM_TEST_ON_CUDA:BOOL=ON" "$build/CMakeCache.txt" 2>/dev/null; }; then
  hip="$PWD/$shim/hip:$PWD/$shim/hipblaslt:$PWD/$shim/rocblas"
  step hipshim-selftest "$shim/opkit_hipshim_selftest"
  step rocm-tests env LD_LIBRARY_PATH="$hip" "$build/bin/opkit_rocm_tests"
  step rocm-conformance env LD_LIBRARY_PATH="$hip" "$build/bin/opkit-conformance" --vendor rocm
  step rocm-rocblas-matmul env LD_LIBRARY_PATH="$PWD/$shim/hip:$PWD/$shim/rocblas" "$build/bin/opkit_rocm_tests" "[matmul]"
  step tiny_lm-rocm env LD_LIBRARY_PATH="$hip" "$build/bin/tiny_lm" --device rocm --text examples/tiny_lm/corpus.txt
else
  for name in hipshim-selftest rocm-tests rocm-conformance rocm-rocblas-matmul tiny_lm-rocm; do
    skipped $name "needs a -DOPKIT_ROCM_TEST_ON_CUDA=ON build with $shim and $build/bin/opkit_rocm_tests carried"
  done
fi
# An expression that selects no step at all is a mistake (a typo would otherwise pass);
# steps it selects that cannot run here say SKIPPED and why, as without it.
if [ -n "$only" ] && [ $matched -eq 0 ]; then
  echo "gpu-check: OPKIT_GPU_CHECK_ONLY matched no step: $only" >&2
  status=1
fi
# OPKIT_PACK_RESULTS=1: the logs as one archive, $out/results.tgz (the GPU machines' run tool
# brings back at most 8 files a call: docs/gpu-runs.md).
if [ "${OPKIT_PACK_RESULTS:-0}" = 1 ]; then
  pack=$(mktemp) && tar czf "$pack" -C "$out" . && find "$out" -mindepth 1 -delete && mv "$pack" "$out/results.tgz"
fi
exit $status
