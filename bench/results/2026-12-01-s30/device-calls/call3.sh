#!/usr/bin/env bash
# Thirtieth session, call 3, on build-check (aeee5ba's build; its bf16 kernels are HEAD's).
# rms_norm's 2-byte four-pack stash backward (rows of 16384; 96 registers since its dweight
# sums moved to shared memory) with its weight unpacked once a kernel, not twice a row
# (bench/experiments/rms-bwd-weight-once.patch): vwo = OPK_EXP_RMS_WEIGHT_ONCE (109
# registers), vwf = that and the dweight sums as one FMA an element (dy * rstd) * x (119).
# Three A/B rounds each on the norm backwards, bf16 and f16; then the stash test case on
# the faster variant where it gained 1 % at 4096x16384. Carry build-check, build-var.
# About 200 s.
. bench/device_call.sh r3
dc_variants
dc_ab_rounds wo wo norm_backward bf16,f16 3
dc_ab_rounds wf wf norm_backward bf16,f16 3
cat $R/times.txt $R/ab-wo.txt $R/ab-wf.txt
best=$(for v in wo wf; do awk -v v=$v '$1=="rms_norm_backward" && $2=="4096x16384" && $3=="bf16" {print $NF, v}' $R/ab-$v.txt; done | sort -n | head -1)
echo "best: $best"
set -- $best
if awk -v r="$1" 'BEGIN {exit !(r < 0.99)}'; then
  t $2-stash-tests timeout 150 env OPKIT_VENDOR_PATH=$PWD/var/v$2/libopkit_vendor_cuda.so build-check/bin/opkit_cuda_tests "ops: norm backwards through the stash kernels*"
  pack
  tail -n 3 $R/$2-stash-tests.txt
fi
