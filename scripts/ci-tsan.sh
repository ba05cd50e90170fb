#!/usr/bin/env bash
# ThreadSanitizer: builds libopkit, the fake vendors and the concurrency tests with
# -fsanitize=thread (GCC, the project's compiler) in ./build-tsan (or $OPKIT_TSAN_BUILD_DIR)
# and runs them; any data race, lock-order inversion or thread leak fails.
#   tests/concurrency/test_concurrency.cpp  16 threads racing implicit init and ops,
#       shutdown/init cycles between rounds of concurrent calls, log level and callback
#       changes while calls log, introspection from many threads, host fallback and
#       OPKIT_VERIFY under concurrent calls;
#   tests/test_api_runtime.cpp              its 16-thread first-call race;
#   tests/test_cpu_parallel.cpp             the CPU pool itself: jobs back to back with its
#       workers asleep or polling, from several application threads, across a restart.
# No suppressions are used (tests/concurrency/tsan.supp would hold any, each with its
# justification; there are none).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${OPKIT_TSAN_BUILD_DIR:-build-tsan}
# OPKIT_NO_CLONES (core/cpu/simd.h): GCC instruments the ifunc resolvers of target_clones,
# which run during relocation, before ThreadSanitizer is initialized, and crash there.
flags="-fsanitize=thread -g -fno-omit-frame-pointer -DOPKIT_NO_CLONES"

start=$(date +%s)
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread -DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=thread \
  -DCMAKE_MODULE_LINKER_FLAGS=-fsanitize=thread \
  -DOPKIT_VENDOR_CUDA=OFF -DOPKIT_BUILD_TOOLS=OFF -DOPKIT_BUILD_EXAMPLES=OFF \
  -DOPKIT_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build "$build" -j"${OPKIT_JOBS:-2}" --target opkit_concurrency_tests opkit_api_tests opkit_unit_tests
echo "== tsan build: $(($(date +%s) - start)) s"

supp=$PWD/tests/concurrency/tsan.supp
export TSAN_OPTIONS="halt_on_error=1 abort_on_error=1 second_deadlock_stack=1 report_thread_leaks=1${TSAN_EXTRA:+ $TSAN_EXTRA}"
[ -f "$supp" ] && TSAN_OPTIONS="$TSAN_OPTIONS suppressions=$supp"
export OPKIT_LOG_LEVEL=error
start=$(date +%s)
# Every case in one process (each starts from opkit_shutdown), then each alone, so the
# implicit-initialization race also runs in a process where nothing initialized yet.
"$build/bin/opkit_concurrency_tests"
# (Catch2 v2's --list-test-names-only exits with the number of tests.)
names=$("$build/bin/opkit_concurrency_tests" --list-test-names-only || true)
while IFS= read -r name; do
  [ -z "$name" ] || "$build/bin/opkit_concurrency_tests" "$name" >/dev/null
done <<<"$names"
"$build/bin/opkit_api_tests" "16 threads racing the first call - then calling ops concurrently"
"$build/bin/opkit_unit_tests" "[parallel]"
echo "== tsan run: $(($(date +%s) - start)) s, no race reported"
