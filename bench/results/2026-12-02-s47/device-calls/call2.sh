#!/usr/bin/env bash
# The forty-seventh session's second call: counted rows in the norm stash backwards
# (bench/experiments/norm-stash-counted-rows.patch, variant "counted": each block's next row
# from a counter the host zeroes with a cuMemsetD32Async before the kernel, instead of
# striding by the grid), after call 1 measured dynamic rows 7 % faster than strided in a
# persistent register kernel (0.2007 vs 0.2150 ms, no dweight). The stash tests and the
# norm tests on the variant first, then three rounds of A/B against HEAD's vendor.
# Builds: bench/prepare_device_builds.sh check (HEAD's, packed before) and
# OPKIT_PREPARE_ROCM=0 bench/prepare_device_builds.sh variant counted <patch>; pack.
. bench/device_call.sh r2
cat build-check/HEAD.txt
dc_variants
cat var/vcounted/VARIANT.txt
dc_cuda_tests counted-stash-tests "ops: norm backwards through the stash kernels*" counted
dc_cuda_tests counted-norm-tests "ops: rms_norm*,ops: layer_norm*" counted
tail -3 $R/counted-stash-tests.txt $R/counted-norm-tests.txt
pack
dc_ab_rounds norms counted rms_norm,layer_norm bf16,f16,f32 3
cat $R/times.txt
cat $R/ab-norms.txt
