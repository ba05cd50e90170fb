#!/usr/bin/env bash
# The whole GPU check on 0c41253 (build-check rebuilt from it: rms_norm's shared dweight
# sums, and the host of 2aebcaa, whose embedding zeroing grid had not run on a GPU yet).
# Carry build-check.
. bench/device_call.sh r3
( export OUT=$R/check OPKIT_GPU_CHECK_PART_TIMEOUT=470; t check-split scripts/gpu-check-split.sh build-check )
pack
cat $R/times.txt
