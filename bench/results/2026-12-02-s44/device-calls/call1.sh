#!/usr/bin/env bash
# Prepared in the forty-third session for the next one (not run: the device time was spent).
# vfbr = bench/experiments/fixed-forward-block-row.patch, OPK_EXP_FIXED_BLOCK_ROW=1: the
# fixed-group forwards (softmax, rms_norm, layer_norm; every dtype and row they take) one
# block a row with a block for every row, no row walk -- the form that took the 2-byte
# rms_norm forward at rows of 8192 to 0.989 / 0.995 of its time (d6a3989). sm_90: 40-80
# fewer instructions a kernel, the same or fewer registers, but opk_softmax_fwd_fixed_bf16_g128
# (bf16 softmax rows of 4096) spills 12 bytes (so that row may read slower; the spill gate
# would refuse it as is). Built with its rocm vendor (dc_tests). About 500 s with the
# machine's start; send prepared-next-call-2.sh within the machine's 30 s idle window.
# Builds: bench/prepare_device_builds.sh check;
#   bench/prepare_device_builds.sh variant fbr bench/experiments/fixed-forward-block-row.patch \
#     OPK_EXP_FIXED_BLOCK_ROW=1
#   bench/prepare_device_builds.sh pack
# Carry build-var.
. bench/device_call.sh r1
dc_variants
dc_ab_rounds fbr fbr softmax_forward,rms_norm_forward,layer_norm_forward bf16,f32 3
dc_tests fbr "ops: rms_norm*,ops: layer_norm*,ops: softmax*" fbr
cat $R/times.txt $R/ab-fbr.txt
tail -n 3 $R/fbr-*.txt
pack
