#!/usr/bin/env bash
# (a) bench/experiments/ln-shared-weight.patch: the norm stash harness (at 0c41253, its
# rms_norm lines with the shared dweight sums) built without and with
# OPK_EXP_LN_SHARED_W=1 (layer_norm's 2-byte four-pack exact kernel reading its raw weight
# packs from shared memory after the dbias sums instead of holding them in registers:
# ptxas 128 -> 125 registers), build-exp/nbs-base and nbs-lsw (nvcc -std=c++17 -O3
# -arch=sm_90 -Xptxas -v [-DOPK_EXP_LN_SHARED_W=1] -I vendors/gpu), alternating twice;
# (b) Nsight Compute of the bf16 stash backwards of rows of 16384 as the library now runs
# them (rms_norm with its dweight sums in shared memory, layer_norm with its dbias sums
# there), at 4096x16384 (and 32768x4096's s0 kernels, for contrast).
# Carry build-check and build-var/exp.tar.xz (build-exp packed).
. bench/device_call.sh r4
tar xJf build-var/exp.tar.xz
for i in 1 2; do
  t nbs-base-$i timeout 120 build-exp/nbs-base
  t nbs-lsw-$i timeout 120 build-exp/nbs-lsw
done
pack
t ncu-norm-bwd timeout 240 env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$DC_LIB ncu --clock-control none -k 'regex:opk_(rms|ln)_bwd_stash_bf16' --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats --section SchedulerStats python3 bench/ncu_ops.py --ops norms
pack
cat $R/times.txt
grep -h "ln_bwd  bf16   8192x16384  stash B512 C4" $R/nbs-*-1.txt
