#!/usr/bin/env bash
# Thirty-seventh session, call 5, on b6cfa6b's build: Nsight Compute's full set on the bf16
# softmax backward at 32768x4096 (opkit's new opk_softmax_bwd_one_pack_bf16 and Inductor's
# kernel; bench/placement_probe.py --profile softmax_bwd_bf16). Carry build-check, .whl.
# About 120 s.
. bench/device_call.sh r5
dc_liger
dc_ncu_gaps onepack softmax_bwd_bf16
cat $R/times.txt $R/onepack-stalls.txt
