#!/usr/bin/env bash
# Forty-eighth session, call 4: the landing (ef72821: rms_norm's 2-byte twice kernels ask
# L2 for the row 4 MB ahead; 2-byte rows of 16384 read twice at 512 x 4, one block a row)
# as build-check. First old against new, two rounds of the rms_norm forward in bf16 and
# f16 (variant "old": old-twice.patch, the landing's vendors reversed, cuda vendor only;
# ratio old / new), then the whole GPU check on it, parts limited to 500 s so that the call
# stays inside the device tool's 600 s.
# Builds: bench/prepare_device_builds.sh check; OPKIT_PREPARE_ROCM=0
#   bench/prepare_device_builds.sh variant old bench/results/2026-12-02-s48/device-calls/old-twice.patch;
#   bench/prepare_device_builds.sh pack. Carry build-var.
. bench/device_call.sh r4
cat build-check/HEAD.txt
dc_variants
cat var/vold/VARIANT.txt
dc_ab_rounds old old rms_norm_forward bf16,f16 2
cat $R/ab-old.txt
dc_check 500
cat $R/times.txt
pack
