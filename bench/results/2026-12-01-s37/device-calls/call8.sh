#!/usr/bin/env bash
# Thirty-seventh session, call 8: vrt = bench/experiments/softmax-bwd-one-pack-twice.patch
# (the one-pack softmax backward reads dy and y twice with Inductor's hints, evict_last then
# evict_first, instead of holding them over the barrier; the lean harness had that 0.5 %
# ahead of holding in both of call 2's runs). Softmax test case through it, three A/B rounds
# against 70459a3 (02bce08's kernels). Carry build-check, build-var. About 120 s.
. bench/device_call.sh r8
dc_variants
dc_cuda_tests rt-tests "ops: softmax*" rt
pack
dc_ab_rounds rt rt softmax_backward bf16,f16 3
cat $R/times.txt $R/ab-*.txt; tail -n 2 $R/*-tests.txt
