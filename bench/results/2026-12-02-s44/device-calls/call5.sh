#!/usr/bin/env bash
# The forty-fourth session, call 5. The landing build (build-check: the kernel parameters'
# hot-first order, as call 4's vhot, and the fixed-group forwards that call 1's vfbr made
# faster one block a row: softmax 2-byte rows of 8192, rms_norm 2-byte rows of 16384,
# layer_norm fp32 rows of 16384; softmax's fp32 rows of 16384 walk still, their one-row
# kernel spilling on AMD) against a4ad587's own cuda vendor
# (vold), three alternating rounds; ratio vold / base, so above 1 the landing build is
# faster. The whole GPU check follows in call 6 (sent inside the idle window) if nothing
# here is slower.
# Builds: vold = build-check's cuda vendor at a4ad587 (copied before the change);
#   bench/prepare_device_builds.sh check; pack. Carry build-var.
. bench/device_call.sh r5
dc_variants
cat build-check/HEAD.txt
dc_ab_rounds old old softmax_forward,rms_norm_forward,layer_norm_forward bf16,f16,f32 3
dc_ab_rounds old2 old softmax_backward,geglu_backward,swiglu_forward bf16 2
cat $R/times.txt $R/ab-old.txt $R/ab-old2.txt
pack
