#!/usr/bin/env bash
# Nineteenth session, call 1: the eighteenth session's prepared call, run as prepared.
# Variant vendors (build-var/var.tar.xz, built from 2ee99d3 with d2704c7's patches): vwfr =
# bench/experiments/weight-first.patch with OPK_EXP_WEIGHT_FIRST=1 OPK_EXP_WEIGHT_FIRST_LN=0
# OPK_EXP_RMS_FIXED_RESIDENT=1152; vln1 = ln-one-reduction.patch with OPK_EXP_LN_ONE_REDUCTION=1;
# vsm1 = online-one-round.patch with OPK_EXP_ONLINE_ONE_ROUND=1; build-check = the tree (kernels
# of 8c64c9d). (a) each variant's norm / softmax test cases and conformance; (b) the norm and
# softmax forwards A/B, three rounds alternating.
. bench/device_call.sh r1
dc_variants
for v in wfr ln1 sm1; do
  V=$PWD/var/v$v/libopkit_vendor_cuda.so
  t tests-$v timeout 150 env OPKIT_VENDOR_PATH=$V build-check/bin/opkit_cuda_tests "ops: rms_norm forward and backward match the CPU,ops: layer_norm forward and backward match the CPU,ops: softmax forward and backward match the CPU"
  t conformance-$v timeout 100 env OPKIT_VENDOR_PATH=$V build-check/bin/opkit-conformance --vendor cuda
done
pack
for i in 1 2 3; do for v in base wfr ln1 sm1; do dc_ab fwd-$v-$i $v norm_forward,softmax_forward bf16,f16,f32; done; pack; done
for v in wfr ln1 sm1; do python3 bench/ab_table.py $R fwd-base fwd-$v > $R/ab-$v.txt 2>&1; done
pack
cat $R/times.txt
