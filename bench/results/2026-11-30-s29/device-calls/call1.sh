#!/usr/bin/env bash
# Ran as the twenty-ninth session's call 1 (results: ../r1), unchanged from the twenty-eighth session's prepared-next-call-1.sh.
# Prepared in the twenty-eighth session for the next one (not run: the session's device time
# was spent). Carry build-check (77a648c's build, the base), build-var. The variants are
# built on the build VM (build-var/var.tar.xz, made by the twenty-eighth session; rebuild
# them from the patches if build-var is gone):
#   vq4   bench/experiments/column-sum-quads.patch: opk_column_sum's lanes sum four adjacent
#         columns with 16-byte loads (a block 128 columns, the same additions in the same
#         order a column, so the same results), wherever n % 4 == 0. Question: the column
#         sums after the norm backwards' row kernels took 5.5-6.8 µs at bf16 4096x16384
#         (5 % of the call; the twenty-fourth session), 4.8-6.9 µs at fp32 (call 1 of the
#         twenty-eighth, r2), reading 4-17 MB mostly from L2 at 1-3 TB/s in two waves of
#         512-thread blocks; with quads one wave of a quarter the blocks and a quarter the
#         load instructions. The bf16 norm backwards at rows of 16384 are 0.84-0.86 of copy.
#   vq16  the same from n >= 16384 only (OPK_EXP_COLUMN_QUADS_MIN_N 16384: rows of 4096 would
#         have only 32 blocks a gradient with quads);
#   vsr1  bench/experiments/norm-split-l2-ahead.patch for rms_norm only (its
#         `if constexpr (kFp32Split && OPK_EXP_SPLIT_AHEAD > 0)` with `&& !Ln`), 1 MB: the
#         fp32 split stash kernels asking L2 for their part of the rows ahead measured
#         rms_norm 4096x16384 0.989 and layer_norm 1.008 in two rounds (r6): more rounds.
# The column-sum patch also moves tests/rocm/test_rocm_no_device.cpp's expected grid
# (8192 / 128): with vq16 that test would want 8192 / 32 again. About 330 s.
. bench/device_call.sh r1
dc_variants
for i in 1 2 3; do
  for v in base q4 q16 sr1; do dc_ab bwd-$v-$i $v norm_backward bf16,f32; pack; done
done
for v in q4 q16 sr1; do python3 bench/ab_table.py $R bwd-base bwd-$v > $R/ab-bwd-$v.txt 2>&1; done
pack
dc_tests vq4 "ops: layer_norm*,ops: rms_norm*,ops: norm backwards*" q4
pack
cat $R/times.txt $R/ab-*.txt
for f in vq4-tests vq4-tests-rocm; do tail -n 2 $R/$f.txt; done; tail -qn 1 $R/vq4-conformance*.txt
