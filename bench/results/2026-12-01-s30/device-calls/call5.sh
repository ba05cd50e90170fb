#!/usr/bin/env bash
# Thirtieth session, call 5: the whole GPU check (scripts/gpu-check-split.sh) on
# build-check = cc58429's build (layer_norm's fp32 split stash kernels asking L2 512 KB
# ahead; the vendors of HEAD). Carry build-check. About 450 s.
. bench/device_call.sh r5
( export OUT=$R/check OPKIT_GPU_CHECK_PART_TIMEOUT=470; t check-split scripts/gpu-check-split.sh build-check )
pack
cat $R/times.txt
tail -40 $R/check-split.txt
