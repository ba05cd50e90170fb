#!/usr/bin/env bash
# Prepared in the eighteenth session for the next one (not run): the three experiments whose
# kernels ptxas checked on the build VM, as variant vendors in build-var/var.tar.xz built
# from 2ee99d3 with d2704c7's patches (vwfr: bench/experiments/weight-first.patch with
# OPK_EXP_WEIGHT_FIRST=1 OPK_EXP_WEIGHT_FIRST_LN=0 OPK_EXP_RMS_FIXED_RESIDENT=1152; vln1:
# ln-one-reduction.patch with OPK_EXP_LN_ONE_REDUCTION=1; vsm1: online-one-round.patch with
# OPK_EXP_ONLINE_ONE_ROUND=1) beside build-check (the tree). Copy it into the next session's
# device-calls/ before running.
# (a) the norm / softmax test cases and conformance on each variant;
# (b) the norm and softmax forwards A/B, three rounds alternating (a gain counts only if a
#     second call repeats it).
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
