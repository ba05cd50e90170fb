#!/usr/bin/env bash
# Thirty-fourth session, call 2: the experiments prepared in the thirty-second session
# (bench/results/2026-12-01-s32/device-calls/prepared-next-call-1.sh says why):
# - vx2r2048 / vx2r1536: bench/experiments/fixed-f32-512x2.patch, the fp32 forwards of
#   rows of 4096 at 512 threads of two packs, OPK_EXP_FIXED_X2 = 2048 / 1536 resident;
# - vsmb1r32 / vsmb1r40: bench/experiments/softmax-bwd-one-pack.patch, the 2-byte softmax
#   backward of exact rows at one pack a thread, OPK_EXP_SMB_C1 = 32 / 40 registers.
# Built with bench/prepare_device_builds.sh variant (lines in the s32 script) and pack.
# Carry build-check, build-var. About 350 s.
. bench/device_call.sh r2
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
