#!/usr/bin/env bash
# Prepared in the twentieth session for the next one: the whole GPU check owed to b25e763
# (the norm backwards' column sums in one dependent launch), which no device time was left
# for. build-check is that tree's build (586870f's vendors are the same); rebuild it from
# HEAD with the recipe in docs/gpu-runs.md if the checkout's ignored build-check/ is gone.
# Carry build-check. About 340 s.
. bench/device_call.sh r1
( export OUT=$R/check OPKIT_GPU_CHECK_PART_TIMEOUT=470; t check-split scripts/gpu-check-split.sh build-check )
pack
cat $R/times.txt
