#!/usr/bin/env bash
# Thirty-second session, call 6: the whole GPU check (scripts/gpu-check-split.sh) owed since
# the thirty-first on the final build: build-check = HEAD's build (every binary, libopkit
# and both vendors byte-identical to a rebuild from 582b4dc and to the 8fe5d9a build of the
# thirty-first session's call 8). Carry build-check. About 400 s.
. bench/device_call.sh r6
( export OUT=$R/check OPKIT_GPU_CHECK_PART_TIMEOUT=470; t check-split scripts/gpu-check-split.sh build-check )
pack
cat $R/times.txt
tail -40 $R/check-split.txt
