#!/usr/bin/env bash
# Prepared in the fifty-first session, not run: the multi-GPU runs owed since the sessions
# after 2026-11-27 (only the one-GPU kind has been lent since). Run with kind
# nvidia-h200-x2 when the status lists it: scripts/gpu-multi.sh on build-check (the cuda
# and rocm multi-GPU test binaries, the device-1 pytest cases, the DDP equality check).
# Builds: bench/prepare_device_builds.sh check; bench/prepare_device_builds.sh pack. Carry build-var.
. bench/device_call.sh r1
cat build-check/HEAD.txt
nvidia-smi -L
t multi timeout 500 bash scripts/gpu-multi.sh build-check "$R/multi"
cat "$R/multi/summary.txt"
pack
