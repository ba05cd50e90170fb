#!/usr/bin/env bash
# Forty-fifth session, call 4: bench/experiments/norm_backward_red.cu again (built on the
# build VM, carried in build-var/exp/) with the persistent form of the one-row register
# kernel (rms_bwd_persistent: the blocks that fit at once, each looping over rows; the
# weight's packs in shared memory; with no dweight, and with the dweight sums in shared
# memory and a partial row a block). ptxas spills it 88-164 bytes (ptxas_red.txt).
# Carry build-var.
. bench/device_call.sh r4
cat build-check/HEAD.txt
cp build-var/exp/ptxas_red.txt $R/
t red timeout 240 build-var/exp/norm_backward_red
cat $R/times.txt; grep 16384 $R/red.txt
pack
