#!/usr/bin/env bash
# Prepared in the thirtieth session for the next one (not run: no device time was left).
# vwide = bench/experiments/rms-bwd-wide8.patch (OPK_EXP_RMS_WIDE=1): rms_norm's backward of
# 2-byte rows of exactly 16384 through a kernel shaped like softmax's wide backward, which
# reaches 0.976 of copy at 4096x16384 on the same bytes (read two rows, write one): 256
# threads of eight packs of x and dy in registers, two blocks an SM, no ring, the weight
# row and the dweight sums in shared memory (96 KB a block; ptxas: 128 registers, no
# spill). The stash kernel it would replace holds one 512-thread block an SM and runs at
# 0.86 of copy there (docs/PERFORMANCE.md, "The thirtieth session"). First its test cases
# (the stash case has bf16 and f16 rows of 16384 with and without a weight and with an
# offset; the rms_norm cases), then three A/B rounds against build-check's own vendor (the
# env var means nothing to it). Carry build-check (cc58429's build), build-var. About 250 s.
# If it gains: the landing form (a config of its own instead of the env var; layer_norm
# would need 160 KB a block for its two sums, so rms_norm only), the AMD gate (the kernel is
# sm_90-only like the stash kernels), the whole GPU check.
. bench/device_call.sh r1
dc_variants
vp=$PWD/var/vwide/libopkit_vendor_cuda.so
export OPK_EXP_RMS_WIDE=1
t wide-stash-tests timeout 200 env OPKIT_VENDOR_PATH=$vp build-check/bin/opkit_cuda_tests "ops: norm backwards through the stash kernels*"
pack
t wide-rms-tests timeout 200 env OPKIT_VENDOR_PATH=$vp build-check/bin/opkit_cuda_tests "ops: rms_norm*"
pack
dc_ab_rounds wide wide norm_backward bf16,f16 3
unset OPK_EXP_RMS_WIDE
cat $R/times.txt $R/ab-wide.txt; tail -n 3 $R/wide-*-tests.txt
