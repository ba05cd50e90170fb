#!/usr/bin/env bash
# The forty-seventh session's fifth call: why the counted stash backwards are slower.
# Calls 2-4 had every 2-byte stash backward 9-45 % slower with its rows from a counter,
# whether thread 0's atomic was issued after the ring's wait (variant counted, 1.16-1.45),
# before it (early, 1.09-1.18) or a row ahead (ahead, 1.14-1.45). Nsight Compute's first
# launch of opk_rms_bwd_stash_bf16_* at 8192x8192 through HEAD's vendor and the early and
# ahead variants: speed of light, warp states, scheduler, memory, and the SASS lines' stalls
# (source page, CSV).
# Builds: as call 4 (build-var/var.tar.xz holds counted, early and ahead).
. bench/device_call.sh r5
cat build-check/HEAD.txt
dc_variants
for v in base early ahead; do
    vp=
    [ "$v" != base ] && vp=$PWD/var/v$v/libopkit_vendor_cuda.so
    t ncu-$v timeout 150 env PYTHONPATH="$PWD/python" OPKIT_LIBRARY="$DC_LIB" OPKIT_VENDOR_PATH="$vp" \
        ncu --clock-control none -k regex:opk_rms_bwd_stash -c 1 --section SpeedOfLight \
        --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis \
        --section Occupancy --section LaunchStats --section SourceCounters -o "$R/ncu-$v" \
        python3 bench/ncu_ops.py --ops norms --dtype bf16 --row-shapes 8192x8192
    t details-$v ncu -i "$R/ncu-$v.ncu-rep" --page details
    t source-$v ncu -i "$R/ncu-$v.ncu-rep" --page source --csv --print-source sass
    gzip -9 "$R/source-$v.txt"
    rm -f "$R/ncu-$v.ncu-rep"
    pack
done
cat $R/times.txt
for v in base early ahead; do
    echo "== $v"
    grep -E "^  [a-z_]|Duration|DRAM Throughput|Elapsed Cycles|SM Active Cycles|Registers Per|Achieved Occupancy|Issued Warp|No Eligible|Warp Cycles Per Issued|Stall" "$R/details-$v.txt" | head -40
done
