#!/usr/bin/env bash
# Prepared in the thirty-fifth session for the next one: opk_rope_dense with Inductor's
# cache policies (bench/experiments/rope-dense-hints.patch: rh1 = cos/sin kept in L2 with
# evict_last, rh2 = also x loaded and y stored streaming). Host code unchanged, rope.cu
# alone rebuilds (seconds):
#   bench/prepare_device_builds.sh check
#   OPKIT_PREPARE_ROCM=0 OPKIT_PREPARE_RESTORE_BUILD=0 bench/prepare_device_builds.sh variant rh1 bench/experiments/rope-dense-hints.patch OPK_EXP_ROPE_DENSE_HINTS=1
#   OPKIT_PREPARE_ROCM=0 bench/prepare_device_builds.sh variant rh2 bench/experiments/rope-dense-hints.patch OPK_EXP_ROPE_DENSE_HINTS=2
#   bench/prepare_device_builds.sh pack
# Rope's test cases on each, three A/B rounds each against HEAD's vendor. Carry build-check
# (less its rocm vendor), build-var. About 200 s.
. bench/device_call.sh r3
dc_variants
for v in rh1 rh2; do dc_cuda_tests $v-tests "ops: rope*" $v; done
pack
dc_ab_rounds rh1 rh1 rope_forward,rope_backward bf16,f32 3
dc_ab_rounds rh2 rh2 rope_forward,rope_backward bf16,f32 3
cat $R/times.txt $R/ab-*.txt; tail -n 2 $R/*-tests.txt
