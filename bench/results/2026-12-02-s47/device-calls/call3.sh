#!/usr/bin/env bash
# The forty-seventh session's third call: counted rows again, thread 0's atomic issued before
# the ring's wait for the row's copies (bench/experiments/norm-stash-counted-rows-early.patch,
# variant "early"), after call 2's form (the atomic after the wait) ran 16-45 % slower than
# strided. The stash tests on the variant, then three rounds of A/B against HEAD's vendor on
# the 2-byte types (fp32's: call 2 had its counted 32768x4096 1.28-1.33 slower, and its
# bulk-ring and split shapes, which do not count, within 0.998-1.004).
# Builds: as call 2, the variant made by
# OPKIT_PREPARE_ROCM=0 bench/prepare_device_builds.sh variant early <patch>; pack.
. bench/device_call.sh r3
cat build-check/HEAD.txt
dc_variants
cat var/vearly/VARIANT.txt
dc_cuda_tests early-stash-tests "ops: norm backwards through the stash kernels*" early
tail -n 3 $R/early-stash-tests.txt
pack
dc_ab_rounds norms early rms_norm,layer_norm bf16,f16 3
cat $R/times.txt
cat $R/ab-norms.txt
