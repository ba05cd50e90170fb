#!/usr/bin/env bash
# Prepared in the thirty-fourth session for the next one: rope's grid cap. The library
# launches at most 64 blocks an SM (vendors/gpu/host/ops_rope.cpp), so at 4x4096x32x128
# each 128-thread block loops over about two positions (8448 blocks over 16384 positions,
# four resident an SM) and a tail of blocks takes one; torch.compile's rope, 4 % ahead in
# fp32 (the largest gap to a peer left, a kernel gap by the thirty-second session's
# placement probe), runs one block per 1024 elements with no loop. Host code only, so the
# variants build in seconds:
#   bench/prepare_device_builds.sh check
#   OPKIT_PREPARE_ROCM=0 bench/prepare_device_builds.sh variant rg1024 bench/experiments/rope-grid-cap.patch OPK_EXP_ROPE_BLOCKS_PER_SM=1024
#   OPKIT_PREPARE_ROCM=0 bench/prepare_device_builds.sh variant rg32 bench/experiments/rope-grid-cap.patch OPK_EXP_ROPE_BLOCKS_PER_SM=32
#   bench/prepare_device_builds.sh pack
# (1024: every position its own block; 32: about four a block.) Rope's test cases on the
# first, then two A/B rounds each, bf16 and fp32, forward, backward and the q+k pair.
# Carry build-check (less its rocm vendor: the 64 MiB limit), build-var. About 200 s.
. bench/device_call.sh r2
dc_variants
dc_cuda_tests rg-tests "ops: rope*" rg1024
pack
OPS=rope_forward,rope_backward
dc_ab_rounds rg1024 rg1024 $OPS bf16,f32 2
dc_ab_rounds rg32 rg32 $OPS bf16,f32 2
cat $R/times.txt $R/ab-*.txt; tail -n 3 $R/rg-tests.txt
