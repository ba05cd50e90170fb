#!/usr/bin/env bash
# Call 3: vzero, the embedding backward zeroing only the rows no id owns (after step 1 sets
# the owners; opk_emb_bwd_zero_unowned_<dtype>, sixteen packs a thread after their rows'
# owners), so that the ids' rows (8192 of 128256 at gpu_compare's shape, 6 % of dweight) are
# written once. Its embedding test cases on cuda and on rocm over the HIP-over-CUDA shim and
# conformance of both, then three A/B rounds of the embedding ops against build-check.
# Carry build-check, build-var (vzero). About 200 s.
. bench/device_call.sh r3
dc_variants
dc_tests zero "ops: embedding*" zero
pack
dc_ab_rounds zero zero embedding bf16,f32 3
cat $R/times.txt $R/ab-zero.txt; tail -n 3 $R/zero-tests*.txt $R/zero-conformance*.txt
