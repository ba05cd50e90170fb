#!/usr/bin/env bash
# Thirty-fourth session, call 1: the whole GPU check of HEAD (b1ec9ed; owed since 697f958,
# which changed every vendor's exception guard and the GPU suites' twin tensors, no kernel).
# Build: bench/prepare_device_builds.sh check. Carry build-check. About 450 s.
. bench/device_call.sh r1
( export OUT=$R/check OPKIT_GPU_CHECK_PART_TIMEOUT=470; t check-split scripts/gpu-check-split.sh build-check )
pack
cat $R/times.txt
tail -40 $R/check-split.txt
