#!/usr/bin/env bash
# Fortieth session, call 1: the thirty-ninth session's two prepared calls in one.
# vtw1 / vtw2 = bench/experiments/rms-fwd-twice-f32-wide.patch (OPK_EXP_RMS_TWICE_F32_WIDE
# 1 / 2: the fp32 rms_norm forward's twice body at Inductor's 512 x 4 and 1024 x 4; 2 also
# Inductor's cache hints on every twice kernel); vrq = bench/experiments/norm-fwd-rsqrt.patch
# (OPK_EXP_NORM_RSQRT=1: the norm forwards' rstd as rsqrtf). Built on ab4174f (cuda vendor
# only) with bench/prepare_device_builds.sh; carry build-check, build-var.
. bench/device_call.sh r1
dc_variants
dc_cuda_tests tw2-rms "*rms_norm*" tw2
dc_cuda_tests rq-rms "*rms_norm*" rq
dc_cuda_tests rq-ln "*layer_norm*" rq
pack
dc_ab_rounds tw1 tw1 rms_norm_forward f32 3
dc_ab_rounds tw2 tw2 rms_norm_forward f32,bf16 3
dc_ab_rounds rq rq rms_norm_forward,layer_norm_forward bf16,f32 3
cat $R/times.txt $R/ab-*.txt; tail -n 3 $R/tw2-rms.txt $R/rq-*.txt
