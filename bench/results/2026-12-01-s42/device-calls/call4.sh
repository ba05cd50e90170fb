#!/usr/bin/env bash
# The forty-second session, call 4: vr3 = bench/experiments/softmax-bwd-block-row.patch,
# OPK_EXP_SOFTMAX_BWD_ROW=3: every 2-byte softmax backward of flat rows of 4096, 8192 and
# 16384 one row a block with a block for every row (no row walk): 512 x 1 packs built for
# 2048 resident threads (28 registers, against the one-pack kernel's 31 with its row walk),
# 512 x 2 for 1536 (40, no spills; HEAD takes the exact kernel there) and call 3's 512 x 4
# for 1024 (63; 0.997 in call 3). A/B three rounds, then its softmax cases on both vendors
# and both conformance runs (so that a landing whose kernels' SASS equals vr3's has them).
# Builds: bench/prepare_device_builds.sh check; variant r3 (with rocm); pack. Carry build-var.
. bench/device_call.sh r4
dc_variants
dc_ab_rounds r3 r3 softmax_backward bf16 3
dc_tests r3 "*softmax*" r3
cat $R/times.txt $R/ab-r3.txt
tail -n 3 $R/r3-*.txt
