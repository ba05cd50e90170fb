#!/usr/bin/env bash
# Prepared in the forty-third session for the next one (not run). Does a kernel's
# parameter size cost time around it? opkit's calls have had 0.26 us more outside their
# kernels than the peers' by the median (0.12-0.13 us more lead from the spin), and its row
# kernels take 300-750 bytes of arguments by value (NormArgs 688, SoftmaxArgs 456,
# ElementwiseArgs 5 RowsViews; Triton's kernels under 100).
# 1. bench/experiments/launch_param_bytes.cu: a one-word kernel and a 64 MiB copy behind a
#    spin kernel with parameter structs of 32 to 4096 bytes (about 20 s to build, 20 s to run).
# 2. vmdim = bench/experiments/rows-view-max-dims.patch, OPK_EXP_MAX_DIMS=2 (cuda vendor
#    only): every RowsView 144 -> 48 bytes (NormArgs 688 -> 304, SoftmaxArgs 456 -> 168),
#    nothing else changed; A/B on the bf16 ops that miss by 1 % or less. Views of more than
#    two merged outer dimensions are wrong under it (none in the benchmark), so no tests.
# About 150 s on a warm machine.
# Builds: bench/prepare_device_builds.sh check;
#   OPKIT_PREPARE_ROCM=0 bench/prepare_device_builds.sh variant mdim \
#     bench/experiments/rows-view-max-dims.patch OPK_EXP_MAX_DIMS=2
#   bench/prepare_device_builds.sh pack
# Carry build-var.
. bench/device_call.sh r2
dc_variants
t lpb-build nvcc -std=c++17 -O3 -arch=sm_90 -o /tmp/lpb bench/experiments/launch_param_bytes.cu
t lpb timeout 120 /tmp/lpb
pack
dc_ab_rounds mdim mdim softmax_forward,rms_norm_forward,swiglu_forward,embedding_forward bf16 3
cat $R/times.txt $R/lpb.txt $R/ab-mdim.txt
pack
