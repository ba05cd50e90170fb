#!/usr/bin/env bash
# Thirty-sixth session, call 5, with the device time's last ~140 s: a first A/B of
# bench/experiments/rms-fwd-two-packs.patch (vx2a: OPK_EXP_RMS_FWD_X2=1, rms_norm's 2-byte
# fixed forwards at two packs a thread at rows of 4096 and 8192) against build-check's
# vendor (b831346), two rounds, bf16 and f16 rms_norm forward. No test cases (no time):
# a timing answer only; landing it needs rms_norm's test cases on the variant first.
# Builds: bench/prepare_device_builds.sh check (call 3's), then OPKIT_PREPARE_ROCM=0
# variant x2a / x2b and pack. Carry build-check, build-var.
. bench/device_call.sh r5
dc_variants
dc_ab_rounds x2a x2a rms_norm_forward bf16,f16 2
cat $R/times.txt $R/ab-*.txt
