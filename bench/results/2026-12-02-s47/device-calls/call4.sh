#!/usr/bin/env bash
# The forty-seventh session's fourth call: counted rows a third time, thread 0 asking the
# counter for a row one row before it publishes it
# (bench/experiments/norm-stash-counted-rows-ahead.patch, variant "ahead"), after call 3's
# form (asked before the ring's wait, in the same row) ran 9-18 % slower than strided.
# The stash tests on the variant, then three rounds of A/B against HEAD's vendor on the
# 2-byte types (fp32's: call 2 had its counted 32768x4096 1.28-1.33 slower, and its
# bulk-ring and split shapes, which do not count, within 0.998-1.004).
# Builds: as call 2, the variant made by
# OPKIT_PREPARE_ROCM=0 bench/prepare_device_builds.sh variant ahead <patch>; pack.
. bench/device_call.sh r4
cat build-check/HEAD.txt
dc_variants
cat var/vahead/VARIANT.txt
dc_cuda_tests ahead-stash-tests "ops: norm backwards through the stash kernels*" ahead
tail -n 3 $R/ahead-stash-tests.txt
pack
dc_ab_rounds norms ahead rms_norm,layer_norm bf16,f16 3
cat $R/times.txt
cat $R/ab-norms.txt
