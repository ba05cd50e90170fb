#!/usr/bin/env bash
# The second command of the README: every test — the ctest suite (C/C++ unit, API,
# loader, header and GPU tests; GPU tests print a visible skip without a GPU) and the
# Python binding's pytest suite. Builds first if needed.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${OPKIT_BUILD_DIR:-build}
[ -f "$build/CMakeCache.txt" ] || ./scripts/build.sh
cmake --build "$build" -j"${OPKIT_JOBS:-2}"
ctest --test-dir "$build" --output-on-failure -j"${OPKIT_JOBS:-2}"
