#!/usr/bin/env bash
# Prepared in the thirty-ninth session for the next one (not run: the device time was spent).
# The fp32 rms_norm forward at torch.compile's static shapes: Inductor's best configs for
# 8192x8192 and 4096x16384 (r6/best-configs.txt) are one program a row of 16 and 32 warps
# holding four packs a thread and reading the row twice -- the library's twice body at 512 x 4
# and 1024 x 4 -- and its kernels ran 0.1288 / 0.1295 ms against the fixed kernels' 0.1309 /
# 0.1331 (r4). bench/experiments/rms-fwd-twice-f32-wide.patch: OPK_EXP_RMS_TWICE_F32_WIDE=1
# those two shapes with today's hints; =2 also Inductor's hints (x with L1::evict_last and
# L2's evict_last policy, then L1::evict_first with evict_first; the weight evict_last;
# applies to every twice kernel, so bf16 is timed too). sm_90: 30 registers, no spills.
# About 250 s with the machine's start. Builds:
#   bench/prepare_device_builds.sh check
#   OPKIT_PREPARE_ROCM=0 OPKIT_PREPARE_RESTORE_BUILD=0 bench/prepare_device_builds.sh variant tw1 \
#     bench/experiments/rms-fwd-twice-f32-wide.patch OPK_EXP_RMS_TWICE_F32_WIDE=1
#   OPKIT_PREPARE_ROCM=0 bench/prepare_device_builds.sh variant tw2 \
#     bench/experiments/rms-fwd-twice-f32-wide.patch OPK_EXP_RMS_TWICE_F32_WIDE=2
#   bench/prepare_device_builds.sh pack
# Carry build-check, build-var.
. bench/device_call.sh r1
dc_variants
dc_cuda_tests tw2-rms "*rms_norm*" tw2
pack
dc_ab_rounds tw1 tw1 rms_norm_forward f32 3
dc_ab_rounds tw2 tw2 rms_norm_forward f32,bf16 3
cat $R/times.txt $R/ab-*.txt; tail -n 3 $R/tw2-rms.txt
# Then, in the same call if time allows (about 100 s): Nsight Compute's full set on opkit's
# fp32 rms_norm forward at 4096x16384 (the fixed kernel) and Inductor's static kernel
# (bench/placement_probe.py's new case rms_fwd_compile_f32_16k, Dynamo reset per case).
[ $SECONDS -lt 400 ] && dc_ncu_gaps ncu-rms16k rms_fwd_compile_f32_16k
cat $R/ncu-rms16k-stalls.txt 2>/dev/null
# Still owed from earlier sessions: the multi-GPU suites (kind nvidia-h200-x2, not lent in
# the thirty-sixth to thirty-ninth sessions): bench/results/2026-12-01-s36/device-calls/
# prepared-next-call-1.sh.
