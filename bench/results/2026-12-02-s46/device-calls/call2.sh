#!/usr/bin/env bash
# Forty-sixth session, call 2: bench/experiments/norm_backward_red.cu with RED_LINES=tail:
# the library's bf16 rms_norm stash backward and the block-a-row kernel at rows of 16384,
# at row counts around whole rounds of the persistent grid (132 blocks), to see whether
# the partly filled last round of 4096 rows costs a whole round (call 1's Nsight Compute
# run: the persistent kernels' SMs active 94 % of the elapsed cycles, the block-a-row
# kernel's 97.5 %). Carry build-var (the binary in build-var/exp/).
. bench/device_call.sh r2
cat build-check/HEAD.txt
t tail timeout 120 env RED_LINES=tail build-var/exp/norm_backward_red
cat $R/times.txt; grep tail $R/tail.txt
pack
