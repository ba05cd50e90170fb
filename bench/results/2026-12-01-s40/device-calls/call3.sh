#!/usr/bin/env bash
# build-check: e385d0a (the landed opk_rms_fwd_twice_f32_g1024x4; packed). Variants of
# bench/experiments/rms-fwd-twice-order.patch (cuda vendor only): vh = OPK_EXP_TWICE2=1
# (Inductor's cache hints on the fp32 twice kernels, x and weight), vx = 2 (the output
# pass's x loads all ahead of its stores; 2-byte kernels 32 registers, fp32 30, no spills).
# Three A/B rounds each, then Nsight Compute's full set on opkit's and Inductor's fp32
# rms_norm forward at 8192x8192 and 4096x16384 (kernel time alone against the call's).
# Carry build-var, .whl.
. bench/device_call.sh r3
cat build-check/HEAD.txt
dc_variants
dc_liger
dc_ab_rounds h h rms_norm_forward f32 3
dc_ab_rounds x x rms_norm_forward f32,bf16 3
cat $R/ab-h.txt $R/ab-x.txt
dc_ncu_gaps ncu-rms rms_fwd_compile_f32_8k,rms_fwd_compile_f32_16k
pack
cat $R/times.txt $R/ncu-rms-stalls.txt
