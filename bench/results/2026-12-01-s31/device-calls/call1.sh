#!/usr/bin/env bash
# Prepared in the thirtieth session; run as the thirty-first session's call 1.
# vwide = bench/experiments/norm-bwd-wide.patch (OPK_EXP_NORM_WIDE=1): the norm backwards of
# 2-byte rows of exactly 16384 (rms_norm) or 8192 (both) through kernels shaped like
# softmax's wide backward, which reaches 0.976 of copy at 4096x16384 on the same bytes (read
# two rows, write one): 256 threads of eight (rows of 16384) or four (8192) packs of x and
# dy in registers, two blocks an SM (rms_norm at 8192: three), no ring, the weight row and
# the column sums in shared memory (ptxas: 80-128 registers, no spill). The stash kernels
# they would replace hold one 512-thread block an SM there: rms_norm 0.86 / 0.906 of copy
# at 4096x16384 / 8192x8192, layer_norm 0.85 / 0.867 (docs/PERFORMANCE.md, "The thirtieth
# session"). First their test cases (the stash case has bf16 and f16 rows of 8192 and 16384
# with and without a weight and with an offset; then the rms_norm and layer_norm cases),
# then three A/B rounds against build-check's own vendor (the env var means nothing to it).
# Carry build-check (cc58429's build), build-var. About 300 s.
# If a shape gains: its landing form (a plan entry instead of the env var), the AMD gate (the
# kernels are sm_90-only like the stash kernels), the spill check, the whole GPU check.
. bench/device_call.sh r1
dc_variants
vp=$PWD/var/vwide/libopkit_vendor_cuda.so
export OPK_EXP_NORM_WIDE=1
t wide-stash-tests timeout 200 env OPKIT_VENDOR_PATH=$vp build-check/bin/opkit_cuda_tests "ops: norm backwards through the stash kernels*"
pack
t wide-norm-tests timeout 250 env OPKIT_VENDOR_PATH=$vp build-check/bin/opkit_cuda_tests "ops: rms_norm*,ops: layer_norm*"
pack
dc_ab_rounds wide wide norm_backward bf16,f16 3
unset OPK_EXP_NORM_WIDE
cat $R/times.txt $R/ab-wide.txt; tail -n 3 $R/wide-*-tests.txt
