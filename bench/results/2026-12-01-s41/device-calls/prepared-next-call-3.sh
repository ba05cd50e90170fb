#!/usr/bin/env bash
# Prepared in the forty-first session (not run: 166 s of device time were left, too little
# to start a machine; both variants built and SASS-checked here). Two experiments, about
# 330 s with the machine's start:
#  1. vl2 = bench/experiments/rms-fwd-twice-l1.patch, OPK_EXP_TWICE_L1=2: the fp32 rows of
#     8192's L1 hints on every other twice kernel (fp32 rows of 4096 and 16384, 2-byte rows
#     of 4096 and 8192; sm_90 the same registers, no spills). Before the x-ahead loads
#     (09c0a72) the hints had measured 0.999-1.001 on the fp32 twice kernels and 1.005
#     slower on bf16 rows of 8192.
#  2. vp2 = bench/experiments/softmax-bwd-packs.patch, OPK_EXP_SOFTMAX_BWD_PACKS=2: the
#     2-byte softmax backward of rows of 8192 at 512 x 2 packs and of 16384 at 512 x 4 in the
#     one-pack kernel's shape (Liger-Kernel's 16 warps a row there; the bf16 softmax backward
#     trails Liger 0.98x at 4096x16384 and its kernel span trailed Inductor's by 0.7-1.2 us in
#     the forty-first session's call 5). 40 registers with two spill stores a row (x2), 80
#     and none (x4). Its softmax cases on both vendors and both conformance runs first.
# Builds: bench/prepare_device_builds.sh check;
#   OPKIT_PREPARE_ROCM=0 bench/prepare_device_builds.sh variant l2 \
#     bench/experiments/rms-fwd-twice-l1.patch OPK_EXP_TWICE_L1=2
#   bench/prepare_device_builds.sh variant p2 \
#     bench/experiments/softmax-bwd-packs.patch OPK_EXP_SOFTMAX_BWD_PACKS=2
#   bench/prepare_device_builds.sh pack
# Carry build-var.
. bench/device_call.sh r3
dc_variants
dc_ab_rounds l2 l2 rms_norm_forward bf16,f32 2
dc_tests p2 "*softmax*" p2
dc_ab_rounds p2 p2 softmax_backward bf16 3
cat $R/times.txt $R/ab-l2.txt $R/ab-p2.txt
tail -n 3 $R/p2-*.txt
