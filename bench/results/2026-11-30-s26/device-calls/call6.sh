#!/usr/bin/env bash
# Twenty-sixth session, call 6, on build-check = 0c30f67. Two reductions a row become one
# in the fixed-group forwards (group_merge2, group_reduce.cuh):
#   vln  layer_norm's cached exact forward: each thread's own two-pass (mean, m2), merged in
#        one reduction (bench/experiments/ln-forward-one-moments-reduction.patch);
#   vsm  softmax's (max, sum) merged in one reduction instead of a max then a sum
#        (bench/experiments/softmax-online-one-reduction.patch);
#   vboth both (the tree that would land if both pay): layer_norm and softmax test cases,
#        cuda and rocm over the shim, and conformance of both.
# Carry build-check, build-var. About 330 s.
. bench/device_call.sh r6
dc_variants
dc_ab_rounds ln 'ln' layer_norm_forward bf16,f32 2
dc_ab_rounds sm 'sm' softmax_forward bf16,f32 2
dc_tests vboth "ops: layer_norm*,ops: softmax*" both
pack
cat $R/times.txt
cat $R/ab-ln.txt $R/ab-sm.txt
tail -n 3 $R/vboth-*.txt
