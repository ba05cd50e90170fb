#!/usr/bin/env bash
# Twenty-ninth session, call 2: the landed form of call 1's two answers (kColumnSumQuadsMinColumns:
# opk_column_sum's four columns a lane from rows of 16384; rms_norm's fp32 split stash kernels
# asking L2 for their part of the rows 1 MB ahead) against build-check (c996484's vendors,
# byte-identical to 77a648c's), three rounds; then the norm cases and conformance on it.
# Carry build-check, build-var (vnew: this tree's vendors).
. bench/device_call.sh r2
dc_variants
dc_ab_rounds bwd new norm_backward bf16,f32 3
dc_tests vnew "ops: layer_norm*,ops: rms_norm*,ops: norm backwards*" new
pack
cat $R/times.txt $R/ab-bwd.txt
for f in vnew-tests vnew-tests-rocm; do tail -n 2 $R/$f.txt; done; tail -qn 1 $R/vnew-conformance*.txt
