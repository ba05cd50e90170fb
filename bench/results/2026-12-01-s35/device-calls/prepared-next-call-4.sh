#!/usr/bin/env bash
# Prepared in the thirty-fifth session for the next one: Nsight Compute's full set on the
# misses short in every round of the standing table that no session has profiled (issue
# 14 item 2): the fp32 swiglu backward against torch.compile (8192x8192), the bf16
# rms_norm forward at 32768x4096 and the fp32 softmax backward at 4096x16384 against
# Liger-Kernel, the fp32 embedding forward against torch.compile (placement_probe.py's
# cases, new; one opkit call and one peer call each). Build: bench/prepare_device_builds.sh
# check. Carry build-check (less its rocm vendor), .whl. About 90 s.
. bench/device_call.sh r4
dc_liger
dc_ncu_gaps gaps swiglu_bwd_f32,rms_fwd_rows4096_bf16,softmax_bwd_wide_f32,embedding_f32
cat $R/times.txt $R/gaps-stalls.txt; tail -5 $R/gaps.txt
