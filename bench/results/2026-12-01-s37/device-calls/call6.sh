#!/usr/bin/env bash
# Thirty-seventh session, call 6: vopg = opk_softmax_bwd_one_pack's row sum through the
# fixed-group stage (group_sum<512>: a warp reads the 16 warp partials one a lane and
# shuffles, instead of every thread adding 16 from shared memory), after call 5's Nsight
# Compute had the kernel at 108.5 M instructions against Inductor's 77.6 M at the same
# warps. Built: git diff > /tmp/onepack-g.patch; git stash; OPKIT_PREPARE_ROCM=0
# bench/prepare_device_builds.sh variant opg /tmp/onepack-g.patch; git stash pop; pack.
# Softmax test cases through it, three A/B rounds against b6cfa6b. Carry build-check,
# build-var, .whl. About 150 s.
. bench/device_call.sh r6
dc_variants
dc_cuda_tests opg-tests "ops: softmax*" opg
pack
dc_ab_rounds opg opg softmax_backward bf16,f16 3
cat $R/times.txt $R/ab-*.txt; tail -n 2 $R/*-tests.txt
