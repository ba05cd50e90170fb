#!/usr/bin/env bash
# Forty-sixth session, call 3: bench/experiments/norm_backward_red.cu with the persistent
# row-called kernel taking its rows from a counter ("dynamic rows": a block that runs
# ahead takes more rows, as in a one-row grid) beside the strided form, the block-a-row
# kernel and the library's; then Nsight Compute's first launch of each (SMs active against
# elapsed cycles: call 1 found 94.1 % strided, 97.5 % a block a row).
# Carry build-var (the binary in build-var/exp/).
. bench/device_call.sh r3
cat build-check/HEAD.txt
cp build-var/exp/ptxas_red.txt $R/
t red timeout 120 build-var/exp/norm_backward_red
t ncu-red timeout 150 ncu --clock-control none --kernel-name-base mangled \
    --kernel-id '::regex:rms_bwd_persistentILi256ELi8ELi[01]ELb1|opk_rms_bwd_stash_bf16_s2_exact|rms_bwd_rowsILi256ELi8ELi1ELi0:1' \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
    build-var/exp/norm_backward_red
cat $R/times.txt; grep 16384 $R/red.txt
grep -E "^  [a-z_v]|Duration|DRAM Throughput|Elapsed Cycles|SM Active Cycles" $R/ncu-red.txt
pack
