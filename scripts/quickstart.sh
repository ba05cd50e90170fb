#!/usr/bin/env bash
# The first command of the README: install dependencies, build everything, and run the
# main job (tiny_lm) on the best device present — a GPU vendor when one is ready, else
# the built-in CPU defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
./scripts/build.sh
build=${OPKIT_BUILD_DIR:-build}
"$build/bin/opkit-info" || true
"$build/bin/tiny_lm" --text examples/tiny_lm/corpus.txt
