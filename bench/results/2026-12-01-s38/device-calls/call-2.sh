#!/usr/bin/env bash
# Call 2 of the thirty-eighth session: vpipe = bench/experiments/norm-stash-pipelined.patch
# (OPK_EXP_STASH_PIPE=1): the 2-byte norm stash backwards ring three rows and publish each
# row's warp sums through an mbarrier, doing the next row's first pass before waiting for
# the other warps (the block barrier's wait overlapped with a whole pass); rms_norm's
# dweight sums in registers so that three rows of 16384 fit (bf16 rms s2_exact 125
# registers, no spill; f16 16 bytes). Tests of the norm cases through it, three A/B rounds.
# Builds: OPKIT_PREPARE_ROCM=0 bench/prepare_device_builds.sh variant pipe
#   bench/experiments/norm-stash-pipelined.patch OPK_EXP_STASH_PIPE=1; ... pack
. bench/device_call.sh r2
dc_variants
dc_cuda_tests pipe-tests "ops: *norm*" pipe
pack
dc_ab_rounds pipe pipe norm_backward bf16,f16 3
cat $R/times.txt $R/ab-*.txt; tail -n 3 $R/*-tests.txt
