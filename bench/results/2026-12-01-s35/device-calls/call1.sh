#!/usr/bin/env bash
# The thirty-fourth session's two prepared calls in one (both fit one machine's start):
# first rope's grid cap (prepared-next-call-2.sh of 2026-12-01-s34: variants rg1024 and
# rg32 of bench/experiments/rope-grid-cap.patch, host code only), then the CPU defaults at
# 16 threads with rounds of at least 50 ms (prepared-next-call-1.sh: settles the bf16
# embedding forward at 16 threads). Carry build-check (less its rocm vendor), build-var.
. bench/device_call.sh r1
dc_variants
dc_cuda_tests rg-tests "ops: rope*" rg1024
pack
OPS=rope_forward,rope_backward
dc_ab_rounds rg1024 rg1024 $OPS bf16,f32 2
dc_ab_rounds rg32 rg32 $OPS bf16,f32 2
dc_cpu_compare cc16-embedding-long --ops embedding --threads 16 --rounds 11 --reps 11 --min-round-ms 50
for g in rms_norm,layer_norm,softmax swiglu,geglu,rope cross_entropy,embedding; do
  [ $SECONDS -gt 470 ] && break
  dc_cpu_compare cc16-long-${g%%,*} --ops $g --threads 16 --rounds 5 --reps 11 --min-round-ms 50
done
cat $R/times.txt $R/ab-*.txt; tail -n 3 $R/rg-tests.txt; tail -n 20 $R/cc16-*.txt
