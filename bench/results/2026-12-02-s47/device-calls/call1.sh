#!/usr/bin/env bash
# The forty-seventh session's first call (prepared in the forty-sixth, run as prepared plus
# two lines whose counter is zeroed by a cudaMemsetAsync before each launch, as a library
# call with the counter in its stream-ordered scratch would do):
# bench/experiments/norm_backward_red.cu with the persistent kernel holding its dweight
# sums in registers (rms_bwd_register_sums: one block an SM, 512 x 4 at 123 registers,
# 1024 x 2 at 64 with 16 bytes of spill; dynamic rows; 512 x 4 again with thread 0 asking
# L2 for the next row's x and dy as soon as the counter gives it), against call 3's lines
# in the same run; then Nsight Compute's first launch of the register-sum and dynamic
# kernels.
# Builds: bench/prepare_device_builds.sh check; pack; then the experiment's binary and its
# ptxas output in build-var/exp/ (the nvcc line in the experiment's header). Carry build-var.
. bench/device_call.sh r1
cat build-check/HEAD.txt
cp build-var/exp/ptxas_red.txt $R/
t red timeout 120 build-var/exp/norm_backward_red
t ncu-red timeout 150 ncu --clock-control none --kernel-name-base mangled \
    --kernel-id '::regex:rms_bwd_register_sums|rms_bwd_persistentILi256ELi8ELi[01]ELb1ELb1|rms_bwd_rowsILi256ELi8ELi1ELi0:1' \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
    build-var/exp/norm_backward_red
cat $R/times.txt; grep 16384 $R/red.txt
grep -E "^  [a-z_v]|Duration|DRAM Throughput|Elapsed Cycles|SM Active Cycles" $R/ncu-red.txt
pack
