#!/usr/bin/env bash
# Call 4 of the thirty-eighth session: vtwice = the working tree's rms_norm forwards that
# read the row twice (opk_rms_fwd_twice_*; kernel_params.h kRmsFwdTwiceResident), built
# from b63e335 + that diff (/tmp/twice.patch then; landed as the next commit). The rms_norm
# test cases through it (rows of 4096, 8192, 16384 dense, padded and misaligned), then three
# A/B rounds of the rms_norm forward in bf16, f16 and fp32.
# Builds: OPKIT_PREPARE_ROCM=0 bench/prepare_device_builds.sh variant twice /tmp/twice.patch;
#   bench/prepare_device_builds.sh pack
. bench/device_call.sh r4
dc_variants
dc_cuda_tests twice-tests "*rms_norm*" twice
dc_cuda_tests twice-rows "*more rows than their grid*" twice
pack
dc_ab_rounds twice twice rms_norm_forward bf16,f16,f32 3
cat $R/times.txt $R/ab-*.txt; tail -n 3 $R/*-tests.txt $R/twice-rows.txt
