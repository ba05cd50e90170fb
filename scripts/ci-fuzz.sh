#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan + coverage of libopkit itself) in
# ./build-fuzz (or $OPKIT_FUZZ_BUILD_DIR) and runs each for a bounded time from its
# checked-in seed corpus (tests/fuzz/corpus/<target>). Fails on any finding: a crash, a
# sanitizer report, a broken invariant, a leak, an input slower than 30 s or more memory
# than 2 GB. docs/fuzzing.md describes the targets.
#
#   scripts/ci-fuzz.sh                 both targets, 60 s each
#   OPKIT_FUZZ_TIME=600 scripts/ci-fuzz.sh fuzz_validate
#
# A finding leaves its input in build-fuzz/fuzz-artifacts/; the script prints the command
# that replays it. New inputs the fuzzer finds go to build-fuzz/fuzz-work/<target>, never
# into the checked-in corpus.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${OPKIT_FUZZ_BUILD_DIR:-build-fuzz}
seconds=${OPKIT_FUZZ_TIME:-60}
targets=("$@")
((${#targets[@]})) || targets=(fuzz_validate fuzz_loader)

# clang and its runtime libraries (libFuzzer, the sanitizers) from Debian.
if ! command -v clang++ >/dev/null || ! ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends clang libclang-rt-dev llvm
fi

start=$(date +%s)
CC=clang CXX=clang++ cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOPKIT_FUZZ=ON \
  -DOPKIT_SANITIZE=ON -DOPKIT_VENDOR_CUDA=OFF -DOPKIT_BUILD_TOOLS=OFF -DOPKIT_BUILD_EXAMPLES=OFF \
  -DOPKIT_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build "$build" -j"${OPKIT_JOBS:-2}" --target "${targets[@]}"
echo "== fuzz build: $(($(date +%s) - start)) s"

export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
status=0
for t in "${targets[@]}"; do
  work=$build/fuzz-work/$t
  artifacts=$build/fuzz-artifacts
  mkdir -p "$work" "$artifacts"
  rm -f "$artifacts/$t-"*
  echo "== $t: ${seconds} s from tests/fuzz/corpus/$t"
  start=$(date +%s)
  # The first corpus directory receives new inputs; the checked-in one is only read.
  if "$build/bin/$t" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=30 \
       -print_final_stats=1 -artifact_prefix="$artifacts/$t-" \
       "$work" "tests/fuzz/corpus/$t" >"$build/$t.log" 2>&1; then
    grep -E '^(Done|stat::number_of_executed_units|stat::peak_rss_mb)' "$build/$t.log" || true
    echo "   $t: no finding in $(($(date +%s) - start)) s"
  else
    status=1
    grep -E -A12 'INVARIANT VIOLATED|ERROR: |runtime error:|WARNING: ' "$build/$t.log" | head -n 60
    echo "   $t: FINDING (full log: $build/$t.log)"
    for a in "$artifacts/$t-"*; do
      [ -e "$a" ] && echo "   replay: $build/bin/$t $a"
    done
  fi
done
exit $status
