#!/usr/bin/env bash
# Prepared in the thirty-second session for the next one (not run: the device time left
# could not start a machine). Two experiments after torch.compile's kernels, which hold no
# row in registers and run at high occupancy (r8/stall-table.txt: Inductor's fp32 rms_norm
# forward 28 registers at 58.6 warps an SM against opkit's 45 at 37):
# - vx2r2048 = bench/experiments/fixed-f32-512x2.patch with OPK_EXP_FIXED_X2=2048: the fp32
#   forwards (rms_norm, layer_norm, softmax) of rows of 4096 at 512 threads of two packs,
#   32 registers (four blocks an SM), instead of 256 of four at 45-60; vx2r1536 the same
#   at 1536 resident threads (layer_norm 40 registers, softmax 37, rms_norm 31).
# - vsmb1r32 / vsmb1r40 = bench/experiments/softmax-bwd-one-pack.patch with
#   OPK_EXP_SMB_C1=32 / 40: the 2-byte softmax backward of exact rows (4096, 8192) at one
#   pack a thread (512 threads a row of 4096, as Inductor's 16 warps), capped at 32
#   registers (24 bytes of stack: four blocks an SM) or 40 (no spill; three).
# Their test cases, then two A/B rounds each against build-check. Carry build-check,
# build-var. Build them on the build VM (bench/prepare_device_builds.sh, since the
# thirty-third session):
#   bench/prepare_device_builds.sh check
#   bench/prepare_device_builds.sh variant x2r2048 bench/experiments/fixed-f32-512x2.patch OPK_EXP_FIXED_X2=2048
#   bench/prepare_device_builds.sh variant x2r1536 bench/experiments/fixed-f32-512x2.patch OPK_EXP_FIXED_X2=1536
#   bench/prepare_device_builds.sh variant smb1r32 bench/experiments/softmax-bwd-one-pack.patch OPK_EXP_SMB_C1=32
#   bench/prepare_device_builds.sh variant smb1r40 bench/experiments/softmax-bwd-one-pack.patch OPK_EXP_SMB_C1=40
#   bench/prepare_device_builds.sh pack
# About 350 s.
. bench/device_call.sh r1
dc_variants
dc_cuda_tests x2-tests "ops: rms_norm*,ops: layer_norm*,ops: softmax*" x2r2048
pack
dc_cuda_tests smb-tests "ops: softmax*" smb1r32
pack
dc_ab_rounds x2 x2r2048 rms_norm_forward,layer_norm_forward,softmax_forward f32 2
dc_ab_rounds x2b x2r1536 layer_norm_forward,softmax_forward f32 2
dc_ab_rounds smb32 smb1r32 softmax_backward bf16,f16 2
dc_ab_rounds smb40 smb1r40 softmax_backward bf16,f16 2
cat $R/times.txt $R/ab-*.txt; tail -n 3 $R/*-tests.txt
