#!/usr/bin/env bash
# Session 2026-11-29 (fourteenth), device call 1: the whole GPU check on HEAD (2ef1e32) as
# five parts side by side (scripts/gpu-check-split.sh; its first run on a GPU machine),
# build-check carried (build-gpu's binaries and libraries at HEAD).
set -u
export OPKIT_GPU_CHECK_PART_TIMEOUT=540 OPKIT_PACK_RESULTS=1
t0=$SECONDS
scripts/gpu-check-split.sh build-check
echo "split rc $? $((SECONDS-t0)) s"
