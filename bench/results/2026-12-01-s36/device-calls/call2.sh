#!/usr/bin/env bash
# Thirty-sixth session, call 2: bench/results/2026-12-01-s35/device-calls/prepared-next-call-3.sh (rh1, rh2: rope's dense kernel with
# Inductor's cache policies) and prepared-next-call-4.sh (Nsight Compute on four gaps) in one
# call, the same builds as call 1. Carry build-check, build-var, .whl.
. bench/device_call.sh r2
dc_liger
dc_variants
for v in rh1 rh2; do dc_cuda_tests $v-tests "ops: rope*" $v; done
pack
dc_ab_rounds rh1 rh1 rope_forward,rope_backward bf16,f32 3
dc_ab_rounds rh2 rh2 rope_forward,rope_backward bf16,f32 3
dc_ncu_gaps gaps swiglu_bwd_f32,rms_fwd_rows4096_bf16,softmax_bwd_wide_f32,embedding_f32
cat $R/times.txt $R/ab-*.txt $R/gaps-stalls.txt; tail -n 2 $R/*-tests.txt
