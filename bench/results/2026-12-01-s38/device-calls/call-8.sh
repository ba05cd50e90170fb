#!/usr/bin/env bash
# Call 8 of the thirty-eighth session: the whole GPU check (scripts/gpu-check-split.sh, seven
# parts) on 61fac3f's build (fd71ab9's kernels). Carry build-check, .whl.
. bench/device_call.sh r8
( export OUT=$R/check OPKIT_GPU_CHECK_PART_TIMEOUT=470; t check-split scripts/gpu-check-split.sh build-check )
pack
cat $R/times.txt; tail -n 30 $R/check-split.txt
