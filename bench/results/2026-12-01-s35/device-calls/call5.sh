#!/usr/bin/env bash
# Thirty-fifth session, call 5: rope with the partner half from a warp shuffle at two and
# four packs a thread, 128-thread blocks (bench/experiments/rope-shuffle-partner.patch,
# OPK_EXP_ROPE_SHUFFLE=2 / 4: variants rsh2, rsh4; 38-40 / 64-71 registers), after call 4's
# one pack a thread (256-thread blocks) was 2.8-4.9 % slower. Rope's test cases through
# each, three A/B rounds each against HEAD's vendor. Build (cuda vendor only, seconds):
#   OPKIT_PREPARE_ROCM=0 bench/prepare_device_builds.sh variant rsh2 bench/experiments/rope-shuffle-partner.patch OPK_EXP_ROPE_SHUFFLE=2
#   OPKIT_PREPARE_ROCM=0 bench/prepare_device_builds.sh variant rsh4 bench/experiments/rope-shuffle-partner.patch OPK_EXP_ROPE_SHUFFLE=4
#   bench/prepare_device_builds.sh pack
# Carry build-check (less its rocm vendor), build-var. About 180 s.
. bench/device_call.sh r5
dc_variants
for v in rsh2 rsh4; do dc_cuda_tests $v-tests "ops: rope*" $v; done
pack
OPS=rope_forward,rope_backward
dc_ab_rounds rsh2 rsh2 $OPS bf16,f32 3
dc_ab_rounds rsh4 rsh4 $OPS bf16,f32 3
cat $R/times.txt $R/ab-*.txt; tail -n 2 $R/rsh*-tests.txt
