#!/usr/bin/env bash
# Prepared in the thirty-ninth session (not run). The norm forwards' rstd as rsqrtf
# (bench/experiments/norm-fwd-rsqrt.patch, OPK_EXP_NORM_RSQRT=1): the IEEE 1 / sqrtf(x) is
# a MUFU.RSQ plus fix-up branches and a MUFU.RCP with its own (96 fewer SASS instructions in
# each of the twice and fixed fp32 kernels), between the row's barrier and its output pass,
# where the sm_90 SASS of Inductor's rms_norm kernel (r5's PTX through ptxas -arch=sm_90a)
# has one MUFU.RSQ. rsqrtf is within 2 ulp, as PyTorch's CUDA rsqrt; the test cases say
# whether the op spec's tolerances hold. 44 kernels change (the norm forwards); no spills
# (sm_90). About 250 s with the machine's start. Builds:
#   bench/prepare_device_builds.sh check
#   OPKIT_PREPARE_ROCM=0 bench/prepare_device_builds.sh variant rq \
#     bench/experiments/norm-fwd-rsqrt.patch OPK_EXP_NORM_RSQRT=1
#   bench/prepare_device_builds.sh pack
# Carry build-check, build-var.
. bench/device_call.sh r2
dc_variants
dc_cuda_tests rq-rms "*rms_norm*" rq
dc_cuda_tests rq-ln "*layer_norm*" rq
pack
dc_ab_rounds rq rq rms_norm_forward,layer_norm_forward bf16,f32 3
cat $R/times.txt $R/ab-*.txt; tail -n 3 $R/rq-*.txt
