#!/usr/bin/env bash
# The forty-seventh session's sixth call: counted rows with the ring on a 128-byte line.
# Call 5 (Nsight Compute) found why calls 2-4's counted kernels were slower: the 8 bytes of
# `taken` moved the dynamic shared memory (the ring) from 0x800 to 0x810, and every cp.async
# of the ring then asked L2 for twice the sectors (4.13 M against 2.06 M at 8192x8192) with
# three times the shared wavefronts. Variant "aligned"
# (bench/experiments/norm-stash-counted-rows-aligned.patch): call 4's form (the row asked a
# row ahead) with `taken` 128 bytes, 128-byte aligned (kKernelStaticSharedMax 128 bytes
# more). Three rounds of A/B on the 2-byte types first, then the stash tests on the variant.
# Builds: OPKIT_PREPARE_ROCM=0 bench/prepare_device_builds.sh variant aligned <patch>; pack.
. bench/device_call.sh r6
cat build-check/HEAD.txt
dc_variants
cat var/valigned/VARIANT.txt
dc_ab_rounds norms aligned rms_norm,layer_norm bf16,f16 3
cat $R/times.txt
cat $R/ab-norms.txt
dc_cuda_tests aligned-stash-tests "ops: norm backwards through the stash kernels*" aligned
tail -n 3 $R/aligned-stash-tests.txt
pack
