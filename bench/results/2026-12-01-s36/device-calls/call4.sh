#!/usr/bin/env bash
# Thirty-sixth session, call 4. (a) The three rocm steps call 3's whole check did not reach
# (its rocm part ran past the 470 s limit after rocm-tests passed in 443 s;
# scripts/gpu-check-split.sh now runs them as a part of their own) on the same build-check
# (b831346). (b) bench/experiments/norm-stash-coop-sums.patch: the 2-byte norm stash
# backwards launched cooperatively add their column sums themselves after a grid-wide
# barrier (cc1: rms_norm; cc2: layer_norm's pairs too): the stash test case on each, then
# A/B rounds against build-check's vendor. Builds: bench/prepare_device_builds.sh check (call
# 3's), then OPKIT_PREPARE_ROCM=0 [OPKIT_PREPARE_RESTORE_BUILD=0] variant cc1 / cc2 and pack.
# Carry build-check, build-var, .whl.
. bench/device_call.sh r4
( export OUT=$R/rocm-rest OPKIT_GPU_CHECK_ONLY='^(rocm-conformance|rocm-rocblas-matmul|tiny_lm-rocm)$' OPKIT_PACK_RESULTS=0; t rocm-rest timeout 200 scripts/gpu-check.sh build-check )
pack
dc_variants
for v in cc1 cc2; do dc_cuda_tests $v-tests "ops: norm backwards through the stash kernels*" $v; done
pack
dc_ab_rounds cc1 cc1 rms_norm_backward,layer_norm_backward bf16,f16 2
[ $SECONDS -lt 420 ] && dc_ab_rounds cc2 cc2 layer_norm_backward bf16 2
cat $R/times.txt $R/ab-*.txt; grep -h "OPK_EXP_COOP" $R/*.txt | sort | uniq -c; tail -n 2 $R/*-tests.txt; grep -E "^== |ok|FAIL" $R/rocm-rest.txt | tail -8
