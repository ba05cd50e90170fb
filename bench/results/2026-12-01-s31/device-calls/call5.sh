#!/usr/bin/env bash
# Thirty-first session, call 5: the whole GPU check (scripts/gpu-check-split.sh) on
# build-check = 801a568's build (the 2-byte norm stash backwards holding the row's packs
# in registers: f16, bf16 layer_norm rows of 4096 / 8192). Carry build-check. About 400 s.
. bench/device_call.sh r5
( export OUT=$R/check OPKIT_GPU_CHECK_PART_TIMEOUT=470; t check-split scripts/gpu-check-split.sh build-check )
pack
cat $R/times.txt
tail -40 $R/check-split.txt
