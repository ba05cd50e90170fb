#!/usr/bin/env bash
# Prepared in the thirty-third session (which had no device time: the 209 s left of the
# budget could not start a machine). Run it first: the whole GPU check on a build of HEAD
# since 697f958, which changed no kernel but every vendor's exception guard
# (vendors/common/guarded_call.h) and the GPU suites' twin tensors (tools/twin_tensor,
# tests/support/twin_checks.*); both passed every local test, but the cuda, rocm
# (HIP-over-CUDA) and multi-GPU cases need a GPU. Build: `bench/prepare_device_builds.sh
# check` (its header has the cmake line of build-gpu). Carry build-check. About 450 s.
. bench/device_call.sh r0
( export OUT=$R/check OPKIT_GPU_CHECK_PART_TIMEOUT=470; t check-split scripts/gpu-check-split.sh build-check )
pack
cat $R/times.txt
tail -40 $R/check-split.txt
