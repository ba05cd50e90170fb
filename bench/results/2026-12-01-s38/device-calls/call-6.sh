#!/usr/bin/env bash
# Call 6 of the thirty-eighth session: vsmtw = softmax's 2-byte forward of rows of 4096
# read twice (opk_softmax_fwd_twice_{f16,bf16}_g256x2: each thread's (max, sum of exp)
# merged in one reduction, x read again evict_first; kSoftmaxFwdTwiceResident), built from
# fd71ab9 + the working tree's vendors diff (/tmp/smtw.patch then). The softmax test cases
# through it, then three A/B rounds of the softmax forward (bf16, f16). Base: build-check
# (b63e335's vendor; its softmax kernels are fd71ab9's).
# Builds: OPKIT_PREPARE_ROCM=0 bench/prepare_device_builds.sh variant smtw /tmp/smtw.patch; pack
. bench/device_call.sh r6
dc_variants
dc_cuda_tests smtw-tests "*softmax*" smtw
dc_cuda_tests smtw-rows "*more rows than their grid*" smtw
pack
dc_ab_rounds smtw smtw softmax_forward bf16,f16 3
cat $R/times.txt $R/ab-*.txt; tail -n 3 $R/smtw-tests.txt $R/smtw-rows.txt
