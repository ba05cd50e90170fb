#!/usr/bin/env bash
# Prepared in the forty-first session (not run: 166 s of device time were left, too little
# to start a machine; built and SASS-checked here). The 8192 kernel's L1
# hints on every other twice kernel (bench/experiments/rms-fwd-twice-l1.patch,
# OPK_EXP_TWICE_L1=2: fp32 rows of 4096 and 16384, 2-byte rows of 4096 and 8192; sm_90 the
# same registers, no spills), two A/B rounds, bf16 and f32 in one process each run.
# Before the x-ahead loads (09c0a72) the hints had measured 0.999-1.001 on the fp32 twice
# kernels and 1.005 slower on bf16 rows of 8192.
# About 120 s with the machine's start; fits beside prepared-next-call-2.sh in one call.
# Builds: check; OPKIT_PREPARE_ROCM=0 bench/prepare_device_builds.sh variant l2 \
#   bench/experiments/rms-fwd-twice-l1.patch OPK_EXP_TWICE_L1=2; pack. Carry build-var.
. bench/device_call.sh r3
dc_variants
dc_ab_rounds l2 l2 rms_norm_forward bf16,f32 2
cat $R/times.txt $R/ab-l2.txt
