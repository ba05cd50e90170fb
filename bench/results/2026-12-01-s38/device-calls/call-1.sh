#!/usr/bin/env bash
# Call 1 of the thirty-eighth session (prepared in the thirty-seventh):
# 1. bench/experiments/softmax_forward_lean.cu: the softmax forward in Liger-Kernel's shape
#    (one pack a thread: bf16 rows of 8192 at 1024 threads) and others, written lean as the
#    backward's harness that led to opk_softmax_bwd_one_pack, against the library's
#    fixed-group kernels, whole-output maxdiff a line; twice (its spread). The bf16 softmax
#    forward read 0.97x Liger-Kernel at 8192x8192 in all of the thirty-seventh session's runs.
#    Compiled for sm_90 on the build VM: bf16 1024 x 1 at 2048 resident 28 registers,
#    512 x 2 32, no spills.
# 2. bench/experiments/norm_forward_lean.cu: the rms_norm and layer_norm forwards written
#    the same way (one pack a thread and others, one block a row or a persistent grid; y,
#    mean and rstd checked whole against the library's fixed-group kernels); twice. One
#    pack a thread 30-32 registers, no spills (multi-pack layer_norm lines hold weight and
#    bias too, spill, and say so). The bf16 rms_norm forward trails Liger-Kernel by 1 % at
#    32768x4096, the fp32 norm forwards torch.compile by 1-2 %, in every round.
# 3. vfg = bench/experiments/softmax-bwd-fixed-g-f32.patch (OPK_EXP_SMB_FIXED_G=1: the fp32
#    exact backward at a compile-time group, rows of 4096 / 8192; 48 registers, no spills):
#    the softmax test case through it, three A/B rounds (the fp32 softmax backward trails
#    Liger-Kernel by 0.4 % at 8192x8192).
# Builds:
#   bench/prepare_device_builds.sh check
#   OPKIT_PREPARE_ROCM=0 bench/prepare_device_builds.sh variant fg bench/experiments/softmax-bwd-fixed-g-f32.patch OPK_EXP_SMB_FIXED_G=1
#   bench/prepare_device_builds.sh pack
# Carry build-check, build-var, .whl. About 350 s.
. bench/device_call.sh r1
dc_liger
dc_variants
t nvcc-fwd-lean nvcc -std=c++17 -O3 -arch=sm_90 -Xptxas -v -o /tmp/sfl bench/experiments/softmax_forward_lean.cu
t fwd-lean-1 timeout 150 /tmp/sfl
t fwd-lean-2 timeout 150 /tmp/sfl
pack
t nvcc-norm-lean nvcc -std=c++17 -O3 -arch=sm_90 -Xptxas -v -o /tmp/nfl bench/experiments/norm_forward_lean.cu
t norm-lean-1 timeout 200 /tmp/nfl
t norm-lean-2 timeout 200 /tmp/nfl
pack
dc_cuda_tests fg-tests "ops: softmax*" fg
pack
dc_ab_rounds fg fg softmax_backward f32 3
cat $R/times.txt $R/ab-*.txt; tail -n 2 $R/*-tests.txt
grep -h softmax_fwd $R/fwd-lean-1.txt
grep -h "_fwd" $R/norm-lean-1.txt
