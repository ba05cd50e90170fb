#!/usr/bin/env bash
# Runs every GPU check from a build directory carried to a GPU machine (no cmake, no
# ctest there: ctest files hold this machine's absolute paths). Logs go to $OUT (or
# ./gpu-results). Usage: scripts/gpu-check.sh [build-dir]   (default: build)
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=${OUT:-gpu-results}
mkdir -p "$out"
status=0
step() {  # step NAME COMMAND...: runs, logs to $out/NAME.log, remembers a failure
  local name=$1
  shift
  echo "== $name: $*"
  if "$@" >"$out/$name.log" 2>&1; then echo "   ok"; else echo "   FAILED (rc $?)"; status=1; fi
  tail -n 25 "$out/$name.log"
}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"
export OPKIT_LOG_LEVEL=error
step opkit-info "$build/bin/opkit-info"
step cuda-tests "$build/bin/opkit_cuda_tests"
step api-tests "$build/bin/opkit_api_tests"
step conformance "$build/bin/opkit-conformance" --vendor cuda
step pytest env OPKIT_LIBRARY="$PWD/$build/lib/libopkit.so.1" python3 -m pytest -q -rs -p no:cacheprovider python/tests
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
exit $status
