#!/usr/bin/env bash
# Runs scripts/gpu-check.sh as seven runs side by side on one GPU machine, so that the whole
# check fits one call of the device tool (at most 600 s): alone it takes about 15 minutes
# (cuda-tests and rocm-tests about 4-5 minutes each). The parts hold the long steps apart
# (docs/gpu-runs.md lists each step's time; rocm-tests alone took 427-443 s on the H200, so
# the rocm conformance and examples run beside it, not after); every step of gpu-check.sh is in exactly one
# part (scripts/tests/test_gpu_check_split.py checks that against gpu-check.sh's steps).
# Logs: $OUT/part-<name>/ (OUT defaults to ./gpu-results) and $OUT/part-<name>.txt; with
# OPKIT_PACK_RESULTS=1 all of them as one archive, $OUT/results.tgz. Exits 1 if any part
# failed or timed out (OPKIT_GPU_CHECK_PART_TIMEOUT seconds a part, default 560).
# Usage: scripts/gpu-check-split.sh [build-dir]
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=${OUT:-gpu-results}
limit=${OPKIT_GPU_CHECK_PART_TIMEOUT:-560}
mkdir -p "$out"
# name=expression over gpu-check.sh's step names (OPKIT_GPU_CHECK_ONLY)
parts=(
  "cuda='^cuda-tests$'"
  "rocm='^(hipshim-selftest|rocm-tests)$'"
  "rocm-rest='^(rocm-conformance|rocm-rocblas-matmul|tiny_lm-rocm)$'"
  "no-clusters='^cuda-tests-no-clusters$'"
  "stash='^stash-kernels-ran$'"
  "sanitize='^(stash-memcheck|stash-racecheck|bulk-racecheck)$'"
  "rest='^(opkit-info|api-tests|conformance|pytest|cpu-unit-tests|cpu-defaults-vs-float64|ctest|tiny_lm-gpu|tiny_lm-cpu)$'"
)
if [ "${1:-}" = "--parts" ]; then  # the parts, one "name=expression" a line (for the test)
  printf '%s\n' "${parts[@]}"
  exit 0
fi
pids=()
names=()
for p in "${parts[@]}"; do
  name=${p%%=*}
  expr=${p#*=}
  expr=${expr#\'}
  expr=${expr%\'}
  (
    t0=$SECONDS
    OUT="$out/part-$name" OPKIT_GPU_CHECK_ONLY="$expr" OPKIT_PACK_RESULTS=0 \
      timeout "$limit" scripts/gpu-check.sh "$build" >"$out/part-$name.txt" 2>&1
    rc=$?
    echo "part $name: rc $rc, $((SECONDS - t0)) s" >>"$out/part-$name.txt"
    exit $rc
  ) &
  pids+=($!)
  names+=("$name")
done
status=0
for i in "${!pids[@]}"; do
  rc=0
  wait "${pids[$i]}" || rc=$?
  case $rc in
    0) echo "== part ${names[$i]}: ok" ;;
    124) echo "== part ${names[$i]}: TIMED OUT after $limit s"; status=1 ;;
    *) echo "== part ${names[$i]}: FAILED (rc $rc)"; status=1 ;;
  esac
  # its steps and their results; not the steps other parts run
  grep -E '^== [a-z0-9_-]+: |^   (ok|FAILED)' "$out/part-${names[$i]}.txt" |
    grep -v 'SKIPPED (not in OPKIT_GPU_CHECK_ONLY)' | sed 's/^/   /'
done
if [ "${OPKIT_PACK_RESULTS:-0}" = 1 ]; then
  pack=$(mktemp) && tar czf "$pack" -C "$out" . && find "$out" -mindepth 1 -delete && mv "$pack" "$out/results.tgz"
fi
exit $status
