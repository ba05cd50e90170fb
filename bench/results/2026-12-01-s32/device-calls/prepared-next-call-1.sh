#!/usr/bin/env bash
# Prepared in the thirty-second session for the next one (not run: the device time left
# could not start a machine). vx2r1536 (the same at 1536 resident threads: layer_norm 40
# registers, softmax 37, rms_norm 31) is in the same tarball.
# vx2r2048 = bench/experiments/fixed-f32-512x2.patch built with OPK_EXP_FIXED_X2=2048: the
# fp32 forwards (rms_norm, layer_norm, softmax) of rows of 4096 at 512 threads of two packs,
# 32 registers (four blocks an SM), instead of 256 of four at 45-60 (call 8: Inductor's
# rms_norm runs 28 registers at 58.6 warps an SM against our 37). Its norm and softmax
# test cases, then two A/B rounds against build-check. Carry build-check, build-var. ~130 s.
. bench/device_call.sh r1
dc_variants
dc_cuda_tests x2-tests "ops: rms_norm*,ops: layer_norm*,ops: softmax*" x2r2048
pack
dc_ab_rounds x2 x2r2048 rms_norm_forward,layer_norm_forward,softmax_forward f32 2
cat $R/times.txt $R/ab-x2.txt; tail -n 3 $R/x2-tests.txt
