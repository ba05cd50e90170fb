#!/usr/bin/env bash
# Configures and builds opkit into ./build (or $OPKIT_BUILD_DIR). Extra arguments go to
# cmake's configure step, e.g. -DOPKIT_VENDOR_CUDA=OFF.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${OPKIT_BUILD_DIR:-build}
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build "$build" -j"${OPKIT_JOBS:-2}"
