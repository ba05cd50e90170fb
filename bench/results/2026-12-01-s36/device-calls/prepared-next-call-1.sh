#!/usr/bin/env bash
# Prepared in the thirty-fifth session, carried over by the thirty-sixth (the two-GPU kind
# was not lent then either): the multi-GPU suites, owed since
# 697f958 (the GPU suites' shared twin tensors) — `nvidia-h200-x2` was listed as lent only
# after that session's device time was spent. Run with kind nvidia-h200-x2 (the issue-15
# script: cuda and rocm-over-HIP-over-CUDA multi-GPU tests, the device-1 pytest cases, the
# DDP equality check). Build: bench/prepare_device_builds.sh check. Carry build-check
# (whole: the rocm part loads its vendor). About 120 s.
. bench/device_call.sh r1
t gpu-multi timeout 500 scripts/gpu-multi.sh build-check "$R/multi"
pack
cat $R/times.txt $R/multi/summary.txt
